package web_test

import (
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Limits of API.md and docs/decisions.md at their boundaries, where the other tests check only
// one side of them or only one of the calls that take the field.

// TestReactionTakesTheLongestUnicodeEmoji: API.md has React take any unicode emoji, and the
// longest ones Unicode recommends (a kiss or a couple with two skin tones) are 35 bytes of UTF-8.
// The bound is 64 bytes, as for status_emoji; past it the refusal names the field and the limit.
func TestReactionTakesTheLongestUnicodeEmoji(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestEditMessageTextLimit: EditMessage holds text to 8,000 characters as SendMessage does,
// counted as characters: 8,000 four-byte emoji pass, 8,001 characters do not.
func TestEditMessageTextLimit(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	m := c.send(c.owner, c.channel("general").GetId(), "hi")
	res, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: strings.Repeat("\U0001F600", 8000)}))
	if err != nil || res.Msg.GetMessage().GetText() != strings.Repeat("\U0001F600", 8000) {
		t.Fatalf("editing to 8,000 emoji: %v", err)
	}
	_, err = c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: strings.Repeat("a", 8001)}))
	wantCode(t, "editing to 8,001 characters", err, connect.CodeInvalidArgument, "text is 8,001 characters; the limit is 8,000")
}

// TestProfileLimitsOnEveryCall: display_name, bio and avatar_url are set by Join, UpdateProfile
// and CreateBot, and each holds them to the same limits (64 and 1,024 characters, 2,048
// characters of URL); status_emoji is 64 bytes; a bot's username may be 32 characters.
func TestProfileLimitsOnEveryCall(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	url := "https://example.com/" + strings.Repeat("a", 2048-20)
	name := strings.Repeat("\U0001F600", 64) // 64 characters, 256 bytes
	bio := strings.Repeat("é", 1024)
	join := func(r *svcv1.JoinRequest) error {
		c.clock.Advance(6e9)
		_, err := c.s.Client(c.s.Token("newcomer")).Server.Join(ctx, req(r))
		return err
	}
	wantCode(t, "Join with a 2,049-character avatar_url", join(&svcv1.JoinRequest{AvatarUrl: url + "a"}), connect.CodeInvalidArgument, "avatar_url is 2,049 characters; the limit is 2,048")
	wantCode(t, "Join with a 65-character display_name", join(&svcv1.JoinRequest{DisplayName: name + "x"}), connect.CodeInvalidArgument, "display_name is 65 characters; the limit is 64")
	wantCode(t, "Join with a 1,025-character bio", join(&svcv1.JoinRequest{Bio: bio + "x"}), connect.CodeInvalidArgument, "bio is 1,025 characters; the limit is 1,024")
	wantCode(t, "Join at every limit", join(&svcv1.JoinRequest{AvatarUrl: url, DisplayName: name, Bio: bio}), 0)

	for _, tc := range []struct {
		what string
		r    *svcv1.UpdateProfileRequest
		code connect.Code
		want string
	}{
		{"a 2,049-character avatar_url", &svcv1.UpdateProfileRequest{AvatarUrl: ptr(url + "a")}, connect.CodeInvalidArgument, "avatar_url is 2,049 characters; the limit is 2,048"},
		{"a 65-byte status_emoji", &svcv1.UpdateProfileRequest{StatusEmoji: ptr(strings.Repeat("\U0001F600", 16) + "!")}, connect.CodeInvalidArgument, "status_emoji is 65 bytes; the limit is 64"},
		{"every limit", &svcv1.UpdateProfileRequest{AvatarUrl: ptr(url), DisplayName: ptr(name), StatusEmoji: ptr(strings.Repeat("\U0001F600", 16))}, 0, ""},
	} {
		_, err := c.owner.Server.UpdateProfile(ctx, req(tc.r))
		wantCode(t, "UpdateProfile with "+tc.what, err, tc.code, tc.want)
	}

	_, err := c.owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "robot", AvatarUrl: url + "a"}))
	wantCode(t, "CreateBot with a 2,049-character avatar_url", err, connect.CodeInvalidArgument, "avatar_url is 2,049 characters; the limit is 2,048")
	res, err := c.owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: strings.Repeat("r", 32), AvatarUrl: url, DisplayName: name, Bio: bio}))
	if err != nil || res.Msg.GetBot().GetUsername() != strings.Repeat("r", 32) {
		t.Fatalf("CreateBot at every limit: %v", err)
	}
}

// TestChannelTextLimitsOnEveryCall: topic (1,024 characters) and category (80) hold on
// CreateChannel and UpdateChannel alike, counted as characters.
func TestChannelTextLimitsOnEveryCall(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	topic, category := strings.Repeat("\U0001F600", 1024), strings.Repeat("é", 80)
	res, err := c.owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Topic: topic, Category: category}))
	if err != nil {
		t.Fatalf("CreateChannel at the limits: %v", err)
	}
	ch := res.Msg.GetChannel()
	_, err = c.owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "x", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Category: category + "x"}))
	wantCode(t, "CreateChannel with an 81-character category", err, connect.CodeInvalidArgument, "category is 81 characters; the limit is 80")
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Category: ptr(category + "x")}))
	wantCode(t, "UpdateChannel with an 81-character category", err, connect.CodeInvalidArgument, "category is 81 characters; the limit is 80")
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Topic: ptr(topic + "x")}))
	wantCode(t, "UpdateChannel with a 1,025-character topic", err, connect.CodeInvalidArgument, "topic is 1,025 characters; the limit is 1,024")
	_, err = c.owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Topic: ptr(topic), Category: ptr(category)}))
	wantCode(t, "UpdateChannel at the limits", err, 0)
}

// TestLimitsAtTheirBoundary: what the other tests refuse one past the limit is taken at it.
func TestLimitsAtTheirBoundary(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	m := c.send(c.owner, c.channel("general").GetId(), "hi")
	// AddChannelMembers: 50 ids.
	bob := c.join("bob")
	secret := mustChannel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = bob.Member.GetId()
	}
	_, err := c.owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: ids}))
	wantCode(t, "AddChannelMembers with 50 ids", err, 0)
	// Search: 1,000 characters (two bytes each) and 32 terms.
	_, err = c.owner.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: strings.Repeat("é", 1000)}))
	wantCode(t, "a query of 1,000 characters", err, 0)
	_, err = c.owner.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: strings.Repeat("a ", 32)}))
	wantCode(t, "a query of 32 terms", err, 0)
	// A :shortcode: of 62.
	_, err = c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":" + strings.Repeat("x", 62) + ":"}))
	wantCode(t, "a shortcode of 62", err, 0)
	// Settings: name 64 and description 4,000 characters (of four bytes), retention 36,500 days,
	// 10 join questions of 200 characters.
	questions := make([]string, 10)
	for i := range questions {
		questions[i] = strings.Repeat("q", 200)
	}
	_, err = c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{
		Name: ptr(strings.Repeat("\U0001F600", 64)), Description: ptr(strings.Repeat("\U0001F600", 4000)),
		RetentionDays: ptr(int32(36500)), SetJoinQuestions: true, JoinQuestions: questions,
	}))
	wantCode(t, "UpdateServerSettings at every limit", err, 0)
	// A role name of 32 characters; UpdateRole refuses 33 as CreateRole does.
	role, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: strings.Repeat("é", 32)}))
	if err != nil {
		t.Fatalf("a role name of 32 characters: %v", err)
	}
	_, err = c.owner.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: role.Msg.GetRole().GetId(), Name: ptr(strings.Repeat("é", 33))}))
	wantCode(t, "UpdateRole with a 33-character name", err, connect.CodeInvalidArgument, "name is 33 characters; the limit is 32")
}

// TestRoleCountLimit: a community has at most 250 custom roles; the 251st is refused naming
// the limit, and deleting one makes room.
func TestRoleCountLimit(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	var first string
	for i := range 250 {
		res, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: fmt.Sprintf("role %d", i)}))
		if err != nil {
			t.Fatalf("role %d: %v", i+1, err)
		}
		if i == 0 {
			first = res.Msg.GetRole().GetId()
		}
	}
	_, err := c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "one more"}))
	wantCode(t, "the 251st role", err, connect.CodeFailedPrecondition, "the community has 250 roles, the limit")
	if _, err := c.owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: first})); err != nil {
		t.Fatal(err)
	}
	_, err = c.owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "one more"}))
	wantCode(t, "a role once one was deleted", err, 0)
}

// TestEmojiAtTheLimits: an image of exactly 256,000 bytes and 512x512 pixels, named with 62
// characters, is added (a real one: an emoji must decode, not only show a valid header).
func TestEmojiAtTheLimits(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	img := paddedPNG(t, 512, 512, engine.EmojiMaxBytes)
	name := strings.Repeat("n", 62)
	got := mustAddEmoji(t, s, alice, filePart(name+".png", img))
	wantResults(t, got, []result{{name + ".png", name, added, ""}})
}

// TestEmojiBesideNamesRefuseOverrides: a status emoji is shown beside its member's name and a
// reaction beside others' names, so like the names they refuse control characters and the
// bidirectional override and isolate characters (a right to left override would turn what
// follows around on screen).
func TestEmojiBesideNamesRefuseOverrides(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	_, err := c.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{StatusEmoji: ptr("\U0001F600\u202e")}))
	wantCode(t, "UpdateProfile with an override in status_emoji", err, connect.CodeInvalidArgument, "status_emoji must not contain bidirectional override or isolate characters; found U+202E at character 2")
	_, err = c.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{StatusEmoji: ptr("\U0001F600\u0085")}))
	wantCode(t, "UpdateProfile with a control character in status_emoji", err, connect.CodeInvalidArgument, "status_emoji must not contain control characters; found U+0085 at character 2")

	ch := c.channel("general")
	m := c.send(c.owner, ch.GetId(), "react to me")
	for _, emoji := range []string{"\U0001F600\u2067", "\u202d\U0001F600"} {
		_, err = c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: emoji}))
		wantCode(t, "React with an override", err, connect.CodeInvalidArgument, "is neither a unicode emoji nor a :shortcode:")
	}
	res, err := c.owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "\U0001F600"}))
	if err != nil || len(res.Msg.GetMessage().GetReactions()) != 1 {
		t.Fatalf("React with a plain emoji: %v", err)
	}
	me, err := c.owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{StatusEmoji: ptr("\U0001F600")}))
	if err != nil || me.Msg.GetMember().GetStatusEmoji() != "\U0001F600" {
		t.Fatalf("UpdateProfile with a plain status_emoji: %v", err)
	}
}
