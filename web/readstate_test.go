package web_test

import (
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// readStateOf is a member's read state in a channel, from GetState.
func readStateOf(t *testing.T, c *webtest.Client, channelID string) *svcv1.ReadState {
	t.Helper()
	st, err := c.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range st.Msg.GetReadStates() {
		if rs.GetChannelId() == channelID {
			return rs
		}
	}
	t.Fatalf("no read state for channel %s", channelID)
	return nil
}

// TestUnreadAndMentionCounters plays a conversation and checks bob's exact counts after each
// step.
func TestUnreadAndMentionCounters(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	bobID := "<@" + bob.Member.GetId() + ">"
	send := func(c *webtest.Client, text, root string) *svcv1.Message {
		return mustSend(t, c, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text, ThreadRootId: root})
	}
	var root, mention, readUpTo *svcv1.Message
	steps := []struct {
		name            string
		do              func()
		unread, mention int32
	}{
		{"nothing yet", func() {}, 0, 0},
		{"three messages from alice", func() {
			root = send(alice, "one", "")
			send(alice, "two", "")
			readUpTo = send(alice, "three", "")
		}, 3, 0},
		{"a mention of bob", func() { mention = send(alice, "hey "+bobID, "") }, 4, 1},
		{"a thread reply counts no unread", func() { send(alice, "in a thread", root.GetId()) }, 4, 1},
		{"a thread reply that mentions bob counts a mention", func() { send(alice, "thread "+bobID, root.GetId()) }, 4, 2},
		{"a mention of someone else", func() { send(alice, "hey <@"+alice.Member.GetId()+">", "") }, 5, 2},
		{"deleting the mention", func() {
			if _, err := alice.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: mention.GetId()})); err != nil {
				t.Fatal(err)
			}
		}, 4, 1},
		{"an edit that adds a mention", func() {
			if _, err := alice.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: readUpTo.GetId(), Text: "three " + bobID})); err != nil {
				t.Fatal(err)
			}
		}, 4, 2},
		{"bob's own message marks everything read", func() { send(bob, "caught up "+bobID, "") }, 0, 0},
		{"alice again, after bob's message", func() { send(alice, "four", "") }, 1, 0},
		{"MarkRead backwards to the third message", func() {
			if _, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: readUpTo.GetCreatedSeq()})); err != nil {
				t.Fatal(err)
			}
		}, 2, 1}, // "hey alice" and "four" are unread (bob's own is not); the reply mention of bob is after "three".
		{"MarkRead to 0: everything not his own and not deleted", func() {
			if _, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: 0})); err != nil {
				t.Fatal(err)
			}
		}, 5, 2},
	}
	for _, step := range steps {
		step.do()
		rs := readStateOf(t, bob, ch.GetId())
		if rs.GetUnreadCount() != step.unread || rs.GetMentionCount() != step.mention {
			t.Fatalf("after %q: unread %d mention %d, want %d %d", step.name, rs.GetUnreadCount(), rs.GetMentionCount(), step.unread, step.mention)
		}
	}

	// MarkRead past the end clamps to the channel's last message; its answer has the counts.
	res, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: 1 << 40}))
	if err != nil {
		t.Fatal(err)
	}
	state, _ := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	var last int64
	for _, c := range state.Msg.GetChannels() {
		if c.GetId() == ch.GetId() {
			last = c.GetLastMessageSeq()
		}
	}
	if rs := res.Msg.GetReadState(); rs.GetLastReadSeq() != last || rs.GetUnreadCount() != 0 || rs.GetMentionCount() != 0 {
		t.Fatalf("MarkRead past the end = %v, want last_read_seq %d and no counts", rs, last)
	}
	_, err = bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: -1}))
	if codeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("MarkRead -1: %v", err)
	}
}

// TestReadStateReachesOtherDevices: MarkRead on one device arrives on the member's other
// streams, and on nobody else's.
func TestReadStateReachesOtherDevices(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "hi"})
	seq := s.Engine.Seq()
	phone := s.Client(bob.Token).Subscribe(t, seq)
	laptop := s.Client(bob.Token).Subscribe(t, seq)
	aliceSt := alice.Subscribe(t, seq)
	if _, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: m.GetSeq()})); err != nil {
		t.Fatal(err)
	}
	got := marker(t, alice, phone, laptop, aliceSt)
	for i, want := range [][]string{{"read_state:" + itoa(m.GetSeq())}, {"read_state:" + itoa(m.GetSeq())}, nil} {
		if len(got[i]) != len(want) || (len(want) > 0 && got[i][0] != want[0]) {
			t.Errorf("stream %d got %v, want %v", i, got[i], want)
		}
	}
}
