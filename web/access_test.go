package web_test

import (
	"slices"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestChannelAccessEvents: who receives what when a TEXT channel's roles change, and when a
// member's roles change. The rule: channel_deleted to whoever stops seeing the channel,
// channel_created to whoever starts, channel_updated to whoever saw it and still does (for
// SetChannelAccess), member_updated to everyone (for SetMemberRoles).
func TestChannelAccessEvents(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	gardeners, cooks := c.role(t, "gardeners"), c.role(t, "cooks")
	garden := c.channel(t, c.owner, "garden", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSetRoles(t, c.owner, c.member, gardeners)
	mustSetRoles(t, c.owner, c.bot, gardeners)
	seq := c.s.Engine.Seq()
	who := []*webtest.Client{c.owner, c.admin, c.mod, c.member, c.member2, c.bot}
	names := []string{"owner", "admin", "mod", "member", "member2", "bot"}
	var streams []*webtest.Stream
	for _, w := range who {
		streams = append(streams, w.Subscribe(t, seq))
	}
	expect := func(want ...[]string) {
		t.Helper()
		c.labels.expect(t, c.owner, streams, names, want...)
	}
	up, gone, come := []string{"channel_updated:#garden"}, []string{"channel_deleted:#garden"}, []string{"channel_created:#garden"}

	// Limiting the channel to gardeners: the others lose it, except admins and the owner.
	ch := mustAccess(t, c.admin, garden, false, gardeners)
	if !slices.Equal(ch.GetRoleIds(), []string{gardeners.GetId()}) || ch.GetIsDefault() {
		t.Fatalf("channel after SetChannelAccess = %v", ch)
	}
	expect(up, up, gone, up, gone, up)
	for i, w := range who {
		if got := c.sidebar(t, w); slices.Contains(got, "#garden") != (w != c.mod && w != c.member2) {
			t.Errorf("%s's sidebar: %v", names[i], got)
		}
	}

	// The same access again changes nothing; is_default alone is a change for those who see it.
	mustAccess(t, c.admin, garden, false, gardeners, gardeners)
	expect(nil, nil, nil, nil, nil, nil)
	mustAccess(t, c.admin, garden, true, gardeners)
	expect(up, up, nil, up, nil, up)

	// A member given the role starts seeing it; taken away, stops.
	mustSetRoles(t, c.admin, c.member2, cooks, gardeners)
	m2 := []string{"member_updated:member2"}
	expect(m2, m2, m2, m2, append(m2, "channel_created:#garden"), m2)
	mustSetRoles(t, c.admin, c.member2, cooks)
	expect(m2, m2, m2, m2, append(m2, "channel_deleted:#garden"), m2)

	// Switching the channel to cooks: gardeners lose it, cooks gain it, admins keep it.
	mustAccess(t, c.owner, garden, true, cooks)
	expect(up, up, nil, gone, come, gone)

	// Open to all again: whoever did not see it gets it whole.
	mustAccess(t, c.owner, garden, false)
	expect(up, up, come, come, up, come)

	// Roles never change what admins and the owner see, nor private channels.
	mustAccess(t, c.owner, garden, false, cooks)
	expect(up, up, gone, gone, up, gone)
	mustSetRoles(t, c.owner, c.admin, gardeners)
	a := []string{"member_updated:admin"}
	expect(a, a, a, a, a, a)
}

// TestLimitedChannelIsInvisibleWithoutTheRole: GetState, BrowseChannels, ListMessages,
// SendMessage and every event of a channel limited to a role reach only its holders, admins and
// the owner. A moderator is not an admin.
func TestLimitedChannelIsInvisibleWithoutTheRole(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	gardeners := c.role(t, "gardeners")
	garden := c.channel(t, c.owner, "garden", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustAccess(t, c.owner, garden, false, gardeners)
	mustSetRoles(t, c.owner, c.member, gardeners)
	seq := c.s.Engine.Seq()
	holder, outsider, mod := c.member.Subscribe(t, seq), c.member2.Subscribe(t, seq), c.mod.Subscribe(t, seq)
	outsider.Ephemeral = true

	m := mustSend(t, c.member, &svcv1.SendMessageRequest{ChannelId: garden.GetId(), Text: "tomatoes"})
	mustSend(t, c.admin, &svcv1.SendMessageRequest{ChannelId: garden.GetId(), Text: "reply", ThreadRootId: m.GetId()})
	_, err := c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "🍅"}))
	wantOK(t, "react", err)
	_, err = c.owner.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: garden.GetId()}))
	wantOK(t, "typing", err)
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: garden.GetId(), Topic: ptr("veg")}))
	wantOK(t, "update", err)
	_, err = c.member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
	wantOK(t, "delete", err)

	want := []string{"message_created:tomatoes", "message_created:reply", "message_updated:tomatoes", "message_updated:tomatoes", "channel_updated:#garden", "message_deleted:#garden"}
	got := c.labels.received(t, c.owner, holder, mod)
	if !slices.Equal(got[0], want) {
		t.Errorf("the role holder received %v, want %v", got[0], want)
	}
	if len(got[1]) != 0 {
		t.Errorf("a moderator without the role received %v", got[1])
	}
	for _, ev := range outsider.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated() != nil }) {
		if d := c.labels.describe(ev); ev.GetMemberUpdated() == nil && ev.GetPresence() == nil && ev.GetPresenceBatch() == nil && !ev.GetHeartbeat() {
			t.Errorf("a member without the role received %s", d)
		}
	}

	// Reconnecting from before it all replays nothing of the channel either.
	outsider.Close()
	mod.Close()
	for _, w := range []*webtest.Client{c.member2, c.mod} {
		if got := channelEvents(c.labels.received(t, c.owner, w.Subscribe(t, seq))[0]); len(got) != 0 {
			t.Errorf("%s's replay has %v", w.Member.GetUsername(), got)
		}
	}

	for _, w := range []*webtest.Client{c.member2, c.mod, c.bot} {
		_, err := w.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: garden.GetId()}))
		wantCode(t, "ListMessages without the role", err, connect.CodePermissionDenied, "you cannot see this channel")
		_, err = w.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: garden.GetId(), Text: "let me in"}))
		wantCode(t, "SendMessage without the role", err, connect.CodePermissionDenied, "you cannot see this channel")
		if got := c.sidebar(t, w); slices.Contains(got, "#garden") {
			t.Errorf("%s's sidebar has the limited channel", w.Member.GetUsername())
		}
		if got := browse(t, c.labels, w); slices.Contains(got, "#garden") {
			t.Errorf("%s browses the limited channel", w.Member.GetUsername())
		}
	}
	for _, w := range []*webtest.Client{c.member, c.admin, c.owner} {
		if _, err := w.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: garden.GetId()})); err != nil {
			t.Errorf("%s reading the limited channel: %v", w.Member.GetUsername(), err)
		}
	}
}

func TestSetChannelAccessBadInput(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	r := c.role(t, "gardeners")
	text := c.channel(t, c.owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	dm := dmOf(t, c.labels, c.owner, "dm", c.member)
	seq := c.s.Engine.Seq()
	for _, tc := range []struct {
		what string
		r    *svcv1.SetChannelAccessRequest
		code connect.Code
		want string
	}{
		{"no channel", &svcv1.SetChannelAccessRequest{}, connect.CodeInvalidArgument, "channel_id is required"},
		{"an unknown channel", &svcv1.SetChannelAccessRequest{ChannelId: "nope"}, connect.CodeNotFound, "channel nope does not exist"},
		{"a private channel", &svcv1.SetChannelAccessRequest{ChannelId: secret.GetId(), RoleIds: []string{r.GetId()}}, connect.CodeInvalidArgument, "SetChannelAccess is for TEXT and VOICE channels; this is a private channel"},
		{"a DM", &svcv1.SetChannelAccessRequest{ChannelId: dm.GetId()}, connect.CodeInvalidArgument, "this is a DM"},
		{"an unknown role", &svcv1.SetChannelAccessRequest{ChannelId: text.GetId(), RoleIds: []string{r.GetId(), "nope"}}, connect.CodeNotFound, "role_ids: role nope does not exist"},
		{"an empty role id", &svcv1.SetChannelAccessRequest{ChannelId: text.GetId(), RoleIds: []string{""}}, connect.CodeInvalidArgument, "role_ids[0] is empty"},
		{"251 role ids", &svcv1.SetChannelAccessRequest{ChannelId: text.GetId(), RoleIds: make([]string, 251)}, connect.CodeInvalidArgument, "role_ids has 251 ids; the limit is 250"},
	} {
		_, err := c.owner.Chat.SetChannelAccess(ctx, req(tc.r))
		wantCode(t, "SetChannelAccess with "+tc.what, err, tc.code, tc.want)
	}
	if c.s.Engine.Seq() != seq {
		t.Fatal("a refused call wrote an event")
	}
}

// browse is the labels of the channels BrowseChannels lists for a member.
func browse(t *testing.T, l labels, who *webtest.Client) []string {
	t.Helper()
	res, err := who.Chat.BrowseChannels(ctx, req(&svcv1.BrowseChannelsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, ch := range res.Msg.GetChannels() {
		out = append(out, l.of(ch.GetId()))
	}
	return out
}
