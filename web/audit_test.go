package web_test

import (
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	svcv1 "hearth/proto/svc/v1"
)

// Regression tests from the authorization audit (docs/decisions.md, "Authorization audit").

// TestReplayDoesNotRevealDeletedOrEditedText: a message deleted (by a moderator, or its author)
// or edited keeps its old text out of every later answer, and so out of a replay too: a member
// who comes into the channel afterwards and subscribes from an old seq gets the message events
// with the text the message has now, and a deleted message's events empty (deleted, no text,
// no files, no reactions).
func TestReplayDoesNotRevealDeletedOrEditedText(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	secret := mustChannel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustAdd(t, c.owner, secret, alice)
	seq0 := c.s.Engine.Seq()

	doxx := c.send(alice, secret.GetId(), "doxx-1234 lives at 1 Elm Street")
	_, err := alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: doxx.GetId(), Emoji: "👍"}))
	wantOK(t, "reacting", err)
	reply := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "reply", ThreadRootId: doxx.GetId()})
	_, err = c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: doxx.GetId()}))
	wantOK(t, "the owner deleting the message", err)
	typo := c.send(alice, secret.GetId(), "the password is hunter2-5678")
	_, err = alice.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: typo.GetId(), Text: "never mind"}))
	wantOK(t, "editing", err)
	mustAdd(t, c.owner, secret, bob)

	st := bob.Subscribe(t, seq0)
	bio := "marker replay"
	if _, err := c.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	evs := st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio })
	seen := map[string]int{}
	for _, ev := range evs {
		b, err := protojson.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"doxx-1234", "Elm Street", "hunter2", "5678", "👍"} {
			if strings.Contains(string(b), s) {
				t.Errorf("the replay reveals %q: %s", s, b)
			}
		}
		m := ev.GetMessageCreated()
		if m == nil {
			m = ev.GetMessageUpdated()
		}
		if m == nil {
			m = ev.GetMessageDeleted()
		}
		k, _, _ := strings.Cut(kind(ev), ":")
		switch m.GetId() {
		case doxx.GetId():
			seen[k+" doxx"]++
			if !m.GetDeleted() || m.GetText() != "" || len(m.GetReactions()) > 0 {
				t.Errorf("replayed %s of the deleted message: %v, want it deleted, without text or reactions", k, m)
			}
		case typo.GetId():
			seen[k+" typo"]++
			if m.GetText() != "never mind" || m.GetEditedAtMs() == 0 {
				t.Errorf("replayed %s of the edited message: %v, want its text as edited", k, m)
			}
		case reply.GetId():
			seen[k+" reply"]++
		}
	}
	// Every event is still replayed (the client keeps its counts and threads), only emptied.
	want := map[string]int{
		"message_created doxx": 1, "message_updated doxx": 2, "message_deleted doxx": 1,
		"message_created reply": 1, "message_created typo": 1, "message_updated typo": 1,
	}
	for k, n := range want {
		if seen[k] != n {
			t.Errorf("replay: %d x %s, want %d (all: %v)", seen[k], k, n, seen)
		}
	}
}

// TestBlockStopsEditsAndReactionsInADM: a block between two members of a DM stops them from
// writing there (API.md), and an edit writes new text and a reaction new content as surely as
// a message does: both are refused either way, as typing is, until the block is lifted. Deleting
// one's own message stays possible.
func TestBlockStopsEditsAndReactionsInADM(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	dm := openDM(t, c.s, alice, bob)
	fromBob := c.send(bob, dm.GetId(), "hello")
	fromAlice := c.send(alice, dm.GetId(), "hi")
	bobsOther := c.send(bob, dm.GetId(), "bye")
	_, err := alice.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: bob.Member.GetId()}))
	wantOK(t, "alice blocking bob", err)
	st := alice.Subscribe(t, c.s.Engine.Seq())

	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: fromBob.GetId(), Text: "you will regret this"}))
	wantCode(t, "the blocked member editing their DM message", err, connect.CodePermissionDenied, blockedWords)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromAlice.GetId(), Emoji: "🖕"}))
	wantCode(t, "the blocked member reacting in the DM", err, connect.CodePermissionDenied, blockedWords)
	_, err = alice.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: fromAlice.GetId(), Text: "hi!"}))
	wantCode(t, "the blocker editing in the DM", err, connect.CodePermissionDenied, blockerWords)
	_, err = alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromBob.GetId(), Emoji: "👍"}))
	wantCode(t, "the blocker reacting in the DM", err, connect.CodePermissionDenied, blockerWords)
	_, err = bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: bobsOther.GetId()}))
	wantOK(t, "the blocked member deleting their own DM message", err)
	got := between(t, alice, func() {}, st)
	wantEvents(t, got, [][]string{{"message_deleted"}}, "alice's stream")

	_, err = alice.Server.UnblockMember(ctx, req(&svcv1.UnblockMemberRequest{MemberId: bob.Member.GetId()}))
	wantOK(t, "alice unblocking bob", err)
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: fromBob.GetId(), Text: "hello again"}))
	wantOK(t, "editing once unblocked", err)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromAlice.GetId(), Emoji: "👍"}))
	wantOK(t, "reacting once unblocked", err)
}

// TestBlockLetsAReactionBeTakenBack: a block stops new reactions in a DM, but a member may
// still take back a reaction of their own made before it, as they may delete their message.
func TestBlockLetsAReactionBeTakenBack(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	alice := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	bob := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	dm := openDM(t, c.s, alice, bob)
	fromAlice := c.send(alice, dm.GetId(), "hi")
	_, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromAlice.GetId(), Emoji: "👍"}))
	wantOK(t, "bob reacting before the block", err)
	_, err = alice.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: bob.Member.GetId()}))
	wantOK(t, "alice blocking bob", err)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromAlice.GetId(), Emoji: "👍", Remove: true}))
	wantOK(t, "bob taking his reaction back after the block", err)
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: fromAlice.GetId(), Emoji: "👍"}))
	wantCode(t, "bob reacting again after the block", err, connect.CodePermissionDenied, blockedWords)
}

// TestPluginOfAHigherBotIsNotAnAdminsToManage: a plugin acts as its bot, so replacing its
// source, disabling or deleting it acts on that bot. A plugin whose bot the owner made an admin
// is, like any such bot (DeleteBot, RotateBotToken), the owner's to manage: another admin who
// could put in their own source would run code as a member of their own rank, in the private
// channels the bot is in.
func TestPluginOfAHigherBotIsNotAnAdminsToManage(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	p := mustInstall(t, c.owner, "steward", "chat.on('message', function (m) {});")
	_, err := c.owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: p.GetBotId(), Role: svcv1.MemberRole_MEMBER_ROLE_ADMIN}))
	wantOK(t, "the owner making the plugin's bot an admin", err)

	_, err = admin.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "steward", Source: "chat.on('message', function (m) { chat.sendMessage({channelId: m.channelId, text: 'mine'}); });"}))
	wantCode(t, "an admin replacing the source", err, connect.CodePermissionDenied, "higher rank", "admin")
	_, err = admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "steward", Enabled: false}))
	wantCode(t, "an admin disabling it", err, connect.CodePermissionDenied, "higher rank")
	_, err = admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "steward"}))
	wantCode(t, "an admin deleting it", err, connect.CodePermissionDenied, "higher rank")
	if got := listed(t, c.owner, "steward"); !got.GetEnabled() || !got.GetRunning() || got.GetBotId() != p.GetBotId() {
		t.Fatalf("after the refusals the plugin is %v, want it untouched", got)
	}
	if src := fileText(t, pluginPath(c.s, "steward.js")); strings.Contains(src, "mine") {
		t.Errorf("the refused source was written: %q", src)
	}

	// The owner manages it, and an admin still manages plugins whose bot ranks lower.
	_, err = c.owner.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "steward", Enabled: false}))
	wantOK(t, "the owner disabling it", err)
	_, err = c.owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "steward"}))
	wantOK(t, "the owner deleting it", err)
	mustInstall(t, admin, "helper", "1")
	_, err = admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "helper"}))
	wantOK(t, "an admin deleting a plugin of a member-rank bot", err)
}
