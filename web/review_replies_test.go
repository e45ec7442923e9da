package web_test

import (
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestReplyToAHiddenMessageIsUnknown: a reply_to_id naming a message of a channel the sender
// cannot see (a private channel they are not in) is refused exactly as an id that does not
// exist, so that the refusal does not tell the message is there; one of a channel they see,
// but not this one, is invalid_argument.
func TestReplyToAHiddenMessageIsUnknown(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner, bob := s.Join("owner"), s.Join("bob")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	random := mustChannel(t, owner, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	hidden := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "only the owner sees this"})
	elsewhere := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "in random"})

	refusal := func(replyTo string) (connect.Code, string) {
		t.Helper()
		_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "re", ReplyToId: replyTo}))
		if err == nil {
			t.Fatalf("a reply to %s went through", replyTo)
		}
		msg := connect.CodeOf(err).String() + ": " + err.(*connect.Error).Message()
		return connect.CodeOf(err), strings.ReplaceAll(msg, replyTo, "ID")
	}
	unknownCode, unknown := refusal("01a2505a-0000-7000-8000-000000000000")
	hiddenCode, hiddenMsg := refusal(hidden.GetId())
	if unknownCode != connect.CodeNotFound || hiddenCode != unknownCode || hiddenMsg != unknown {
		t.Fatalf("a reply to a hidden message: %q; to an unknown id: %q; want the same not_found", hiddenMsg, unknown)
	}
	if code, msg := refusal(elsewhere.GetId()); code != connect.CodeInvalidArgument || !strings.Contains(msg, "another channel") {
		t.Fatalf("a reply to a message of another channel bob sees: %s", msg)
	}
}
