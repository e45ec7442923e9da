package web_test

import (
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestTypingInAThreadOfADeletedRootIsRefused: a deleted root takes no replies, so nobody is
// told that someone types one: SetTyping there is failed_precondition, as the reply would be,
// and no typing event reaches the channel.
func TestTypingInAThreadOfADeletedRootIsRefused(t *testing.T) {
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
