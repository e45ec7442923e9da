package web_test

import (
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// Limits of API.md and docs/decisions.md at their boundaries, where the other tests check only
// one side of them or only one of the calls that take the field.

// TestReactionTakesTheLongestUnicodeEmoji: API.md has React take any unicode emoji, and the
// longest ones Unicode recommends (a kiss or a couple with two skin tones) are 35 bytes of UTF-8.
// The bound is 64 bytes, as for status_emoji; past it the refusal names the field and the limit.
func TestReactionTakesTheLongestUnicodeEmoji(t *testing.T) {
	c := newCommunity(t)
	ch := c.channel("general")
	m := c.send(c.owner, ch.GetId(), "react to me")
	kiss := "\U0001F469\U0001F3FB\u200d\u2764\ufe0f\u200d\U0001F48B\u200d\U0001F468\U0001F3FC" // 👩🏻‍❤️‍💋‍👨🏼
	if len(kiss) != 35 {
		t.Fatalf("the kiss emoji is %d bytes", len(kiss))
	}
	for _, emoji := range []string{kiss, strings.Repeat("\U0001F600", 16)} {
		res, err := c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: emoji}))
		wantCode(t, "React with "+emoji, err, 0)
		if err == nil && res.Msg.GetMessage().GetReactions()[0].GetEmoji() != kiss {
			t.Errorf("reactions = %v, want the kiss first", res.Msg.GetMessage().GetReactions())
		}
	}
	_, err := c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: strings.Repeat("\U0001F600", 16) + "!"}))
	wantCode(t, "React with 65 bytes", err, connect.CodeInvalidArgument, "emoji is 65 bytes; the limit is 64")
}

// TestChannelNameAsTyped: a channel name is 1 to 80 characters once normalized; what is typed
// is bounded too (320 characters: four times as many), and the refusal says which of the two
// was passed, so that a name whose normalized form is short is not told "the limit is 320" as
// if that were the name's limit. The same holds for UpdateChannel.
func TestChannelNameAsTyped(t *testing.T) {
	c := newCommunity(t)
	ch := c.channel("general")
	typed := "a" + strings.Repeat(" ", 318) + "b"
	res, err := c.owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: typed, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil || res.Msg.GetChannel().GetName() != "a-b" {
		t.Fatalf("a name of 320 characters as typed: %v %v", res, err)
	}
	want := "name is 321 characters as typed; the limit is 320 as typed (80 once normalized)"
	_, err = c.owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: typed + " ", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	wantCode(t, "CreateChannel with 321 characters as typed", err, connect.CodeInvalidArgument, want)
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Name: ptr(typed + " ")}))
	wantCode(t, "UpdateChannel with 321 characters as typed", err, connect.CodeInvalidArgument, want)
	// 80 characters once normalized, counted as characters (two bytes each here), pass; 81 do not.
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Name: ptr(strings.Repeat("é", 80))}))
	wantCode(t, "UpdateChannel with 80 characters", err, 0)
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Name: ptr(strings.Repeat("é", 81))}))
	wantCode(t, "UpdateChannel with 81 characters", err, connect.CodeInvalidArgument, "name is 81 characters; the limit is 80")
}
