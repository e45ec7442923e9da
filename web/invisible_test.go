package web_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestNothingOfAPrivateChannelOrDMReachesOutsiders: a private channel and a DM live their whole
// life (created, renamed, members added and removed, messages written, edited, reacted to and
// deleted, typing, a DM hidden and put back) while outsiders (two admins, a moderator, a member
// and a bot) watch their streams and then try every call on them. Not the channel's name, topic,
// members, messages or events reach an outsider: not live, not in any answer or error, not in
// a replay after reconnecting. A member removed early stops hearing at once.
func TestNothingOfAPrivateChannelOrDMReachesOutsiders(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	seq0 := c.s.Engine.Seq()
	outsiders := []*webtest.Client{c.admin, c.admin2, c.mod, c.bot2}
	var streams []*webtest.Stream
	for _, o := range outsiders {
		st := o.Subscribe(t, seq0)
		st.Ephemeral = true
		streams = append(streams, st)
	}
	former := c.member2.Subscribe(t, seq0)

	// The private channel's life.
	secret := c.channel(t, c.owner, "Secret Plans", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustAdd(t, c.owner, secret, c.member, c.bot, c.member2)
	_, err := c.owner.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.member2.Member.GetId()}))
	wantOK(t, "removing member2", err)
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: secret.GetId(), Topic: ptr("topic-xyzzy")}))
	wantOK(t, "setting the topic", err)
	alpha := mustSend(t, c.member, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "plan-alpha"})
	beta := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "plan-beta", ThreadRootId: alpha.GetId()})
	_, err = c.bot.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: alpha.GetId(), Emoji: ":plan-emoji:"}))
	wantOK(t, "reacting", err)
	_, err = c.member.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: alpha.GetId(), Text: "plan-gamma"}))
	wantOK(t, "editing", err)
	_, err = c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: beta.GetId()}))
	wantOK(t, "deleting", err)
	_, err = c.owner.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: secret.GetId()}))
	wantOK(t, "typing", err)
	_, err = c.member.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: secret.GetId(), Seq: alpha.GetSeq()}))
	wantOK(t, "marking read", err)

	// The DM's life.
	dm := dmOf(t, c.labels, c.member, "dm", c.mod2)
	mustSend(t, c.mod2, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "dm-delta"})
	_, err = c.member.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: dm.GetId()}))
	wantOK(t, "typing in the DM", err)
	_, err = c.member.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: dm.GetId()}))
	wantOK(t, "hiding the DM", err)
	mustSend(t, c.mod2, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "dm-epsilon"})

	secrets := []string{secret.GetId(), dm.GetId(), alpha.GetId(), beta.GetId(), "secret-plans", "topic-xyzzy", "plan-", "dm-"}
	leaks := func(what string, m proto.Message) {
		t.Helper()
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s reveals %q: %s", what, s, b)
			}
		}
	}
	watch := func(phase string) {
		t.Helper()
		bio := "marker " + phase
		if _, err := c.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
			t.Fatal(err)
		}
		for i, st := range streams {
			for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio }) {
				leaks(phase+": an event to "+outsiders[i].Member.GetUsername(), ev)
			}
		}
	}
	// refused checks a call was refused with permission_denied (for lack of rank, or because
	// the caller cannot see the channel) and that the error says nothing of it.
	refused := func(what string, err error) {
		t.Helper()
		wantCode(t, what, err, codeDenied)
		for _, s := range secrets {
			if err != nil && strings.Contains(err.Error(), s) {
				t.Errorf("%s: the error reveals %q", what, s)
			}
		}
	}
	watch("live")
	got := channelEvents(c.labels.received(t, c.owner, former)[0])
	if want := []string{"channel_updated:#secret-plans", "channel_deleted:#secret-plans"}; !slices.Equal(got, want) {
		t.Errorf("the removed member received %v, want %v", got, want)
	}

	// Every call on them fails the same way for an outsider, and says nothing of them.
	seq := c.s.Engine.Seq()
	for _, o := range outsiders {
		who := o.Member.GetUsername()
		for _, ch := range []*svcv1.Channel{secret, dm} {
			calls := map[string]func() error{
				"ListMessages": func() error {
					_, err := o.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
					return err
				},
				"SendMessage": func() error {
					_, err := o.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x"}))
					return err
				},
				"MarkRead": func() error {
					_, err := o.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId()}))
					return err
				},
				"SetTyping": func() error {
					_, err := o.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId()}))
					return err
				},
				"UpdateChannel": func() error {
					_, err := o.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Topic: ptr("mine")}))
					return err
				},
				"AddChannelMembers": func() error {
					_, err := o.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: memberIDs(o)}))
					return err
				},
				"RemoveChannelMember (self)": func() error {
					_, err := o.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: o.Member.GetId()}))
					return err
				},
				"RemoveChannelMember (a member)": func() error {
					_, err := o.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: c.member.Member.GetId()}))
					return err
				},
				"SetChannelAccess": func() error {
					_, err := o.Chat.SetChannelAccess(ctx, req(&svcv1.SetChannelAccessRequest{ChannelId: ch.GetId()}))
					return err
				},
				"JoinChannel": func() error {
					_, err := o.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: ch.GetId()}))
					return err
				},
			}
			for name, call := range calls {
				refused(name+" by "+who+" on "+c.labels.of(ch.GetId()), call())
			}
			_, err := o.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: ch.GetId()}))
			wantOK(t, "LeaveChannel by "+who+" (nothing to leave)", err)
		}
		for name, call := range map[string]func() error{
			"EditMessage": func() error {
				_, err := o.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: alpha.GetId(), Text: "x"}))
				return err
			},
			"DeleteMessage": func() error {
				_, err := o.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: alpha.GetId()}))
				return err
			},
			"React": func() error {
				_, err := o.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: alpha.GetId(), Emoji: "👀"}))
				return err
			},
			"ListMessages of a thread": func() error {
				_, err := o.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: secret.GetId(), ThreadRootId: alpha.GetId()}))
				return err
			},
		} {
			refused(name+" by "+who, call())
		}
		state, err := o.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		leaks("GetState of "+who, state.Msg)
		browsed, err := o.Chat.BrowseChannels(ctx, req(&svcv1.BrowseChannelsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		leaks("BrowseChannels of "+who, browsed.Msg)
	}
	if c.s.Engine.Seq() != seq {
		t.Fatal("an outsider's calls wrote events")
	}

	// Reconnecting from before it all replays nothing of it either.
	for i, o := range outsiders {
		streams[i].Close()
		streams[i] = o.Subscribe(t, seq0)
		streams[i].Ephemeral = true
	}
	watch("replay")
	former.Close()
	replayed := channelEvents(c.labels.received(t, c.owner, c.member2.Subscribe(t, seq0))[0])
	if want := []string{"channel_deleted:#secret-plans"}; !slices.Equal(replayed, want) {
		t.Errorf("the removed member's replay has %v, want only %v", replayed, want)
	}
}

// channelEvents keeps the described channel and message events of a list.
func channelEvents(described []string) []string {
	return slices.DeleteFunc(described, func(s string) bool {
		return !strings.HasPrefix(s, "channel_") && !strings.HasPrefix(s, "message_")
	})
}
