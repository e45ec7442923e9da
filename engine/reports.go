package engine

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Reports. A member reports a message they can see to the moderators, who list the reports
// about members they outrank (the owner lists all). Nothing but ListReports and report_filed
// (to those who may list the report, reportsfiled.go) names a reporter, and neither names one
// to the reported author (the owner, for reports about the owner); no error depends on who
// else reported.

// Report limits (API.md): notes up to 1,000 characters; 5 reports, then 1 every 10 minutes.
const (
	reportNoteMax = 1000
	reportBurst   = 5
)

var reportRate = rate.Every(10 * time.Minute)

// ReportMessage reports a message to the moderators, or replaces the note of the caller's
// earlier report of it.
func (e *Engine) ReportMessage(ctx context.Context, c Caller, req *svcv1.ReportMessageRequest) (*svcv1.ReportMessageResponse, error) {
	if _, err := e.snap.Load().caller(c); err != nil {
		return nil, err
	}
	// Before any other check: every call counts, refused ones included.
	if wait := e.limits.allow("report:"+c.ID, reportRate, reportBurst); wait > 0 {
		return nil, rateLimited("reporting messages", wait)
	}
	if req.GetMessageId() == "" {
		return nil, invalid("message_id is required")
	}
	if err := checkLen("note", req.GetNote(), reportNoteMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.ReportMessageResponse, error) {
		m, rec, err := e.visibleMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		if err := checkNotTimedOut(tx.Snap().active(c.ID).GetMember(), tx.Now()); err != nil {
			return nil, err
		}
		if m.GetAuthorId() == c.ID {
			return nil, invalid("message %s is your own; you can only report messages of others", m.GetId())
		}
		if m.GetDeleted() {
			return nil, precondition("message %s was deleted", m.GetId())
		}
		rep, err := tx.read().ReportOf(m.GetId(), c.ID)
		switch {
		case err == nil:
			// Reporting again replaces the note; the copy stays the one taken first, so an
			// edit after the report hides nothing from the moderators.
			rep = proto.Clone(rep).(*storepb.ReportRecord)
			rep.Note = req.GetNote()
			rep.ReportedAtMs = tx.NowMs()
		case isNotFound(err):
			rep = &storepb.ReportRecord{
				Id: uuid.Must(uuid.NewV7()).String(),
				Message: &svcv1.Message{
					Id:           m.GetId(),
					ChannelId:    m.GetChannelId(),
					AuthorId:     m.GetAuthorId(),
					Text:         m.GetText(),
					CreatedAtMs:  m.GetCreatedAtMs(),
					ThreadRootId: m.GetThreadRootId(),
				},
				Dm:           rec.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM,
				AuthorId:     m.GetAuthorId(),
				ReporterId:   c.ID,
				Note:         req.GetNote(),
				ReportedAtMs: tx.NowMs(),
			}
		default:
			return nil, err
		}
		if err := tx.mutate().PutReport(rep); err != nil {
			return nil, err
		}
		if err := e.reportFiled(tx, rep); err != nil {
			return nil, err
		}
		return &svcv1.ReportMessageResponse{}, nil
	})
}

// mayListReport reports whether a moderator may see a report: the owner sees every report,
// others those about members they outrank (a member who left has no rank).
func mayListReport(d *Snapshot, me *storepb.MemberRecord, rep *storepb.ReportRecord) bool {
	return d.moderatorReceives(me.GetMember().GetRole(), rep.GetAuthorId())
}

// ListReports lists the open reports the caller may see, newest first.
func (e *Engine) ListReports(ctx context.Context, c Caller, _ *svcv1.ListReportsRequest) (*svcv1.ListReportsResponse, error) {
	d := e.snap.Load()
	me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "listing reports")
	if err != nil {
		return nil, err
	}
	out := &svcv1.ListReportsResponse{}
	err = e.db.View(func(r *store.Reader) error {
		return r.Reports(func(rep *storepb.ReportRecord) error {
			if mayListReport(d, me, rep) {
				out.Reports = append(out.Reports, e.reportView(d, c, rep))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out.Reports, func(i, j int) bool {
		a, b := out.Reports[i], out.Reports[j]
		if a.GetReportedAtMs() != b.GetReportedAtMs() {
			return a.GetReportedAtMs() > b.GetReportedAtMs()
		}
		return a.GetId() > b.GetId()
	})
	return out, nil
}

// reportView is a report as a moderator sees it. The reporter is left out when the moderator
// is the reported author (the owner, reading reports about themselves).
func (e *Engine) reportView(d *Snapshot, c Caller, rep *storepb.ReportRecord) *svcv1.Report {
	out := &svcv1.Report{
		Id:           rep.GetId(),
		Message:      rep.GetMessage(),
		Dm:           rep.GetDm(),
		Note:         rep.GetNote(),
		ReportedAtMs: rep.GetReportedAtMs(),
	}
	if a := d.Member(rep.GetAuthorId()); a != nil {
		out.Author = e.memberView(a.GetMember())
	}
	if r := d.Member(rep.GetReporterId()); r != nil && rep.GetAuthorId() != c.ID {
		out.Reporter = e.memberView(r.GetMember())
	}
	return out
}

// ResolveReport closes a report the caller may list, with every other open report of the same
// message.
func (e *Engine) ResolveReport(ctx context.Context, c Caller, req *svcv1.ResolveReportRequest) (*svcv1.ResolveReportResponse, error) {
	id := req.GetReportId()
	if id == "" {
		return nil, invalid("report_id is required")
	}
	return submit(e, func(tx *Tx) (*svcv1.ResolveReportResponse, error) {
		d := tx.Snap()
		me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "resolving reports")
		if err != nil {
			return nil, err
		}
		rep, err := tx.read().Report(id)
		// A report the caller may not list does not exist for them.
		if isNotFound(err) || (err == nil && !mayListReport(d, me, rep)) {
			return nil, notFound("report %s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		var all []*storepb.ReportRecord
		err = tx.read().ReportsOfMessage(rep.GetMessage().GetId(), func(r *storepb.ReportRecord) error {
			all = append(all, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, r := range all {
			if err := tx.mutate().DeleteReport(r); err != nil {
				return nil, err
			}
		}
		err = appendAudit(tx, &svcv1.AuditEntry{
			ActorId:        c.ID,
			Action:         svcv1.AuditAction_AUDIT_ACTION_REPORT_RESOLVED,
			TargetMemberId: rep.GetAuthorId(),
			ChannelId:      rep.GetMessage().GetChannelId(),
			MessageId:      rep.GetMessage().GetId(),
			Detail:         plural(len(all), "report", "reports") + " resolved",
		})
		if err != nil {
			return nil, err
		}
		return &svcv1.ResolveReportResponse{}, nil
	})
}
