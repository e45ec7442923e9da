package web_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestRetention: with retention_days 1 and the clock two days on, exactly the old messages go,
// with the replies of old roots (a late reply too) and their reactions. Before the purge has run
// nothing shows them (ListMessages, lookups, GetState's last_message_seq and counts, replay);
// the purge then deletes them without an event, and the store is whole across a restart.
func TestRetention(t *testing.T) {
	t.Parallel()
	c := newCommunity(t, webtest.WithManualJobs())
	owner, bob := c.owner, c.join("bob")
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{RetentionDays: ptr(int32(1))})); err != nil {
		t.Fatal(err)
	}
	general, oldOnly := c.channel("general"), c.channel("old-only")
	me := " <@" + owner.Member.GetId() + ">"
	t0 := c.clock.Now()
	at := func(d time.Duration) { c.clock.Advance(t0.Add(d).Sub(c.clock.Now())) }
	reply := func(root *svcv1.Message, text string) *svcv1.Message {
		return mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text, ThreadRootId: root.GetId()})
	}
	react := func(m *svcv1.Message) {
		if _, err := owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "🌱"})); err != nil {
			t.Fatal(err)
		}
	}

	at(time.Minute)
	oldRoot := c.send(bob, general.GetId(), "old root")
	oldMention := c.send(bob, general.GetId(), "old"+me)
	react(oldMention)
	c.send(bob, oldOnly.GetId(), "old and alone")
	at(12 * time.Hour)
	reply(oldRoot, "old reply"+me)
	at(23 * time.Hour)
	lateReply := reply(oldRoot, "late reply"+me)
	at(30 * time.Hour)
	fresh := c.send(bob, general.GetId(), "fresh"+me)
	freshReply := reply(fresh, "fresh reply")
	react(fresh)
	at(47 * time.Hour) // the cutoff is now 23 h after t0: the late reply is newer, its root is not

	if got := check(t, c.s); got.Messages != 7 || got.Replies != 3 {
		t.Fatalf("before the purge: %d messages, %d replies stored; want 7 and 3", got.Messages, got.Replies)
	}
	visible := func(when string) {
		t.Helper()
		list, err := owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
		if err != nil || len(list.Msg.GetMessages()) != 1 || list.Msg.GetMessages()[0].GetId() != fresh.GetId() || list.Msg.GetHasMore() {
			t.Fatalf("%s: ListMessages = %v %v, want the fresh message only", when, list, err)
		}
		if r := list.Msg.GetMessages()[0].GetReactions(); len(r) != 1 || list.Msg.GetMessages()[0].GetReplyCount() != 1 {
			t.Fatalf("%s: the fresh message lost its reaction or reply: %v", when, list.Msg.GetMessages()[0])
		}
		thread, err := owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId(), ThreadRootId: fresh.GetId()}))
		if err != nil || len(thread.Msg.GetMessages()) != 1 || thread.Msg.GetMessages()[0].GetId() != freshReply.GetId() {
			t.Fatalf("%s: the fresh thread = %v %v", when, thread, err)
		}
		before, err := owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId(), BeforeId: fresh.GetId()}))
		if err != nil || len(before.Msg.GetMessages()) != 0 || before.Msg.GetHasMore() {
			t.Fatalf("%s: before the fresh message = %v %v, want nothing and no more", when, before, err)
		}
		for _, tc := range []struct {
			what string
			err  error
		}{
			{"the old thread", listErr(owner, &svcv1.ListMessagesRequest{ChannelId: general.GetId(), ThreadRootId: oldRoot.GetId()})},
			{"around an old message", listErr(owner, &svcv1.ListMessagesRequest{ChannelId: general.GetId(), AroundId: oldMention.GetId()})},
			{"reacting to an old message", reactErr(owner, oldMention.GetId())},
			{"reacting to a late reply of an old root", reactErr(owner, lateReply.GetId())},
			{"editing the late reply", editErr(bob, lateReply.GetId())},
			{"replying to the old root", sendErr(bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "x", ThreadRootId: oldRoot.GetId()})},
			{"reporting an old message", report(owner, oldMention.GetId(), "")},
		} {
			wantCode(t, when+": "+tc.what, tc.err, connect.CodeNotFound)
		}
		st, err := owner.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		last := map[string]int64{}
		for _, ch := range st.Msg.GetChannels() {
			last[ch.GetId()] = ch.GetLastMessageSeq()
		}
		if last[general.GetId()] != freshReply.GetCreatedSeq() || last[oldOnly.GetId()] != 0 {
			t.Fatalf("%s: last_message_seq general %d old-only %d, want %d and 0", when, last[general.GetId()], last[oldOnly.GetId()], freshReply.GetCreatedSeq())
		}
		// Unread: the fresh message; mentions: the fresh message (the late reply's root is gone).
		if rs := readStateOf(t, owner, general.GetId()); rs.GetUnreadCount() != 1 || rs.GetMentionCount() != 1 {
			t.Fatalf("%s: general unread %d mentions %d, want 1 and 1", when, rs.GetUnreadCount(), rs.GetMentionCount())
		}
		if rs := readStateOf(t, owner, oldOnly.GetId()); rs.GetUnreadCount() != 0 || rs.GetMentionCount() != 0 {
			t.Fatalf("%s: old-only unread %d mentions %d, want none", when, rs.GetUnreadCount(), rs.GetMentionCount())
		}
	}
	visible("before the purge")

	// Replay leaves the old messages out too.
	st := owner.Subscribe(t, 0)
	replayed := between(t, owner, func() {}, st)[0]
	for _, old := range []string{"message_created:old root", "message_created:old" + me, "message_updated:old" + me, "message_created:late reply" + me, "message_created:old and alone"} {
		if slices.Contains(replayed, old) {
			t.Errorf("replay from 0 sent %q", old)
		}
	}
	for _, kept := range []string{"message_created:fresh" + me, "message_created:fresh reply"} {
		if !slices.Contains(replayed, kept) {
			t.Errorf("replay from 0 left out %q: %v", kept, replayed)
		}
	}

	// MarkRead in a channel whose messages are all past retention clamps to 0.
	mr, err := owner.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: oldOnly.GetId(), Seq: math.MaxInt32}))
	if err != nil || mr.Msg.GetReadState().GetLastReadSeq() != 0 {
		t.Fatalf("MarkRead in old-only: %v %v, want last_read_seq 0", mr, err)
	}

	seq := c.s.Engine.Seq()
	if err := c.s.Engine.PurgeNow(); err != nil {
		t.Fatal(err)
	}
	if c.s.Engine.Seq() != seq {
		t.Fatalf("the purge sent %d events", c.s.Engine.Seq()-seq)
	}
	if got := check(t, c.s); got.Messages != 2 || got.Replies != 1 {
		t.Fatalf("after the purge: %d messages, %d replies stored; want the fresh message and its reply", got.Messages, got.Replies)
	}
	visible("after the purge")
	c.s.Restart()
	if got := check(t, c.s); got.Messages != 2 || got.Replies != 1 {
		t.Fatalf("after a restart: %d messages, %d replies", got.Messages, got.Replies)
	}
	visible("after a restart")

	// The event log lets go of what is older than retention too: an old after_seq resyncs.
	if err := c.s.Engine.PruneLog(); err != nil {
		t.Fatal(err)
	}
	if ev := owner.Subscribe(t, 0).Next(); !ev.GetResync() {
		t.Fatalf("Subscribe from 0 after the log was pruned to retention: %v, want resync", ev)
	}
}

func check(t *testing.T, s *webtest.Server) struct{ Messages, Replies int } {
	t.Helper()
	got, err := s.Engine.CheckMessages()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got.Problems {
		t.Error(p)
	}
	return struct{ Messages, Replies int }{got.Messages, got.Replies}
}

func listErr(c *webtest.Client, r *svcv1.ListMessagesRequest) error {
	_, err := c.Chat.ListMessages(ctx, req(r))
	return err
}

func reactErr(c *webtest.Client, id string) error {
	_, err := c.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: id, Emoji: "👀"}))
	return err
}

func editErr(c *webtest.Client, id string) error {
	_, err := c.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: id, Text: "edited"}))
	return err
}

func sendErr(c *webtest.Client, r *svcv1.SendMessageRequest) error {
	_, err := c.Chat.SendMessage(ctx, req(r))
	return err
}
