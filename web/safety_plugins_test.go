package web_test

import (
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// TestDocExampleNewcomerLinks: the beforeMessage example of docs/plugins.md refuses links from
// a member who joined less than an hour ago, sends and edits alike, with its reason; nothing of
// the refused message is stored, the moderators find the refusal in the audit log, and an hour
// later the link goes through.
func TestDocExampleNewcomerLinks(t *testing.T) {
	// Not in parallel: the hook's time limit is real time, and beside other tests a hook that
	// answers at once could run past it (and be passed over).
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	general := c.channel("general")
	mustInstall(t, c.owner, "newcomer-links", docExample(t, "newcomer-links"))
	c.clock.Advance(2 * time.Hour)
	bob := c.join("bob")
	_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "look at https://example.test/deal"}))
	wantCode(t, "a newcomer's link", err, connect.CodeInvalidArgument, "the plugin newcomer-links refused this message: new members can post links after their first hour here")
	hello := c.send(bob, general.GetId(), "hello all")
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: hello.GetId(), Text: "hello www.example.test"}))
	wantCode(t, "an edit adding a link", err, connect.CodeInvalidArgument, "new members can post links after their first hour here")
	c.send(mod, general.GetId(), "rules: https://example.test/rules")
	msgs, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil || len(msgs.Msg.GetMessages()) != 2 || msgs.Msg.GetMessages()[0].GetText() != "hello all" {
		t.Fatalf("the channel holds %v, %v; want bob's hello, unedited, and the moderator's rules", msgs, err)
	}
	entries := auditLog(t, mod, &svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_MESSAGE_REFUSED})
	got := auditNames(entries, namesOf(bob))
	want := []string{
		"MESSAGE_REFUSED bob (new members can post links after their first hour here): plugin newcomer-links: message refused",
		"MESSAGE_REFUSED bob (new members can post links after their first hour here): plugin newcomer-links: edit refused",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("refusals in the audit log\n\t%q\nwant\n\t%q", got, want)
	}
	c.clock.Advance(time.Hour)
	c.send(bob, general.GetId(), "now: https://example.test/deal")
	if p := listed(t, c.owner, "newcomer-links"); !p.GetRunning() || p.GetError() != "" {
		t.Fatalf("the plugin is %v", p)
	}
}

// TestBeforeMessageBudget: a hook that does not answer within 50 ms, or throws, lets the
// message through and leaves its error in ListPlugins; a plugin is asked only about the
// channels its bot sees, and not about a plugin's own messages; a refusal without a reason
// gets one.
func TestBeforeMessageBudget(t *testing.T) {
	// Not in parallel with other tests: a hook's time limit is wall time, which their load
	// would use up.
	clock := webtest.NewClock()
	// Hooks get 10 s, so that the slow one is slow for its 50 ms, never for its hook limit.
	s := webtest.StartConfig(t, func(c *web.Config) { c.Plugins.HookLimit = 10 * time.Second }, webtest.WithClock(clock))
	owner := s.Join("owner")
	bob := s.Join("bob")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	send := func(by *webtest.Client, ch *svcv1.Channel, text string) error {
		clock.Advance(time.Second)
		_, err := by.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text}))
		return err
	}

	mustInstall(t, owner, "slow", `chat.on('beforeMessage', m => { if (m.text === 'slow') for (let i = 0; i < 3e7; i++) {} })`)
	if err := send(bob, general, "slow"); err != nil {
		t.Fatalf("a message a hook is slow about: %v", err)
	}
	erredWith(t, owner, "slow", "hook beforeMessage: did not answer within 50ms; the message was let through")
	wantOK(t, "DeletePlugin", func() error {
		_, err := owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "slow"}))
		return err
	}())

	mustInstall(t, owner, "thrower", `chat.on('beforeMessage', m => { throw new Error('boom') })`)
	if err := send(bob, general, "through"); err != nil {
		t.Fatalf("a message a hook throws on: %v", err)
	}
	erredWith(t, owner, "thrower", "hook beforeMessage: Error: boom")

	mustInstall(t, owner, "nope", `chat.on('beforeMessage', m => { if (m.text.includes('forbidden')) return {allow: false} })`)
	mustInstall(t, owner, "sayer", `chat.on('message', m => { if (m.text === '!say') chat.sendMessage({channelId: m.channelId, text: 'forbidden'}) })`)
	err := send(bob, general, "forbidden fruit")
	wantCode(t, "a refusal without a reason", err, connect.CodeInvalidArgument, "the plugin nope refused this message: a plugin of this community refused this message")
	// The sayer plugin's own message says it, and goes through: no plugin judges a plugin's.
	st := bob.Subscribe(t, s.Engine.Seq())
	if err := send(bob, general, "!say"); err != nil {
		t.Fatal(err)
	}
	for ev := st.Next(); ev.GetMessageCreated().GetText() != "forbidden"; ev = st.Next() {
	}
	// A private channel the plugins' bots are not in: they are not asked.
	private := privateWith(t, s, owner, "private", bob)
	if err := send(bob, private, "forbidden here too"); err != nil {
		t.Fatalf("a message in a channel no plugin sees: %v", err)
	}
}
