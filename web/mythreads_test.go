package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// threadsOf lists a member's threads as "root text: last reply text (unread)", and the
// next_before.
func threadsOf(t *testing.T, c *webtest.Client, limit int32, before int64) ([]string, int64) {
	t.Helper()
	res, err := c.Chat.ListMyThreads(ctx, req(&svcv1.ListMyThreadsRequest{Limit: limit, Before: before}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, th := range res.Msg.GetThreads() {
		out = append(out, fmt.Sprintf("%s: %s (%d)", th.GetRoot().GetText(), th.GetLastReply().GetText(), th.GetUnreadCount()))
	}
	return out, res.Msg.GetNextBefore()
}

// TestListMyThreads: the threads a member is in, through HTTP: those whose root they wrote
// (with a reply) or in which they replied, in the channels they are in, the newest reply first,
// with the newest reply and the unread replies (after their read position, not their own, not
// from someone they muted); a thread they are not in, one in a private channel they are not in,
// and a root without replies are not listed. Pages follow next_before without repeating a
// thread; the limits are checked.
func TestListMyThreads(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general").GetId()
	random := c.channel("random").GetId()
	secret := mustChannel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE).GetId()
	alice, bob, carol := c.join("alice"), c.join("bob"), c.join("carol")
	say := func(by *webtest.Client, ch, text, root string) *svcv1.Message {
		t.Helper()
		c.clock.Advance(time.Second)
		return mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: ch, Text: text, ThreadRootId: root})
	}
	mine := say(alice, general, "alice asks", "")
	say(alice, general, "alice alone", "")
	bobs := say(bob, random, "bob asks", "")
	others := say(bob, general, "bob and carol talk", "")
	hidden := say(c.owner, secret, "the owner's secret", "")
	say(bob, general, "bob answers alice", mine.GetId())
	say(alice, random, "alice answers bob", bobs.GetId())
	say(carol, general, "carol answers bob", others.GetId())
	say(c.owner, secret, "a secret reply", hidden.GetId())
	say(carol, random, "carol joins in", bobs.GetId())
	say(bob, general, "bob again", mine.GetId())

	got, next := threadsOf(t, alice, 0, 0)
	want := []string{"alice asks: bob again (2)", "bob asks: carol joins in (1)"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") || next != 0 {
		t.Fatalf("alice's threads: %q next %d\nwant %q next 0", got, next, want)
	}

	t.Log("read, and muted: fewer unread")
	if _, err := alice.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: general, Seq: c.s.Engine.Seq()})); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: carol.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	got, _ = threadsOf(t, alice, 0, 0)
	if want := "alice asks: bob again (0) | bob asks: carol joins in (0)"; strings.Join(got, " | ") != want {
		t.Fatalf("alice's threads after reading #general and muting carol: %q\nwant %q", got, want)
	}

	t.Log("pages of one")
	var paged []string
	before := int64(0)
	for range 5 {
		page, nb := threadsOf(t, alice, 1, before)
		paged = append(paged, page...)
		if nb == 0 {
			break
		}
		before = nb
	}
	if want := "alice asks: bob again (0) | bob asks: carol joins in (0)"; strings.Join(paged, " | ") != want {
		t.Fatalf("alice's threads a page at a time: %q\nwant %q", paged, want)
	}
	got, _ = threadsOf(t, carol, 0, 0)
	if want := "bob asks: carol joins in (0) | bob and carol talk: carol answers bob (0)"; strings.Join(got, " | ") != want {
		t.Fatalf("carol's threads: %q\nwant %q", got, want)
	}

	for _, tc := range []struct {
		r     *svcv1.ListMyThreadsRequest
		words string
	}{
		{&svcv1.ListMyThreadsRequest{Limit: 51}, "limit must be 1 to 50; got 51"},
		{&svcv1.ListMyThreadsRequest{Limit: -1}, "limit must be 1 to 50; got -1"},
		{&svcv1.ListMyThreadsRequest{Before: -5}, "before must be 0 (the newest) or a created_seq; got -5"},
	} {
		_, err := alice.Chat.ListMyThreads(ctx, req(tc.r))
		wantCode(t, "ListMyThreads "+tc.r.String(), err, connect.CodeInvalidArgument, tc.words)
	}
	_, err := c.s.Client(c.s.Token("stranger")).Chat.ListMyThreads(ctx, req(&svcv1.ListMyThreadsRequest{}))
	wantCode(t, "ListMyThreads of someone who never joined", err, connect.CodePermissionDenied)
}

// TestListMyThreadsIsBounded: a call reads a bounded number of the channels' messages; a page
// that reaches the bound ends there with next_before, and the pages that follow it find the
// threads further back, each once.
func TestListMyThreadsIsBounded(t *testing.T) {
	t.Parallel()
	c := newCommunity(t, func(o *engine.Options) { o.ThreadsScan = 50 })
	general := c.channel("general").GetId()
	alice, bob := c.join("alice"), c.join("bob")
	say := func(by *webtest.Client, text, root string) *svcv1.Message {
		t.Helper()
		c.clock.Advance(time.Second)
		return mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: general, Text: text, ThreadRootId: root})
	}
	old := say(alice, "an old question", "")
	say(bob, "an old answer", old.GetId())
	for i := range 120 {
		say(bob, fmt.Sprintf("chatter %d", i), "")
	}
	recent := say(alice, "a recent question", "")
	say(bob, "a recent answer", recent.GetId())

	got, next := threadsOf(t, alice, 0, 0)
	if strings.Join(got, " | ") != "a recent question: a recent answer (1)" || next == 0 {
		t.Fatalf("the first page: %q next %d, want the recent thread and a way on", got, next)
	}
	var rest []string
	for i := 0; next != 0 && i < 10; i++ {
		var page []string
		page, next = threadsOf(t, alice, 0, next)
		rest = append(rest, page...)
	}
	if strings.Join(rest, " | ") != "an old question: an old answer (0)" || next != 0 {
		t.Fatalf("the pages after: %q next %d, want the old thread once, then the end", rest, next)
	}
}
