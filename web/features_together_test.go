package web_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Where the features of EXTENSIONS.md meet: pins and polls under the moderation tools (timeouts,
// the audit log), and password reset links in the audit log.

// TestPinsAndVotesUnderTimeoutsAndTheAuditLog: a timed-out member may neither pin nor vote, each
// refusal saying until when; pinning and unpinning are in the audit log, with who and what.
func TestPinsAndVotesUnderTimeoutsAndTheAuditLog(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	other := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob := c.join("bob")
	general := c.channel("general")
	rules := c.send(bob, general.GetId(), "the rules")
	res, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "where?",
		Poll: &svcv1.PollInput{Question: "Where do we meet?", Options: []string{"beach", "park"}}}))
	if err != nil {
		t.Fatal(err)
	}
	poll := res.Msg.GetMessage()

	if err := pinErr(mod, rules.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := unpinErr(mod, rules.GetId()); err != nil {
		t.Fatal(err)
	}
	names := namesOf(c.owner, mod, other, bob)
	var pins []string
	for _, e := range auditLog(t, mod, nil) {
		if e.GetAction() == svcv1.AuditAction_AUDIT_ACTION_MESSAGE_PINNED || e.GetAction() == svcv1.AuditAction_AUDIT_ACTION_MESSAGE_UNPINNED {
			if e.GetChannelId() != general.GetId() || e.GetMessageId() != rules.GetId() {
				t.Fatalf("pin entry %v: want channel %s and message %s", e, general.GetId(), rules.GetId())
			}
			pins = append(pins, auditNames([]*svcv1.AuditEntry{e}, names)[0])
		}
	}
	slices.Reverse(pins)
	if want := []string{"moderator-1 MESSAGE_PINNED bob", "moderator-1 MESSAGE_UNPINNED bob"}; !slices.Equal(pins, want) {
		t.Fatalf("pin entries %v, want %v", pins, want)
	}

	// The moderator is timed out by the owner; bob by the other moderator.
	for _, who := range []string{mod.Member.GetId(), bob.Member.GetId()} {
		by := c.owner
		if who == bob.Member.GetId() {
			by = other
		}
		if _, err := by.Server.TimeoutMember(ctx, req(&svcv1.TimeoutMemberRequest{MemberId: who, DurationS: 600})); err != nil {
			t.Fatal(err)
		}
	}
	ends := "you are timed out until " + c.clock.Now().Add(10*time.Minute).UTC().Format("2006-01-02 15:04:05 UTC")
	wantCode(t, "a timed-out moderator pins", pinErr(mod, rules.GetId()), connect.CodePermissionDenied, ends)
	_, err = votePoll(bob, poll.GetId(), "0")
	wantCode(t, "a timed-out member votes", err, connect.CodePermissionDenied, ends)
	// Others go on.
	if _, err := votePoll(other, poll.GetId(), "1"); err != nil {
		t.Fatal(err)
	}
	// Once the timeout ends, both may again.
	c.clock.Advance(601 * time.Second)
	if err := pinErr(mod, rules.GetId()); err != nil {
		t.Fatal(err)
	}
	if _, err := votePoll(bob, poll.GetId(), "0"); err != nil {
		t.Fatal(err)
	}
}

// TestPasswordResetLinksAreInTheAuditLog: a reset link made by an admin is an entry with the
// admin as actor and the member as target; the link itself is never in it.
func TestPasswordResetLinksAreInTheAuditLog(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner, _ := accountMember(t, s, "olive")
	done := true
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	mia, _ := accountMember(t, s, "mia")
	link, err := resetLink(t, owner, mia.Member.GetId())
	if err != nil {
		t.Fatal(err)
	}
	entries := auditLog(t, owner, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_PASSWORD_RESET_LINK_CREATED})
	got := auditNames(entries, namesOf(owner, mia))
	if want := []string{"olive PASSWORD_RESET_LINK_CREATED mia"}; !slices.Equal(got, want) {
		t.Fatalf("reset link entries %v, want %v", got, want)
	}
	token := link.GetUrl()[strings.Index(link.GetUrl(), "token=")+len("token="):]
	if strings.Contains(entries[0].String(), token) {
		t.Fatalf("the audit entry %v holds the link's token", entries[0])
	}
}

// TestPushFollowsRepliesAndGroupMentions: a reply to a member's message and a group mention by
// someone who may use one push to the member with no tab open (as urgent as a mention); a group
// mention by someone below group_mention_rank mentions nobody and pushes nothing.
func TestPushFollowsRepliesAndGroupMentions(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol := s.Join("bob"), s.Join("carol")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	subscribe(t, notifyClient(s, bob), ps.device("bob"))
	asked := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "who is in?"})

	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<!everyone> not from a plain member"})
	answer := mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "me!", ReplyToId: asked.GetId()})
	p := ps.next(t)
	if p.payload["message_id"] != answer.GetId() || p.payload["body"] != "carol: me!" || p.header.Get("Urgency") != "high" {
		t.Fatalf("the reply to bob: %v (Urgency %q)", p.payload, p.header.Get("Urgency"))
	}
	// alice owns the community: her group mentions count.
	everyone := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<!everyone> dinner at 8"})
	p = ps.next(t)
	if p.payload["message_id"] != everyone.GetId() || p.payload["body"] != "alice: @everyone dinner at 8" || p.header.Get("Urgency") != "high" {
		t.Fatalf("the group mention: %v (Urgency %q)", p.payload, p.header.Get("Urgency"))
	}
	ps.none(t, "after the group mention")
}
