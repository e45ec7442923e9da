package web_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// sendMany sends n messages (top-level, or replies to root) and returns their ids in order. The
// clock moves 200 ms per message so the rate limit never bites.
func sendMany(t *testing.T, c *webtest.Client, clock *webtest.Clock, channelID, root string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		clock.Advance(200 * time.Millisecond)
		ids[i] = mustSend(t, c, &svcv1.SendMessageRequest{ChannelId: channelID, ThreadRootId: root, Text: fmt.Sprint("m", i)}).GetId()
	}
	return ids
}

func list(t *testing.T, c *webtest.Client, r *svcv1.ListMessagesRequest) *svcv1.ListMessagesResponse {
	t.Helper()
	res, err := c.Chat.ListMessages(ctx, req(r))
	if err != nil {
		t.Fatalf("ListMessages(%v): %v", r, err)
	}
	return res.Msg
}

func idsOf(ms []*svcv1.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.GetId()
	}
	return out
}

// TestPagingCoversEveryMessageInEveryDirection pages through 500 messages backwards (before_id),
// forwards (after_id) and around every 25th message, at several page sizes, and checks that the
// pages put together are exactly the sent list, with has_more and has_more_after exact.
func TestPagingCoversEveryMessageInEveryDirection(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	all := sendMany(t, alice, clock, ch.GetId(), "", 500)
	// Thread replies are not top-level messages: they must not show up in the channel's pages.
	replies := sendMany(t, alice, clock, ch.GetId(), all[10], 120)

	check := func(name string, full []string, root string) {
		for _, limit := range []int32{1, 7, 50, 200} {
			// Backwards from the newest.
			var got []string
			page := list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: root, Limit: limit})
			for {
				got = append(idsOf(page.GetMessages()), got...)
				if page.GetHasMoreAfter() {
					t.Fatalf("%s: has_more_after set on a before page", name)
				}
				if !page.GetHasMore() {
					break
				}
				page = list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: root, Limit: limit, BeforeId: page.GetMessages()[0].GetId()})
			}
			if !slices.Equal(got, full) {
				t.Fatalf("%s, limit %d, backwards: %d ids, want the %d sent in order", name, limit, len(got), len(full))
			}

			// Forwards from the oldest.
			got = []string{full[0]}
			page = list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: root, Limit: limit, AfterId: full[0]})
			for {
				got = append(got, idsOf(page.GetMessages())...)
				if !page.GetHasMore() {
					t.Fatalf("%s: has_more false on an after page, but the anchor is older", name)
				}
				if !page.GetHasMoreAfter() {
					break
				}
				page = list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: root, Limit: limit, AfterId: got[len(got)-1]})
			}
			if !slices.Equal(got, full) {
				t.Fatalf("%s, limit %d, forwards: %d ids, want the %d sent in order", name, limit, len(got), len(full))
			}

			// Around: the anchor, limit/2 older, the rest newer, clipped at both ends.
			for i := 0; i < len(full); i += 25 {
				page := list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: root, Limit: limit, AroundId: full[i]})
				lo := max(0, i-int(limit)/2)
				hi := min(len(full), lo+int(limit))
				want := full[lo:hi]
				if got := idsOf(page.GetMessages()); !slices.Equal(got, want) {
					t.Fatalf("%s, limit %d, around #%d: got %d ids from #%d, want #%d..#%d", name, limit, i, len(got), slices.Index(full, got[0]), lo, hi-1)
				}
				if page.GetHasMore() != (lo > 0) || page.GetHasMoreAfter() != (hi < len(full)) {
					t.Fatalf("%s, limit %d, around #%d: has_more %v has_more_after %v, want %v %v", name, limit, i, page.GetHasMore(), page.GetHasMoreAfter(), lo > 0, hi < len(full))
				}
			}
		}
	}
	check("channel", all, "")
	check("thread", replies, all[10])

	// The default page is the newest 50.
	page := list(t, alice, &svcv1.ListMessagesRequest{ChannelId: ch.GetId()})
	if got := idsOf(page.GetMessages()); !slices.Equal(got, all[450:]) || !page.GetHasMore() {
		t.Fatalf("default page: %d messages, has_more %v; want the newest 50 and has_more", len(got), page.GetHasMore())
	}
}

func TestListMessagesBadInput(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "hi"})
	reply := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "re", ThreadRootId: m.GetId()})
	hidden := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "psst"})

	for _, tc := range []struct {
		r    *svcv1.ListMessagesRequest
		code connect.Code
		want string
	}{
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), Limit: 201}, connect.CodeInvalidArgument, "limit must be 1 to 200; got 201"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), Limit: -1}, connect.CodeInvalidArgument, "limit must be 1 to 200; got -1"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), BeforeId: m.GetId(), AfterId: m.GetId()}, connect.CodeInvalidArgument, "at most one of before_id, after_id and around_id"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), AroundId: m.GetId(), AfterId: m.GetId()}, connect.CodeInvalidArgument, "at most one of before_id, after_id and around_id"},
		{&svcv1.ListMessagesRequest{ChannelId: "nope"}, connect.CodeNotFound, "channel nope does not exist"},
		{&svcv1.ListMessagesRequest{}, connect.CodeInvalidArgument, "channel_id is required"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), BeforeId: "nope"}, connect.CodeNotFound, "before_id nope"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), AfterId: reply.GetId()}, connect.CodeNotFound, "after_id " + reply.GetId()},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: reply.GetId()}, connect.CodeInvalidArgument, "is a reply, not a thread root"},
		{&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), AroundId: hidden.GetId()}, connect.CodeNotFound, "around_id"},
		{&svcv1.ListMessagesRequest{ChannelId: secret.GetId()}, connect.CodePermissionDenied, "you cannot see this channel"},
	} {
		_, err := bob.Chat.ListMessages(ctx, req(tc.r))
		if codeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ListMessages(%v) = %v, want %v %q", tc.r, err, tc.code, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ListMessages(%v) names the private channel: %v", tc.r, err)
		}
	}
}
