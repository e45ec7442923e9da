package web_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func report(c *webtest.Client, messageID, note string) error {
	_, err := c.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: messageID, Note: note}))
	return err
}

func listReports(t *testing.T, c *webtest.Client) []*svcv1.Report {
	t.Helper()
	res, err := c.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetReports()
}

// reportAbout finds the report of a message among reports, or nil.
func reportAbout(reports []*svcv1.Report, messageID string) *svcv1.Report {
	for _, r := range reports {
		if r.GetMessage().GetId() == messageID {
			return r
		}
	}
	return nil
}

// TestReports: a report reaches the moderators who outrank the author (report_filed, and
// ListReports), with a copy of the message and the reporter; nothing the author or any other
// non-moderator can call or receive says who reported, and the owner reading a report about
// themselves does not learn it either.
func TestReports(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	owner := c.owner
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol, dave := c.join("bob"), c.join("carol"), c.join("dave")
	general := c.channel("general")
	m := c.send(bob, general.GetId(), "buy my stuff")
	seq := c.s.Engine.Seq()
	bs, ds, ms := bob.Subscribe(t, seq), dave.Subscribe(t, seq), mod.Subscribe(t, seq)

	var reportedAt int64
	got := between(t, owner, func() {
		if err := report(carol, m.GetId(), "spam"); err != nil {
			t.Fatal(err)
		}
		c.clock.Advance(time.Minute)
		reportedAt = c.clock.Now().UnixMilli()
		// Again: the note is replaced, no second report.
		if err := report(carol, m.GetId(), "spam!!"); err != nil {
			t.Fatal(err)
		}
	}, bs, ds, ms)
	wantEvents(t, got, [][]string{nil, nil, {"report_filed:buy my stuff", "report_filed:buy my stuff"}}, "bob", "dave", "the moderator")
	// An edit after the report changes nothing of the copy.
	if _, err := bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "nothing to see"})); err != nil {
		t.Fatal(err)
	}

	reports := listReports(t, mod)
	if len(reports) != 1 {
		t.Fatalf("the moderator lists %d reports, want 1", len(reports))
	}
	r := reports[0]
	cp := r.GetMessage()
	if cp.GetId() != m.GetId() || cp.GetChannelId() != general.GetId() || cp.GetAuthorId() != bob.Member.GetId() ||
		cp.GetText() != "buy my stuff" || cp.GetCreatedAtMs() != m.GetCreatedAtMs() || cp.GetThreadRootId() != "" {
		t.Errorf("the report's copy = %v, want the message as reported", cp)
	}
	if r.GetDm() || r.GetNote() != "spam!!" || r.GetReportedAtMs() != reportedAt ||
		r.GetAuthor().GetId() != bob.Member.GetId() || r.GetReporter().GetId() != carol.Member.GetId() {
		t.Errorf("the report = %v, want bob's message reported by carol with the second note", r)
	}

	// The author and other members: no list, no resolve, and the refusals name nobody.
	for _, who := range []*webtest.Client{bob, dave} {
		_, err := who.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
		wantCode(t, "ListReports by a member", err, connect.CodePermissionDenied)
		_, err2 := who.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: r.GetId()}))
		wantCode(t, "ResolveReport by a member", err2, connect.CodePermissionDenied)
		for _, e := range []error{err, err2} {
			if e != nil && (strings.Contains(e.Error(), carol.Member.GetId()) || strings.Contains(e.Error(), "carol")) {
				t.Errorf("a refusal names the reporter: %v", e)
			}
		}
	}
	wantCode(t, "reporting one's own message", report(bob, m.GetId(), ""), connect.CodeInvalidArgument, "is your own")

	// A report about an admin: the moderator does not see it, nor does the admin; the owner does.
	a := c.send(admin, general.GetId(), "admin speaking")
	if err := report(dave, a.GetId(), "rude"); err != nil {
		t.Fatal(err)
	}
	if reportAbout(listReports(t, mod), a.GetId()) != nil || reportAbout(listReports(t, admin), a.GetId()) != nil {
		t.Fatal("a moderator or the admin themselves lists the report about the admin")
	}
	aboutAdmin := reportAbout(listReports(t, owner), a.GetId())
	if aboutAdmin == nil || aboutAdmin.GetReporter().GetId() != dave.Member.GetId() {
		t.Fatalf("the owner's view of the report about the admin = %v", aboutAdmin)
	}
	_, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: aboutAdmin.GetId()}))
	wantCode(t, "a moderator resolving a report about an admin", err, connect.CodeNotFound, "report "+aboutAdmin.GetId()+" does not exist")

	// A report about the owner: the owner lists it, without the reporter.
	o := c.send(owner, general.GetId(), "owner speaking")
	if err := report(carol, o.GetId(), "hm"); err != nil {
		t.Fatal(err)
	}
	aboutOwner := reportAbout(listReports(t, owner), o.GetId())
	if aboutOwner == nil || aboutOwner.GetReporter() != nil || aboutOwner.GetAuthor().GetId() != owner.Member.GetId() {
		t.Fatalf("the owner's view of a report about the owner = %v, want it without the reporter", aboutOwner)
	}

	// A DM message goes alone, marked dm; the moderators still cannot open the DM.
	dm := openDM(t, c.s, carol, bob)
	secret := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "secret"})
	if err := report(carol, secret.GetId(), "creepy"); err != nil {
		t.Fatal(err)
	}
	dmReport := reportAbout(listReports(t, mod), secret.GetId())
	if dmReport == nil || !dmReport.GetDm() || dmReport.GetMessage().GetText() != "secret" || dmReport.GetMessage().GetChannelId() != dm.GetId() {
		t.Fatalf("the DM report = %v", dmReport)
	}
	_, err = mod.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: dm.GetId()}))
	wantCode(t, "a moderator reading the reported DM", err, connect.CodePermissionDenied)

	// Resolving one report of a message resolves every report of it.
	if err := report(dave, m.GetId(), "me too"); err != nil {
		t.Fatal(err)
	}
	seq = c.s.Engine.Seq()
	got = between(t, owner, func() {
		if _, err := mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: r.GetId()})); err != nil {
			t.Fatal(err)
		}
	}, bob.Subscribe(t, seq), dave.Subscribe(t, seq), mod.Subscribe(t, seq))
	wantEvents(t, got, [][]string{nil, nil, nil}, "bob", "dave", "the moderator")
	if left := reportAbout(listReports(t, owner), m.GetId()); left != nil {
		t.Fatalf("after ResolveReport a report of the message is still open: %v", left)
	}
	_, err = mod.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: r.GetId()}))
	wantCode(t, "resolving again", err, connect.CodeNotFound, "does not exist")
	// Newest first.
	all := listReports(t, owner)
	for i := 1; i < len(all); i++ {
		if all[i-1].GetReportedAtMs() < all[i].GetReportedAtMs() {
			t.Fatalf("ListReports is not newest first: %v", all)
		}
	}
}

// TestReportLimits: the note's length, what may be reported, and the rate (5, then 1 every 10
// minutes, resource_exhausted saying when to retry).
func TestReportLimits(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob, eve := c.join("bob"), c.join("eve")
	general := c.channel("general")
	hidden := mustChannel(t, c.owner, "staff", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	secret := c.send(c.owner, hidden.GetId(), "staff only")
	gone := c.send(bob, general.GetId(), "oops")
	if _, err := bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: gone.GetId()})); err != nil {
		t.Fatal(err)
	}
	m := c.send(bob, general.GetId(), "hello")
	for _, tc := range []struct {
		what      string
		id, note  string
		code      connect.Code
		wantWords string
	}{
		{"a note of 1,001 characters", m.GetId(), strings.Repeat("é", 1001), connect.CodeInvalidArgument, "note is 1,001 characters; the limit is 1,000"},
		{"no message_id", "", "", connect.CodeInvalidArgument, "message_id is required"},
		{"an unknown message", "nope", "", connect.CodeNotFound, "message nope does not exist"},
		{"a message eve cannot see", secret.GetId(), "", connect.CodePermissionDenied, "you cannot see this message"},
		{"a deleted message", gone.GetId(), "", connect.CodeFailedPrecondition, "was deleted"},
	} {
		wantCode(t, tc.what, report(eve, tc.id, tc.note), tc.code, tc.wantWords)
	}
	// The five refused calls counted: the burst is spent, and a good report waits its turn.
	wantCode(t, "a 6th call after 5 refused", report(eve, m.GetId(), ""), connect.CodeResourceExhausted, "retry in 10m0s")
	c.clock.Advance(10 * time.Minute)
	wantCode(t, "a note of 1,000 characters", report(eve, m.GetId(), strings.Repeat("é", 1000)), 0)

	// An hour fills the bucket again, up to 5.
	var msgs []*svcv1.Message
	for range 6 {
		msgs = append(msgs, c.send(bob, general.GetId(), "msg"))
	}
	c.clock.Advance(time.Hour)
	for i, msg := range msgs[:5] {
		if err := report(eve, msg.GetId(), ""); err != nil {
			t.Fatalf("report %d: %v", i+1, err)
		}
	}
	next := msgs[5]
	err := report(eve, next.GetId(), "")
	wantCode(t, "the 6th report", err, connect.CodeResourceExhausted, "reporting messages: rate limit reached; retry in 10m0s")
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Meta().Get("Retry-After") != "600" {
		t.Fatalf("Retry-After of the 6th report = %q, want 600", ce.Meta().Get("Retry-After"))
	}
	c.clock.Advance(10 * time.Minute)
	if err := report(eve, next.GetId(), ""); err != nil {
		t.Fatalf("a report 10 minutes later: %v", err)
	}
}
