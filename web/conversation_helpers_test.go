package web_test

import (
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Helpers of the tests of replies, pins, group mentions, polls and search filters.

// eventMessage is the message of a message event, nil for other events.
func eventMessage(ev *svcv1.Event) *svcv1.Message {
	switch {
	case ev.GetMessageCreated() != nil:
		return ev.GetMessageCreated()
	case ev.GetMessageUpdated() != nil:
		return ev.GetMessageUpdated()
	}
	return ev.GetMessageDeleted()
}

// nextUpdate is the message of the next event on st, which must be a message_updated.
func nextUpdate(t *testing.T, st *webtest.Stream) *svcv1.Message {
	t.Helper()
	ev := st.Next()
	if ev.GetMessageUpdated() == nil {
		t.Fatalf("got %s, want message_updated", kind(ev))
	}
	return ev.GetMessageUpdated()
}

// listed lists a channel's newest top-level messages.
func listedMessages(t *testing.T, c *webtest.Client, channelID string) []*svcv1.Message {
	t.Helper()
	res, err := c.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: channelID}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetMessages()
}

// listedMessage is one message as ListMessages shows it now.
func listedMessage(t *testing.T, c *webtest.Client, m *svcv1.Message) *svcv1.Message {
	t.Helper()
	r := &svcv1.ListMessagesRequest{ChannelId: m.GetChannelId(), AroundId: m.GetId(), Limit: 1, ThreadRootId: m.GetThreadRootId()}
	res, err := c.Chat.ListMessages(ctx, req(r))
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range res.Msg.GetMessages() {
		if got.GetId() == m.GetId() {
			return got
		}
	}
	t.Fatalf("ListMessages around %s did not return it", m.GetId())
	return nil
}

// mentionsOf is a member's mention_count in a channel.
func mentionsOf(t *testing.T, c *webtest.Client, channelID string) int32 {
	t.Helper()
	return readStateOf(t, c, channelID).GetMentionCount()
}

// quiet checks that do sends nothing to the streams (the marker of between aside).
func quiet(t *testing.T, what string, by *webtest.Client, do func(), streams ...*webtest.Stream) {
	t.Helper()
	for i, got := range between(t, by, do, streams...) {
		if len(got) > 0 {
			t.Errorf("%s: stream %d got %v, want nothing", what, i, got)
		}
	}
}
