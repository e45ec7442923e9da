package web_test

import (
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestReplyShowsTheAnsweredMessage: a reply carries a MessageRef of the message it answers in
// the response and the live event, and every later read shows that message as it is then
// (edited, deleted), without an event for the reply when the answered message changes.
func TestReplyShowsTheAnsweredMessage(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob := c.join("bob")
	general := c.channel("general")
	st := bob.Subscribe(t, c.s.Engine.Seq())

	// 250 characters, 2 bytes each: the ref carries the first 200 characters.
	long := strings.Repeat("é", 250)
	question := c.send(bob, general.GetId(), long)
	st.Next()
	c.clock.Advance(time.Second)
	reply := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "answer", ReplyToId: question.GetId()})
	want := &svcv1.MessageRef{Id: question.GetId(), AuthorId: bob.Member.GetId(), Text: strings.Repeat("é", 200)}
	if !proto.Equal(reply.GetReplyTo(), want) {
		t.Fatalf("the response's reply_to = %v, want %v", reply.GetReplyTo(), want)
	}
	if got := st.Next().GetMessageCreated(); !proto.Equal(got.GetReplyTo(), want) {
		t.Fatalf("the event's reply_to = %v, want %v", got.GetReplyTo(), want)
	}

	// An edit of the answered message sends nothing for the reply; reads show the new text.
	got := between(t, bob, func() {
		if _, err := bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: question.GetId(), Text: "short now"})); err != nil {
			t.Fatal(err)
		}
	}, st)
	wantEvents(t, got, [][]string{{"message_updated:short now"}}, "bob")
	if ref := listedMessage(t, bob, reply).GetReplyTo(); ref.GetText() != "short now" || ref.GetDeleted() {
		t.Errorf("ListMessages after the edit: reply_to %v", ref)
	}
	res, err := bob.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: "answer"}))
	if err != nil || len(res.Msg.GetMessages()) != 1 || res.Msg.GetMessages()[0].GetReplyTo().GetText() != "short now" {
		t.Errorf("Search after the edit: %v %v", res, err)
	}
	// A change to the reply itself (a reaction) sends the answered message as it is now.
	if _, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: reply.GetId(), Emoji: "👍"})); err != nil {
		t.Fatal(err)
	}
	if ref := nextUpdate(t, st).GetReplyTo(); ref.GetText() != "short now" {
		t.Errorf("the reaction's message_updated: reply_to %v", ref)
	}

	// Deleted: shown as deleted, without its text; the reply's own events and reads say so.
	if _, err := bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: question.GetId()})); err != nil {
		t.Fatal(err)
	}
	st.Next()
	gone := &svcv1.MessageRef{Id: question.GetId(), AuthorId: bob.Member.GetId(), Deleted: true}
	if ref := listedMessage(t, bob, reply).GetReplyTo(); !proto.Equal(ref, gone) {
		t.Errorf("ListMessages after the delete: reply_to %v, want %v", ref, gone)
	}
	// A replay shows it as it is now too.
	replay := c.owner.Subscribe(t, reply.GetSeq()-1)
	if ref := replay.Next().GetMessageCreated().GetReplyTo(); !proto.Equal(ref, gone) {
		t.Errorf("the replayed message_created: reply_to %v, want %v", ref, gone)
	}
	// And so does a restart.
	c.s.Restart()
	owner := c.s.Client(c.s.Token("owner"))
	if ref := listedMessage(t, owner, reply).GetReplyTo(); !proto.Equal(ref, gone) {
		t.Errorf("after a restart: reply_to %v, want %v", ref, gone)
	}
	// A deleted reply shows nothing of what it answered.
	if _, err := owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: reply.GetId()})); err != nil {
		t.Fatal(err)
	}
	if ref := listedMessage(t, owner, reply).GetReplyTo(); ref != nil {
		t.Errorf("a deleted reply: reply_to %v, want none", ref)
	}
}

// TestReplyTargetRules: reply_to_id must be a message of the same channel, and in a thread one
// of the same thread; an unknown or deleted one is not_found.
func TestReplyTargetRules(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general, other := c.channel("general"), c.channel("other")
	root := c.send(c.owner, general.GetId(), "root")
	inThread := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "in the thread", ThreadRootId: root.GetId()})
	otherRoot := c.send(c.owner, general.GetId(), "another root")
	elsewhere := c.send(c.owner, other.GetId(), "elsewhere")
	deleted := c.send(c.owner, general.GetId(), "deleted")
	if _, err := c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: deleted.GetId()})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		replyTo, thr string
		code         connect.Code
		says         string
	}{
		{"a message of the channel", root.GetId(), "", 0, ""},
		{"a thread reply, from the channel", inThread.GetId(), "", 0, ""},
		{"the root, in its thread", root.GetId(), root.GetId(), 0, ""},
		{"a reply, in its thread", inThread.GetId(), root.GetId(), 0, ""},
		{"a message of another channel", elsewhere.GetId(), "", connect.CodeInvalidArgument, "another channel"},
		{"another root, in a thread", otherRoot.GetId(), root.GetId(), connect.CodeInvalidArgument, "not in this thread"},
		{"a top-level message, in a thread", otherRoot.GetId(), root.GetId(), connect.CodeInvalidArgument, "reply_to_id"},
		{"an unknown id", "0190f0a0-0000-7000-8000-000000000000", "", connect.CodeNotFound, "reply_to_id"},
		{"a deleted message", deleted.GetId(), "", connect.CodeNotFound, "deleted"},
	} {
		c.clock.Advance(time.Second)
		err := sendErr(c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: tc.name, ReplyToId: tc.replyTo, ThreadRootId: tc.thr})
		wantCode(t, tc.name, err, tc.code, tc.says)
	}
}

// TestReplyCountsAsAMention: a reply moves the answered author's mention counter, unless they
// are the sender or muted or blocked the sender.
func TestReplyCountsAsAMention(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob, carol, dave := c.join("bob"), c.join("carol"), c.join("dave")
	general := c.channel("general")
	send := func(by *webtest.Client, text, replyTo string) {
		t.Helper()
		c.clock.Advance(time.Second)
		mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text, ReplyToId: replyTo})
	}
	bobs := c.send(bob, general.GetId(), "bob asks")
	if got := mentionsOf(t, bob, general.GetId()); got != 0 {
		t.Fatalf("before any reply bob has %d mentions", got)
	}
	send(carol, "carol answers", bobs.GetId())
	if got := mentionsOf(t, bob, general.GetId()); got != 1 {
		t.Fatalf("a reply from carol: bob has %d mentions, want 1", got)
	}
	// Carol's own reply is no mention of carol, nor of anyone else.
	if got := mentionsOf(t, dave, general.GetId()); got != 0 {
		t.Errorf("dave has %d mentions, want 0", got)
	}
	send(bob, "bob answers himself", bobs.GetId())
	if got := mentionsOf(t, bob, general.GetId()); got != 0 {
		t.Errorf("bob's own reply read everything and counts nothing: %d mentions", got)
	}
	if err := muteErr(bob, dave.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	send(dave, "dave answers", bobs.GetId())
	if got := mentionsOf(t, bob, general.GetId()); got != 0 {
		t.Errorf("a reply from a member bob muted: %d mentions, want 0", got)
	}
	if err := blockErr(bob, carol.Member.GetId()); err != nil {
		t.Fatal(err)
	}
	send(carol, "carol again", bobs.GetId())
	if got := mentionsOf(t, bob, general.GetId()); got != 0 {
		t.Errorf("a reply from a member bob blocked: %d mentions, want 0", got)
	}
	send(c.owner, "the owner answers", bobs.GetId())
	if got := mentionsOf(t, bob, general.GetId()); got != 1 {
		t.Errorf("a reply from the owner: %d mentions, want 1", got)
	}
	// An edit keeps the reply's mention (it does not come from the text).
	ms := listedMessages(t, c.owner, general.GetId())
	last := ms[len(ms)-1]
	if _, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: last.GetId(), Text: "edited"})); err != nil {
		t.Fatal(err)
	}
	if got := mentionsOf(t, bob, general.GetId()); got != 1 {
		t.Errorf("after an edit of the reply: %d mentions, want 1", got)
	}
}
