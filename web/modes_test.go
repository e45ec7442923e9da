package web_test

import (
	"slices"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestChannelModes: ROLES puts everyone in every TEXT channel they see; OPT_IN lets them leave
// and join, and joins newcomers to the is_default channels. Switching keeps every sidebar as it
// was; switching back to ROLES puts everyone in everything they see again.
func TestChannelModes(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	l := c.labels
	general := c.channel(t, c.owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	c.channel(t, c.owner, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	garden := c.channel(t, c.owner, "garden", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	gardeners := c.role(t, "gardeners")
	mustAccess(t, c.owner, garden, false, gardeners)
	mustAccess(t, c.owner, general, true)
	random := findChannel(t, c.member, "random")

	// ROLES: everyone is in everything they see; nothing to join or leave.
	if got := c.sidebar(t, c.member); !slices.Equal(got, []string{"#general", "#random"}) {
		t.Fatalf("member's sidebar in ROLES mode: %v", got)
	}
	_, err := c.member.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: random.GetId()}))
	wantCode(t, "JoinChannel in ROLES mode", err, connect.CodeFailedPrecondition, "CHANNEL_MODE_OPT_IN")
	_, err = c.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: random.GetId()}))
	wantCode(t, "LeaveChannel in ROLES mode", err, connect.CodeFailedPrecondition, "CHANNEL_MODE_OPT_IN")
	// 9 members see #general; the 7 without the role do not see #garden.
	if got := browseCounts(t, l, c.member); !slices.Equal(got, []string{"#general=9", "#random=9"}) {
		t.Fatalf("member browses %v", got)
	}
	if got := browseCounts(t, l, c.admin); !slices.Equal(got, []string{"#garden=3", "#general=9", "#random=9"}) {
		t.Fatalf("admin browses %v", got)
	}

	seq := c.s.Engine.Seq()
	member, member2 := c.member.Subscribe(t, seq), c.member2.Subscribe(t, seq)
	streams, names := []*webtest.Stream{member, member2}, []string{"member", "member2"}

	// Switching to OPT_IN: everyone hears of it, and stays where they were.
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	switched := []string{"channel_mode_changed:CHANNEL_MODE_OPT_IN", "server_updated"}
	l.expect(t, c.owner, streams, names, switched, switched)
	if got := c.sidebar(t, c.member); !slices.Equal(got, []string{"#general", "#random"}) {
		t.Fatalf("member's sidebar after switching to OPT_IN: %v", got)
	}
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	l.expect(t, c.owner, streams, names, []string{"server_updated"}, []string{"server_updated"})

	// Leaving: channel_deleted to the leaver alone; their messages stop; browse still lists it.
	_, err = c.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: random.GetId()}))
	wantOK(t, "leaving #random", err)
	_, err = c.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: random.GetId()}))
	wantOK(t, "leaving #random twice", err)
	mustSend(t, c.member2, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "anyone?"})
	l.expect(t, c.owner, streams, names, []string{"channel_deleted:#random"}, []string{"message_created:anyone?"})
	if got := c.sidebar(t, c.member); !slices.Equal(got, []string{"#general"}) {
		t.Fatalf("member's sidebar after leaving #random: %v", got)
	}
	if got := browseCounts(t, l, c.member); !slices.Equal(got, []string{"#general=9", "#random=8"}) {
		t.Fatalf("member browses %v after leaving", got)
	}

	// Joining: channel_updated to the joiner alone; joining twice is fine.
	res, err := c.member.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: random.GetId()}))
	if err != nil || res.Msg.GetChannel().GetId() != random.GetId() || res.Msg.GetChannel().GetLastMessageSeq() == 0 {
		t.Fatalf("joining #random: %v %v", res, err)
	}
	_, err = c.member.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: random.GetId()}))
	wantOK(t, "joining #random twice", err)
	l.expect(t, c.owner, streams, names, []string{"channel_updated:#random"}, nil)
	_, err = c.member.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: garden.GetId()}))
	wantCode(t, "joining a channel limited to a role one lacks", err, connect.CodePermissionDenied, "you cannot see this channel")

	// A new TEXT channel: its creator is in it; the others see it and may join.
	c.channel(t, c.owner, "news", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	l.expect(t, c.owner, streams, names, []string{"channel_created:#news"}, []string{"channel_created:#news"})
	if got := c.sidebar(t, c.owner); !slices.Contains(got, "#news") {
		t.Fatalf("the creator's sidebar lacks #news: %v", got)
	}
	if got := c.sidebar(t, c.member); slices.Contains(got, "#news") {
		t.Fatalf("member's sidebar has #news before joining it: %v", got)
	}

	// A newcomer is joined to the is_default channels they see, and only those.
	carol := c.s.Join("carol")
	if got := c.sidebar(t, carol); !slices.Equal(got, []string{"#general"}) {
		t.Fatalf("a newcomer's sidebar in OPT_IN mode: %v", got)
	}

	// Back to ROLES: everyone is in everything they see again.
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_ROLES)
	if got := c.sidebar(t, carol); !slices.Equal(got, []string{"#general", "#news", "#random"}) {
		t.Fatalf("the newcomer's sidebar back in ROLES mode: %v", got)
	}
}

// TestOptInMembershipOutlivesLosingSight: in OPT_IN mode a member who joined a role-limited
// channel and loses the role loses the channel; given the role back, it is back in their
// sidebar, joined, without joining again.
func TestOptInMembershipOutlivesLosingSight(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	gardeners := c.role(t, "gardeners")
	garden := c.channel(t, c.owner, "garden", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustAccess(t, c.owner, garden, false, gardeners)
	mustSetRoles(t, c.owner, c.member, gardeners)
	if _, err := c.member.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: garden.GetId()})); err != nil {
		t.Fatal(err)
	}
	st := c.member.Subscribe(t, c.s.Engine.Seq())
	mustSetRoles(t, c.owner, c.member)
	c.labels.expect(t, c.owner, []*webtest.Stream{st}, []string{"member"}, []string{"member_updated:member", "channel_deleted:#garden"})
	if got := c.sidebar(t, c.member); slices.Contains(got, "#garden") {
		t.Fatalf("sidebar without the role: %v", got)
	}
	mustSetRoles(t, c.owner, c.member, gardeners)
	c.labels.expect(t, c.owner, []*webtest.Stream{st}, []string{"member"}, []string{"member_updated:member", "channel_created:#garden"})
	if got := c.sidebar(t, c.member); !slices.Contains(got, "#garden") {
		t.Fatalf("sidebar with the role back: %v", got)
	}
}

func TestJoinChannelBadInput(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	secret := c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	dm := dmOf(t, c.labels, c.owner, "dm", c.member)
	seq := c.s.Engine.Seq()
	_, err := c.owner.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: secret.GetId()}))
	wantCode(t, "joining a private channel", err, connect.CodeInvalidArgument, "only TEXT channels are joined; this is a private channel")
	_, err = c.owner.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: dm.GetId()}))
	wantCode(t, "joining a DM", err, connect.CodeInvalidArgument, "only TEXT channels are joined; this is a DM")
	_, err = c.owner.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{}))
	wantCode(t, "joining without a channel id", err, connect.CodeInvalidArgument, "channel_id is required")
	_, err = c.owner.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: "nope"}))
	wantCode(t, "joining an unknown channel", err, connect.CodeNotFound, "channel nope does not exist")
	_, err = c.owner.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{}))
	wantCode(t, "leaving without a channel id", err, connect.CodeInvalidArgument, "channel_id is required")
	_, err = c.owner.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: "nope"}))
	wantCode(t, "leaving an unknown channel", err, connect.CodeNotFound, "channel nope does not exist")
	if c.s.Engine.Seq() != seq {
		t.Fatal("a refused call wrote an event")
	}
}

// browseCounts is BrowseChannels for a member as "label=member_count", sorted.
func browseCounts(t *testing.T, l labels, who *webtest.Client) []string {
	t.Helper()
	res, err := who.Chat.BrowseChannels(ctx, req(&svcv1.BrowseChannelsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, ch := range res.Msg.GetChannels() {
		if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			t.Fatalf("BrowseChannels lists a %v channel", ch.GetKind())
		}
		out = append(out, l.of(ch.GetId())+"="+itoa(int64(ch.GetMemberCount())))
	}
	slices.Sort(out)
	return out
}

func findChannel(t *testing.T, who *webtest.Client, name string) *svcv1.Channel {
	t.Helper()
	res, err := who.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Msg.GetChannels() {
		if ch.GetName() == name {
			return ch
		}
	}
	t.Fatalf("%s has no channel %q", who.Member.GetUsername(), name)
	return nil
}
