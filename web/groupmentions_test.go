package web_test

import (
	"maps"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestGroupMentions: <!everyone> mentions every member in the channel but the sender,
// <!here> those ONLINE when it is sent; both only from the group_mention_rank up (in a DM
// from anyone), mute and block as for <@id>; mentions_here and mentions_everyone say what
// counted; the counts survive a restart.
func TestGroupMentions(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	online, offline, member := c.join("online"), c.join("offline"), c.join("member")
	general := c.channel("general")
	other := c.channel("other")
	st := online.Subscribe(t, c.s.Engine.Seq())
	waitOnline(t, c, online)
	counts := func(when string, want map[*webtest.Client]int32) {
		t.Helper()
		for who, n := range want {
			if got := mentionsOf(t, who, general.GetId()); got != n {
				t.Errorf("%s: %s has %d mentions, want %d", when, who.Member.GetUsername(), got, n)
			}
		}
	}
	markRead := func(who ...*webtest.Client) {
		t.Helper()
		for _, w := range who {
			// Clamped to the channel's last message.
			if _, err := w.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: general.GetId(), Seq: 1 << 62})); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Below the rank (MODERATOR by default): the text stays, nobody is mentioned.
	low := c.send(member, general.GetId(), "hello <!everyone> and <!here>")
	if low.GetMentionsEveryone() || low.GetMentionsHere() || low.GetText() != "hello <!everyone> and <!here>" {
		t.Fatalf("a member's group mentions: %v", low)
	}
	counts("a member's <!everyone>", map[*webtest.Client]int32{online: 0, offline: 0, mod: 0})
	st.Next()

	// <!everyone> from a moderator: everyone but the sender.
	every := c.send(mod, general.GetId(), "listen <!everyone>")
	if !every.GetMentionsEveryone() || every.GetMentionsHere() {
		t.Fatalf("a moderator's <!everyone>: everyone %v here %v", every.GetMentionsEveryone(), every.GetMentionsHere())
	}
	if ev := st.Next(); !ev.GetMessageCreated().GetMentionsEveryone() {
		t.Fatalf("the event: %v", kind(ev))
	}
	counts("<!everyone>", map[*webtest.Client]int32{online: 1, offline: 1, member: 1, c.owner: 1, mod: 0})

	// <!here>: those online when it is sent.
	markRead(online, offline, member, c.owner)
	here := c.send(mod, general.GetId(), "anyone around? <!here>")
	if !here.GetMentionsHere() || here.GetMentionsEveryone() {
		t.Fatalf("a moderator's <!here>: here %v everyone %v", here.GetMentionsHere(), here.GetMentionsEveryone())
	}
	counts("<!here>", map[*webtest.Client]int32{online: 1, offline: 0, member: 0, c.owner: 0, mod: 0})
	// Coming online afterwards changes nothing.
	offline.Subscribe(t, c.s.Engine.Seq())
	waitOnline(t, c, offline)
	counts("<!here>, once offline is online", map[*webtest.Client]int32{online: 1, offline: 0})

	// Mute and block as for <@id>.
	markRead(online, offline, member, c.owner)
	if err := muteErr(online, mod.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := blockErr(offline, mod.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	c.send(mod, general.GetId(), "<!everyone> again")
	counts("<!everyone> from a muted and a blocked sender", map[*webtest.Client]int32{online: 0, offline: 0, member: 1, c.owner: 1})

	// Edits follow the text: out goes the mention, in comes one (<!here>: who is online at the
	// edit: online and offline now, not member nor the owner).
	markRead(online, offline, member, c.owner)
	edited := c.send(c.owner, general.GetId(), "<!everyone> soon edited")
	counts("before the edit", map[*webtest.Client]int32{online: 1, offline: 1, member: 1})
	if _, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: edited.GetId(), Text: "no mention"})); err != nil {
		t.Fatal(err)
	}
	counts("an edit took <!everyone> out", map[*webtest.Client]int32{online: 0, offline: 0, member: 0})
	res, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: edited.GetId(), Text: "now <!here>"}))
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Msg.GetMessage(); !m.GetMentionsHere() || m.GetMentionsEveryone() {
		t.Fatalf("an edit put <!here> in: here %v everyone %v", m.GetMentionsHere(), m.GetMentionsEveryone())
	}
	counts("an edit put <!here> in", map[*webtest.Client]int32{online: 1, offline: 1, member: 0, c.owner: 0})

	// The counts survive a restart (who an <!here> reached is stored).
	c.s.Restart()
	after := map[string]int32{}
	for _, who := range []*webtest.Client{online, offline, member, c.owner} {
		after[who.Member.GetUsername()] = mentionsOf(t, c.s.Client(who.Token), general.GetId())
	}
	if want := map[string]int32{"online": 1, "offline": 1, "member": 0, "owner": 0}; !maps.Equal(after, want) {
		t.Errorf("after a restart: %v, want %v", after, want)
	}

	// Another channel's group mentions count there only.
	if got := mentionsOf(t, c.s.Client(member.Token), other.GetId()); got != 0 {
		t.Errorf("another channel: %d mentions", got)
	}
}

// waitOnline waits until a member shows ONLINE (its stream is open).
func waitOnline(t *testing.T, c *community, who *webtest.Client) {
	t.Helper()
	for deadline := time.Now().Add(webtest.Wait); ; time.Sleep(5 * time.Millisecond) {
		res, err := c.owner.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Msg.GetMembers() {
			if m.GetId() == who.Member.GetId() && m.GetPresence() == svcv1.Presence_PRESENCE_ONLINE {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not online", who.Member.GetUsername())
		}
	}
}

// TestGroupMentionRank: group_mention_rank is MODERATOR until an admin changes it, GetServerInfo
// says which, only admins change it, and in a DM anyone's group mentions count.
func TestGroupMentionRank(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	admin := c.member(svcv1.MemberRole_MEMBER_ROLE_ADMIN)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	member := c.join("member")
	general := c.channel("general")
	rank := func() svcv1.MemberRole {
		t.Helper()
		res, err := member.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetGroupMentionRank()
	}
	if got := rank(); got != svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		t.Fatalf("the default rank: %v", got)
	}
	set := func(by *webtest.Client, r svcv1.MemberRole) error {
		_, err := by.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{GroupMentionRank: &r}))
		return err
	}
	wantCode(t, "a moderator sets it", set(mod, svcv1.MemberRole_MEMBER_ROLE_MEMBER), connect.CodePermissionDenied, "admin")
	wantCode(t, "UNSPECIFIED", set(admin, svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED), connect.CodeInvalidArgument, "group_mention_rank")
	wantCode(t, "an unknown rank", set(admin, svcv1.MemberRole(9)), connect.CodeInvalidArgument, "group_mention_rank")

	if got := c.send(member, general.GetId(), "<!everyone>"); got.GetMentionsEveryone() {
		t.Fatalf("a member's <!everyone> counted at the default rank")
	}
	wantCode(t, "an admin sets MEMBER", set(admin, svcv1.MemberRole_MEMBER_ROLE_MEMBER), 0)
	if got := rank(); got != svcv1.MemberRole_MEMBER_ROLE_MEMBER {
		t.Fatalf("GetServerInfo after the change: %v", got)
	}
	if got := c.send(member, general.GetId(), "<!everyone>"); !got.GetMentionsEveryone() {
		t.Fatalf("a member's <!everyone> at rank MEMBER did not count")
	}
	wantCode(t, "an admin sets OWNER", set(admin, svcv1.MemberRole_MEMBER_ROLE_OWNER), 0)
	if got := c.send(admin, general.GetId(), "<!here>"); got.GetMentionsHere() {
		t.Fatalf("an admin's <!here> counted at rank OWNER")
	}
	if got := c.send(c.owner, general.GetId(), "<!here>"); !got.GetMentionsHere() {
		t.Fatalf("the owner's <!here> did not count at rank OWNER")
	}

	// In a DM anyone may.
	dm := openDM(t, c.s, member, mod)
	if got := c.send(member, dm.GetId(), "<!everyone> <!here>"); !got.GetMentionsEveryone() || !got.GetMentionsHere() {
		t.Fatalf("a member's group mentions in a DM: everyone %v here %v", got.GetMentionsEveryone(), got.GetMentionsHere())
	}
}
