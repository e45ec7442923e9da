package web_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestTypingInAThreadOfADeletedRootIsRefused: a deleted root takes no replies, so nobody is
// told that someone types one: SetTyping there is failed_precondition, as the reply would be,
// and no typing event reaches the channel.
func TestTypingInAThreadOfADeletedRootIsRefused(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	root := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "a thread"})
	_, err := alice.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: root.GetId()}))
	wantOK(t, "delete the root", err)
	watch := alice.Subscribe(t, s.Engine.Seq())
	watch.Ephemeral = true
	_, err = bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), ThreadRootId: root.GetId(), Text: "late"}))
	wantCode(t, "a reply to the deleted root", err, connect.CodeFailedPrecondition, "deleted")
	_, err = bob.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId(), ThreadRootId: root.GetId()}))
	wantCode(t, "typing in the thread of the deleted root", err, connect.CodeFailedPrecondition, "thread_root_id", "deleted")
	// Typing in the channel itself still goes out: the stream shows the one and not the other.
	_, err = bob.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId()}))
	wantOK(t, "typing in the channel", err)
	mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "done"})
	var typing []*svcv1.TypingEvent
	for _, ev := range watch.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated() != nil }) {
		if tp := ev.GetTyping(); tp != nil {
			typing = append(typing, tp)
		}
	}
	if len(typing) != 1 || typing[0].GetThreadRootId() != "" {
		t.Fatalf("alice got typing %v, want one, in the channel", typing)
	}
}

// TestUnknownThreadIDsAreNotEchoedInFull: an id that names no message is quoted in the error
// cut to 64 characters (as SetTyping does), not sent back whole, however long the request made it.
func TestUnknownThreadIDsAreNotEchoedInFull(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "one"})
	long := strings.Repeat("z", 200_000)
	for _, tc := range []struct {
		what string
		call func() error
	}{
		{"SendMessage thread_root_id", func() error {
			_, err := alice.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), ThreadRootId: long, Text: "x"}))
			return err
		}},
		{"ListMessages thread_root_id", func() error {
			_, err := alice.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), ThreadRootId: long}))
			return err
		}},
		{"ListMessages before_id", func() error {
			_, err := alice.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), BeforeId: long}))
			return err
		}},
		{"ListMessages around_id", func() error {
			_, err := alice.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), AroundId: long}))
			return err
		}},
	} {
		err := tc.call()
		wantCode(t, tc.what, err, connect.CodeNotFound, strings.Repeat("z", 64))
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("%s: the error is %d bytes long: %.120s...", tc.what, len(err.Error()), err.Error())
		}
	}
}

// TestErrorMessagesAreBounded: whatever a call quotes of its request in an error, the message
// stays under 1 KiB, cut on a character boundary and marked (a channel id of 200,000 "é"s came
// back whole before).
func TestErrorMessagesAreBounded(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	long := strings.Repeat("é", 200_000)
	for _, tc := range []struct {
		what string
		call func() error
	}{
		{"JoinChannel channel_id", func() error {
			_, err := alice.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: long}))
			return err
		}},
		{"SendMessage channel_id", func() error {
			_, err := alice.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: long, Text: "x"}))
			return err
		}},
		{"EditMessage id", func() error {
			_, err := alice.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: long, Text: "x"}))
			return err
		}},
	} {
		err := tc.call()
		wantCode(t, tc.what, err, connect.CodeNotFound, "é… (cut)")
		var ce *connect.Error
		if errors.As(err, &ce) && (len(ce.Message()) > 1024 || !utf8.ValidString(ce.Message())) {
			t.Errorf("%s: the message is %d bytes (valid UTF-8: %v)", tc.what, len(ce.Message()), utf8.ValidString(ce.Message()))
		}
	}
}
