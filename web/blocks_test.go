package web_test

import (
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBlockAndMute: each goes to the caller's own devices only, once however often it is
// repeated; a block keeps the two out of DMs with each other both ways; both keep the member's
// messages out of the caller's unread and mention counts, old messages included, and only
// theirs.
func TestBlockAndMute(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	alice, bob, carol := c.owner, c.join("bob"), c.join("carol")
	b := bob.Member.GetId()
	general := c.channel("general")
	dmBob, dmCarol := openDM(t, c.s, alice, bob), openDM(t, c.s, alice, carol)
	mention := "hi <@" + alice.Member.GetId() + ">"
	c.send(bob, general.GetId(), "one")
	c.send(bob, general.GetId(), mention)
	c.send(carol, general.GetId(), "three")
	c.send(bob, dmBob.GetId(), "psst")
	seq := c.s.Engine.Seq()
	laptop, phone := alice.Subscribe(t, seq), c.s.Client(alice.Token).Subscribe(t, seq)
	bs, cs := bob.Subscribe(t, seq), carol.Subscribe(t, seq)

	counts := func(when string, unread, mentions, dmMentions int32) {
		t.Helper()
		rs := readStateOf(t, alice, general.GetId())
		dm := readStateOf(t, alice, dmBob.GetId())
		if rs.GetUnreadCount() != unread || rs.GetMentionCount() != mentions || dm.GetMentionCount() != dmMentions {
			t.Errorf("%s: general unread %d mentions %d, DM mentions %d; want %d %d %d", when, rs.GetUnreadCount(), rs.GetMentionCount(), dm.GetMentionCount(), unread, mentions, dmMentions)
		}
	}
	lists := func(when string, blocked, muted []string) {
		t.Helper()
		st, err := alice.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(st.Msg.GetBlockedMemberIds(), blocked) || !slices.Equal(st.Msg.GetMutedMemberIds(), muted) {
			t.Errorf("%s: GetState blocked %v muted %v, want %v %v", when, st.Msg.GetBlockedMemberIds(), st.Msg.GetMutedMemberIds(), blocked, muted)
		}
	}
	dmSend := func(by, other string) error {
		ch := dmBob.GetId()
		c := bob
		if by == "alice" {
			c = alice
		}
		_, err := c.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch, Text: "to " + other}))
		return err
	}
	counts("before", 3, 1, 1)

	for _, step := range []struct {
		name           string
		do             func() error
		event          string
		blocked, muted []string
		unread, ment   int32
		dmMentions     int32
		dmOpen         bool
	}{
		{"block", func() error {
			_, err := alice.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: b}))
			return err
		}, "member_blocked:" + b, []string{b}, nil, 1, 0, 0, false},
		{"unblock", func() error {
			_, err := alice.Server.UnblockMember(ctx, req(&svcv1.UnblockMemberRequest{MemberId: b}))
			return err
		}, "member_unblocked:" + b, nil, nil, 3, 1, 1, true},
		{"mute", func() error {
			_, err := alice.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: b}))
			return err
		}, "member_muted:" + b, nil, []string{b}, 1, 0, 0, true},
		{"unmute", func() error {
			_, err := alice.Server.UnmuteMember(ctx, req(&svcv1.UnmuteMemberRequest{MemberId: b}))
			return err
		}, "member_unmuted:" + b, nil, nil, 3, 1, 1, true},
	} {
		got := between(t, alice, func() {
			// Twice: the second changes nothing and sends nothing.
			for range 2 {
				if err := step.do(); err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
			}
		}, laptop, phone, bs, cs)
		wantEvents(t, got, [][]string{{step.event}, {step.event}, nil, nil}, "alice's laptop", "alice's phone", "bob", "carol")
		lists(step.name, step.blocked, step.muted)
		counts("after "+step.name, step.unread, step.ment, step.dmMentions)
		if step.dmOpen {
			continue
		}
		// Blocked: neither may open the DM or send in it, whoever blocked; others are not
		// touched. Alice is told she blocked; bob only that he cannot write there.
		for _, tc := range []struct {
			what string
			err  error
			want string
		}{
			{"alice sending to bob", dmSend("alice", "bob"), blockerWords},
			{"bob sending to alice", dmSend("bob", "alice"), blockedWords},
			{"alice opening the DM", openErr(c, alice, bob), blockerWords},
			{"bob opening the DM", openErr(c, bob, alice), blockedWords},
		} {
			wantCode(t, tc.what, tc.err, connect.CodePermissionDenied, tc.want)
			wantNoBlockTold(t, tc.what, tc.err, tc.want)
		}
		got = between(t, alice, func() {
			mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: dmCarol.GetId(), Text: "still fine"})
		}, laptop, phone, bs, cs)
		sent := "message_created:still fine"
		wantEvents(t, got, [][]string{{sent}, {sent}, nil, {sent}}, "alice's laptop", "alice's phone", "bob", "carol")
	}
	if err := dmSend("bob", "alice"); err != nil {
		t.Fatalf("a DM after the unblock: %v", err)
	}

	for _, tc := range []struct {
		what  string
		err   error
		code  connect.Code
		words []string
	}{
		{"blocking oneself", blockErr(alice, alice.Member.GetId()), connect.CodeInvalidArgument, []string{"member_id is your own id; you cannot block yourself"}},
		{"muting without an id", muteErr(alice, ""), connect.CodeInvalidArgument, []string{"member_id is required"}},
		{"blocking an unknown id", blockErr(alice, "nobody"), connect.CodeNotFound, []string{"member nobody does not exist"}},
	} {
		wantCode(t, tc.what, tc.err, tc.code, tc.words...)
	}
	// Someone who left can still be blocked: their DMs stay.
	if _, err := carol.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	if err := blockErr(alice, carol.Member.GetId()); err != nil {
		t.Fatalf("blocking a member who left: %v", err)
	}
}

func openErr(c *community, a, b *webtest.Client) error {
	_, err := a.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{b.Member.GetId()}}))
	return err
}

func blockErr(c *webtest.Client, id string) error {
	_, err := c.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: id}))
	return err
}

func muteErr(c *webtest.Client, id string) error {
	_, err := c.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: id}))
	return err
}

// What a DM's refusal says to the member who blocked another, and to the member blocked.
const (
	blockerWords = "you blocked a member of this DM: unblock them to write in it"
	blockedWords = "you cannot send messages in this DM"
)

// wantNoBlockTold fails when the refusal the member blocked gets says anything of a block.
func wantNoBlockTold(t *testing.T, what string, err error, want string) {
	t.Helper()
	if want == blockedWords && err != nil && strings.Contains(strings.ToLower(err.Error()), "block") {
		t.Errorf("%s: the refusal tells the member blocked of the block: %q", what, err.Error())
	}
}
