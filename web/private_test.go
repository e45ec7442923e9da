package web_test

import (
	"slices"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestPrivateChannelMembershipEvents walks the States rows of private channel membership and
// checks exactly who receives what: new members and existing ones get channel_updated on an add;
// a removed member gets channel_deleted and the rest channel_updated; outsiders (an admin
// among them) get nothing.
func TestPrivateChannelMembershipEvents(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	seq := c.s.Engine.Seq()
	who := []*webtest.Client{c.owner, c.admin, c.mod, c.member, c.member2}
	names := []string{"owner", "admin", "mod", "member", "member2"}
	var streams []*webtest.Stream
	for _, w := range who {
		streams = append(streams, w.Subscribe(t, seq))
	}
	expect := func(want ...[]string) {
		t.Helper()
		c.labels.expect(t, c.owner, streams, names, want...)
	}
	secret := c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if !slices.Equal(secret.GetMemberIds(), memberIDs(c.owner)) {
		t.Fatalf("a new private channel has members %v, want its creator", secret.GetMemberIds())
	}
	expect([]string{"channel_created:#secret"}, nil, nil, nil, nil)

	ch := mustAdd(t, c.owner, secret, c.member, c.mod)
	if !slices.Equal(ch.GetMemberIds(), memberIDs(c.owner, c.member, c.mod)) {
		t.Fatalf("members after the add: %v", ch.GetMemberIds())
	}
	up := []string{"channel_updated:#secret"}
	expect(up, nil, up, up, nil)

	// Adding members already in changes nothing and sends nothing.
	mustAdd(t, c.owner, secret, c.member, c.owner)
	expect(nil, nil, nil, nil, nil)

	// Any member of the channel may add, whatever their rank.
	mustAdd(t, c.member, secret, c.member2)
	expect(up, nil, up, up, up)

	// A moderator removes a member: channel_deleted to them, channel_updated to the rest.
	res, err := c.mod.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.member2.Member.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Msg.GetChannel().GetMemberIds(), c.member2.Member.GetId()) {
		t.Fatalf("member2 is still listed: %v", res.Msg.GetChannel().GetMemberIds())
	}
	expect(up, nil, up, up, []string{"channel_deleted:#secret"})

	// Leaving with one's own id, by RemoveChannelMember or LeaveChannel: the same events.
	_, err = c.member.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.member.Member.GetId()}))
	wantOK(t, "member removes himself", err)
	expect(up, nil, up, []string{"channel_deleted:#secret"}, nil)
	_, err = c.mod.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: secret.GetId()}))
	wantOK(t, "mod leaves", err)
	_, err = c.mod.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: secret.GetId()}))
	wantOK(t, "mod leaves twice", err)
	expect(up, nil, []string{"channel_deleted:#secret"}, nil, nil)

	// The sidebars agree with the events.
	for i, w := range who {
		if got := c.sidebar(t, w); slices.Contains(got, "#secret") != (w == c.owner) {
			t.Errorf("%s's sidebar: %v", names[i], got)
		}
	}
}

func TestPrivateChannelMembershipBadInput(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	secret := c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	text := c.channel(t, c.owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	dm := dmOf(t, c.labels, c.owner, "dm", c.member)
	many := make([]string, 51)
	for i := range many {
		many[i] = c.member.Member.GetId()
	}
	seq := c.s.Engine.Seq()
	for _, tc := range []struct {
		what string
		r    *svcv1.AddChannelMembersRequest
		code connect.Code
		want string
	}{
		{"no ids", &svcv1.AddChannelMembersRequest{ChannelId: secret.GetId()}, connect.CodeInvalidArgument, "member_ids must name 1 to 50 members; got 0"},
		{"51 ids", &svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: many}, connect.CodeInvalidArgument, "member_ids must name 1 to 50 members; got 51"},
		{"an empty id", &svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: []string{c.member.Member.GetId(), ""}}, connect.CodeInvalidArgument, "member_ids[1] is empty"},
		{"an unknown member", &svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: []string{c.member.Member.GetId(), "ghost"}}, connect.CodeNotFound, "member_ids: member ghost is not in this community"},
		{"no channel id", &svcv1.AddChannelMembersRequest{MemberIds: memberIDs(c.member)}, connect.CodeInvalidArgument, "channel_id is required"},
		{"an unknown channel", &svcv1.AddChannelMembersRequest{ChannelId: "nope", MemberIds: memberIDs(c.member)}, connect.CodeNotFound, "channel nope does not exist"},
		{"a TEXT channel", &svcv1.AddChannelMembersRequest{ChannelId: text.GetId(), MemberIds: memberIDs(c.member)}, connect.CodeInvalidArgument, "private channels only; this is a TEXT channel"},
		{"a DM", &svcv1.AddChannelMembersRequest{ChannelId: dm.GetId(), MemberIds: memberIDs(c.member2)}, connect.CodeInvalidArgument, "private channels only; this is a DM"},
	} {
		_, err := c.owner.Chat.AddChannelMembers(ctx, req(tc.r))
		wantCode(t, "AddChannelMembers with "+tc.what, err, tc.code, tc.want)
	}
	for _, tc := range []struct {
		what string
		r    *svcv1.RemoveChannelMemberRequest
		code connect.Code
		want string
	}{
		{"no member id", &svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId()}, connect.CodeInvalidArgument, "member_id is required"},
		{"someone not in it", &svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.member.Member.GetId()}, connect.CodeNotFound, "is not in this channel"},
		{"a TEXT channel", &svcv1.RemoveChannelMemberRequest{ChannelId: text.GetId(), MemberId: c.member.Member.GetId()}, connect.CodeInvalidArgument, "members leave it with LeaveChannel"},
		{"another's id in a DM", &svcv1.RemoveChannelMemberRequest{ChannelId: dm.GetId(), MemberId: c.member.Member.GetId()}, connect.CodeInvalidArgument, "member_id must be your own id"},
	} {
		_, err := c.owner.Chat.RemoveChannelMember(ctx, req(tc.r))
		wantCode(t, "RemoveChannelMember with "+tc.what, err, tc.code, tc.want)
	}
	if c.s.Engine.Seq() != seq {
		t.Fatal("a refused call wrote an event")
	}
	// 50 ids (repeats included) is within the limit.
	ch := mustAdd(t, c.owner, secret, c.member)
	if _, err := c.owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: many[:50]})); err != nil {
		t.Fatalf("50 ids: %v", err)
	}
	if !slices.Equal(ch.GetMemberIds(), memberIDs(c.owner, c.member)) {
		t.Fatalf("the refused adds left members behind: %v", ch.GetMemberIds())
	}
}
