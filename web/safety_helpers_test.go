package web_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// auditedAfter reports whether every event logged after seq is an audit entry (a call's
// audit_appended follows the events of the action).
func auditedAfter(t *testing.T, s *webtest.Server, seq int64) bool {
	t.Helper()
	f, err := s.Engine.Follow(engine.FollowOptions{AfterSeq: seq, LoggedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for seq < s.Engine.Seq() {
		ds, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Event().GetAuditAppended() == nil {
				return false
			}
			seq = d.Event().GetSeq()
		}
	}
	return true
}

// auditLog lists the audit log as by sees it, newest first.
func auditLog(t *testing.T, by *webtest.Client, q *svcv1.ListAuditLogRequest) []*svcv1.AuditEntry {
	t.Helper()
	if q == nil {
		q = &svcv1.ListAuditLogRequest{Limit: 200}
	}
	res, err := by.Server.ListAuditLog(ctx, req(q))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetEntries()
}

// auditNames names entries "ACTION target detail" (the action without its prefix; the target's
// and the actor's ids as the names given), oldest first.
func auditNames(entries []*svcv1.AuditEntry, names map[string]string) []string {
	var out []string
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		s := strings.TrimPrefix(e.GetAction().String(), "AUDIT_ACTION_")
		if e.GetActorId() != "" {
			s = names[e.GetActorId()] + " " + s
		}
		if e.GetTargetMemberId() != "" {
			s += " " + names[e.GetTargetMemberId()]
		}
		if e.GetReason() != "" {
			s += " (" + e.GetReason() + ")"
		}
		if e.GetDetail() != "" {
			s += ": " + e.GetDetail()
		}
		out = append(out, s)
	}
	return out
}

// namesOf maps the members' ids to their usernames.
func namesOf(cs ...*webtest.Client) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		out[c.Member.GetId()] = c.Member.GetUsername()
	}
	return out
}

// retryAfter is the Retry-After header of a refusal.
func retryAfter(err error) string {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return ""
	}
	return ce.Meta().Get("Retry-After")
}

// auditStream subscribes with the audit entries kept.
func auditStream(t *testing.T, c *webtest.Client, seq int64) *webtest.Stream {
	t.Helper()
	st := c.Subscribe(t, seq)
	st.Audit = true
	return st
}

// auditsUntilMarker returns the audit entries each stream got up to a marker (by's bio).
func auditsUntilMarker(t *testing.T, by *webtest.Client, streams ...*webtest.Stream) [][]*svcv1.AuditEntry {
	t.Helper()
	bio := fmt.Sprintf("marker %d", markers.Add(1))
	if _, err := by.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	got := make([][]*svcv1.AuditEntry, len(streams))
	for i, st := range streams {
		for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio }) {
			if a := ev.GetAuditAppended(); a != nil {
				got[i] = append(got[i], a)
			}
		}
	}
	return got
}
