package web_test

import (
	"fmt"
	"slices"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestOpenDM: the same set of members always gets the same DM; only its members hear of it.
func TestOpenDM(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	l := labels{}
	alice, bob, carol, dave := s.Join("alice"), s.Join("bob"), s.Join("carol"), s.Join("dave")
	seq := s.Engine.Seq()
	streams := []*webtest.Stream{alice.Subscribe(t, seq), bob.Subscribe(t, seq), carol.Subscribe(t, seq), dave.Subscribe(t, seq)}
	names := []string{"alice", "bob", "carol", "dave"}

	res, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(bob)}))
	if err != nil {
		t.Fatal(err)
	}
	dm := res.Msg.GetChannel()
	l[dm.GetId()] = "dm(alice,bob)"
	wantMembers := memberIDs(alice, bob)
	slices.Sort(wantMembers)
	if dm.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_DM || dm.GetName() != "" || !slices.Equal(dm.GetMemberIds(), wantMembers) || dm.GetCreatedAtMs() == 0 {
		t.Fatalf("new DM = %v", dm)
	}
	l.expect(t, alice, streams, names, []string{"channel_created:dm(alice,bob)"}, []string{"channel_created:dm(alice,bob)"}, nil, nil)

	// The caller's own id and repeats are ignored; either side gets the same DM; no event.
	for _, tc := range []struct {
		by     *webtest.Client
		others []string
	}{
		{alice, memberIDs(bob, alice, bob)},
		{bob, memberIDs(alice)},
	} {
		res, err := tc.by.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: tc.others}))
		if err != nil || res.Msg.GetChannel().GetId() != dm.GetId() {
			t.Fatalf("OpenDM(%v) by %s = %v, %v; want the same DM", tc.others, tc.by.Member.GetUsername(), res, err)
		}
	}
	group := dmOf(t, l, alice, "dm(alice,bob,carol)", carol, bob)
	if group.GetId() == dm.GetId() || len(group.GetMemberIds()) != 3 {
		t.Fatalf("group DM = %v", group)
	}
	l.expect(t, alice, streams, names,
		[]string{"channel_created:dm(alice,bob,carol)"}, []string{"channel_created:dm(alice,bob,carol)"}, []string{"channel_created:dm(alice,bob,carol)"}, nil)

	// Hiding: RemoveChannelMember (or LeaveChannel) with one's own id; only the caller hears.
	_, err = bob.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: dm.GetId(), MemberId: bob.Member.GetId()}))
	wantOK(t, "bob hides the DM", err)
	_, err = bob.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: dm.GetId(), MemberId: bob.Member.GetId()}))
	wantOK(t, "bob hides the DM twice", err)
	_, err = bob.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: dm.GetId(), MemberId: alice.Member.GetId()}))
	wantCode(t, "bob removes alice from their DM", err, connect.CodeInvalidArgument, "member_id must be your own id")
	l.expect(t, alice, streams, names, nil, []string{"channel_deleted:dm(alice,bob)"}, nil, nil)
	if got := sidebarOf(t, l, bob); slices.Contains(got, "dm(alice,bob)") {
		t.Fatalf("bob's sidebar after hiding the DM: %v", got)
	}
	// Hidden is not gone: bob is still a member, so he may still read it.
	if _, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: dm.GetId()})); err != nil {
		t.Fatalf("bob reading the DM he hid: %v", err)
	}

	// A message puts him back: channel_updated to him first, then the message to both.
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "still there?"})
	l.expect(t, alice, streams, names,
		[]string{"message_created:still there?"},
		[]string{"channel_updated:dm(alice,bob)", "message_created:still there?"}, nil, nil)
	if got := sidebarOf(t, l, bob); !slices.Contains(got, "dm(alice,bob)") {
		t.Fatalf("bob's sidebar after a message in the DM he hid: %v", got)
	}

	// Opening it again puts only the caller back.
	_, err = bob.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: dm.GetId()}))
	wantOK(t, "bob leaves the DM", err)
	_, err = alice.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: dm.GetId()}))
	wantOK(t, "alice leaves the DM", err)
	l.expect(t, alice, streams, names, []string{"channel_deleted:dm(alice,bob)"}, []string{"channel_deleted:dm(alice,bob)"}, nil, nil)
	again := dmOf(t, l, bob, "dm(alice,bob)", alice)
	if again.GetId() != dm.GetId() || again.GetLastMessageSeq() == 0 {
		t.Fatalf("reopened DM = %v", again)
	}
	l.expect(t, alice, streams, names, nil, []string{"channel_updated:dm(alice,bob)"}, nil, nil)
	if got := sidebarOf(t, l, alice); slices.Contains(got, "dm(alice,bob)") {
		t.Fatalf("alice's sidebar: %v; bob reopening the DM put her back too", got)
	}
}

func TestOpenDMBadInput(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	var others []*webtest.Client
	for i := range 9 {
		others = append(others, s.Join(fmt.Sprint("m", i)))
	}
	res, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(others[:8]...)}))
	if err != nil || len(res.Msg.GetChannel().GetMemberIds()) != 9 {
		t.Fatalf("a DM with 8 others: %v %v", res, err)
	}
	seq := s.Engine.Seq()
	for _, tc := range []struct {
		ids  []string
		code connect.Code
		want string
	}{
		{nil, connect.CodeInvalidArgument, "member_ids must name 1 to 8 other members; got none"},
		{memberIDs(alice), connect.CodeInvalidArgument, "member_ids must name 1 to 8 other members; got none"},
		{memberIDs(others...), connect.CodeInvalidArgument, "member_ids names more than 8 other members"},
		{[]string{others[0].Member.GetId(), ""}, connect.CodeInvalidArgument, "member_ids[1] is empty"},
		{[]string{"no-such-member"}, connect.CodeNotFound, "member_ids: member no-such-member is not in this community"},
	} {
		_, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: tc.ids}))
		wantCode(t, fmt.Sprintf("OpenDM(%d ids)", len(tc.ids)), err, tc.code, tc.want)
	}
	if s.Engine.Seq() != seq {
		t.Fatal("a refused OpenDM wrote an event")
	}
}

// TestOpenDMRefusedByBlocks: a DM cannot be opened, nor sent to, when one of its members blocked
// another; the refusal says who blocked only to that member (the one blocked is told they
// cannot write there, not why), and to others nothing of who.
func TestOpenDMRefusedByBlocks(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice, bob, carol := s.Join("alice"), s.Join("bob"), s.Join("carol")
	before, err := bob.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(carol)}))
	if err != nil {
		t.Fatal(err)
	}
	s.SeedBlock(bob, carol)
	seq := s.Engine.Seq()
	for _, tc := range []struct {
		what   string
		by     *webtest.Client
		others []*webtest.Client
		want   string
	}{
		{"the blocker", bob, []*webtest.Client{carol}, blockerWords},
		{"the blocked", carol, []*webtest.Client{bob}, blockedWords},
		{"a third member, with both", alice, []*webtest.Client{bob, carol}, "this DM cannot be opened: some of its members cannot send messages to each other"},
	} {
		_, err := tc.by.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(tc.others...)}))
		wantCode(t, "OpenDM by "+tc.what, err, connect.CodePermissionDenied, tc.want)
		wantNoBlockTold(t, "OpenDM by "+tc.what, err, tc.want)
	}
	_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: before.Msg.GetChannel().GetId(), Text: "hi"}))
	wantCode(t, "carol writing in the DM she shares with bob", err, connect.CodePermissionDenied, blockedWords)
	wantNoBlockTold(t, "carol writing in the DM she shares with bob", err, blockedWords)
	// Both ways blocked: each is told of their own block, nothing of the other's.
	s.SeedBlock(carol, bob)
	_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: before.Msg.GetChannel().GetId(), Text: "hi"}))
	wantCode(t, "carol writing once she blocked bob too", err, connect.CodePermissionDenied, blockerWords)
	if s.Engine.Seq() != seq {
		t.Fatal("a refused call wrote an event")
	}
	// Neither blocked alice: her DMs with each of them open.
	for _, other := range []*webtest.Client{bob, carol} {
		_, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(other)}))
		wantOK(t, "alice opens a DM with "+other.Member.GetUsername(), err)
	}
}

func dmOf(t *testing.T, l labels, by *webtest.Client, label string, others ...*webtest.Client) *svcv1.Channel {
	t.Helper()
	res, err := by.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(others...)}))
	if err != nil {
		t.Fatal(err)
	}
	l[res.Msg.GetChannel().GetId()] = label
	return res.Msg.GetChannel()
}

// sidebarOf is the labels of the channels in a member's GetState.
func sidebarOf(t *testing.T, l labels, who *webtest.Client) []string {
	t.Helper()
	res, err := who.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, ch := range res.Msg.GetChannels() {
		out = append(out, l.of(ch.GetId()))
	}
	slices.Sort(out)
	return out
}
