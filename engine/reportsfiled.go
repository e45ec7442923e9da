package engine

import (
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Reports reach the moderators (EXTENSIONS.md 6): a report filed or replaced goes to those who
// may list it as report_filed, and GetState counts the open reports they may list. Who may list
// a report is ListReports' rule: moderators who outrank its author, and the owner always.

// moderatorReceives reports whether a member of rank r receives an event to the moderators
// (KIND_MODERATORS); with above set, only if they outrank that member or own the community.
// A member who left has no rank: every moderator outranks them. (An event about a channel
// reaches only those of them who see the channel: see receivesAs.)
func (d *Snapshot) moderatorReceives(r svcv1.MemberRole, above string) bool {
	if r < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		return false
	}
	return above == "" || r == svcv1.MemberRole_MEMBER_ROLE_OWNER || d.rank(above) < r
}

// reportFiled sends report_filed for a report just stored, as ListReports shows it to those
// who may list it. Those outrank its author, so the reporter is in it; a report about the
// owner reaches the owner alone, and without the reporter, as ListReports shows it to them.
func (e *Engine) reportFiled(tx *Tx, rep *storepb.ReportRecord) error {
	d := tx.Snap()
	viewer := Caller{}
	if d.rank(rep.GetAuthorId()) == svcv1.MemberRole_MEMBER_ROLE_OWNER {
		viewer.ID = rep.GetAuthorId()
	}
	aud := toModerators()
	aud.AboveMemberId = rep.GetAuthorId()
	_, err := tx.emit(aud, &svcv1.Event{Kind: &svcv1.Event_ReportFiled{ReportFiled: e.reportView(d, viewer, rep)}})
	return err
}

// openReports counts the open reports a member may list; 0 below moderator.
func openReports(r *store.Reader, d *Snapshot, me *storepb.MemberRecord) (int32, error) {
	if me.GetMember().GetRole() < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		return 0, nil
	}
	var n int32
	err := r.Reports(func(rep *storepb.ReportRecord) error {
		if mayListReport(d, me, rep) {
			n++
		}
		return nil
	})
	return n, err
}
