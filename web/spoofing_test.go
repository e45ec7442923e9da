package web_test

import (
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestNamesThatSpoofAreRefused: a display name "Eve\u202enimda" rendered as "Eveadmin", and
// NUL, ESC and zero-width-only names were stored. Every text shown to others as a name now
// refuses control characters (C0 and C1), the bidirectional override and isolate characters,
// and values made only of spaces or invisible characters, naming the field.
func TestNamesThatSpoofAreRefused(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	// Each refused Join counts toward its address's 10 a minute: each comes from its own.
	s.SetTrustedProxies("127.0.0.1/32")
	joins := 0
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	bad := []struct{ what, value, says string }{
		{"a right-to-left override", "Eve\u202enimda", "must not contain bidirectional override or isolate characters; found U+202E at character 4"},
		{"a left-to-right embedding", "\u202aadmin", "bidirectional override or isolate characters; found U+202A"},
		{"a first strong isolate", "a\u2068b", "bidirectional override or isolate characters; found U+2068"},
		{"a NUL", "ali\x00ce", "must not contain control characters; found U+0000 at character 4"},
		{"an escape sequence", "\x1b[31mred", "control characters; found U+001B"},
		{"a newline", "two\nlines", "control characters; found U+000A"},
		{"a C1 control", "next\u0085line", "control characters; found U+0085"},
		{"only zero-width spaces", "\u200b\u200b\u200b", "must contain a visible character"},
		{"only spaces", "   ", "must contain a visible character"},
		{"only a Hangul filler", "\u3164", "must contain a visible character"},
	}
	fields := []struct {
		field string
		call  func(v string) error
	}{
		{"display_name", func(v string) error {
			_, err := owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{DisplayName: &v}))
			return err
		}},
		{"status_text", func(v string) error {
			_, err := owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{StatusText: &v}))
			return err
		}},
		{"name", func(v string) error { // a role's
			_, err := owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: v}))
			return err
		}},
		{"name", func(v string) error { // a channel's
			_, err := owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: v, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
			return err
		}},
		{"name", func(v string) error { // a channel's, renamed
			_, err := owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Name: &v}))
			return err
		}},
		{"topic", func(v string) error {
			_, err := owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Topic: &v}))
			return err
		}},
		{"category", func(v string) error {
			_, err := owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "c", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Category: v}))
			return err
		}},
		{"name", func(v string) error { // the community's
			_, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: &v}))
			return err
		}},
		{"display_name", func(v string) error { // a bot's
			_, err := owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "robot", DisplayName: v}))
			return err
		}},
		{"display_name", func(v string) error { // chosen at Join
			joins++
			c := s.Client(s.Token("newcomer"), withHeader("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", joins)))
			_, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: v}))
			return err
		}},
	}
	for i, f := range fields {
		for _, b := range bad {
			says := b.says
			if i == 2 && b.value == "   " {
				says = "name must be 1 to 32 characters; it is empty" // role names are trimmed first
			}
			wantCode(t, f.field+" with "+b.what, f.call(b.value), connect.CodeInvalidArgument, f.field+" ", says)
		}
	}
	// A name made only of invisible characters, where "x" was prefixed above.
	for _, v := range []string{"\u200b\u200b", "\u2800", "\ufe0f"} {
		_, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: &v}))
		wantCode(t, "a community name of invisible characters", err, connect.CodeInvalidArgument, "name must contain a visible character")
		_, err = owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: v}))
		wantCode(t, "a role name of invisible characters", err, connect.CodeInvalidArgument, "name must contain a visible character")
	}
	// A channel name keeps the letters of its words; a Hangul filler is a letter that shows
	// nothing (found by FuzzChannelName).
	_, err := owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "\u3164!", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	wantCode(t, "a channel name of a Hangul filler and punctuation", err, connect.CodeInvalidArgument, "name must contain a letter or a digit")
	info, err := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || info.Msg.GetName() != "Hearth" {
		t.Fatalf("the community's name after the refusals: %v %v", info, err)
	}

	// What is fine stays fine: letters of any script, emoji with their joiners and selectors,
	// inner spaces; message text keeps newlines and tabs.
	for _, v := range []string{"Zoë Ångström", "日本語", "👩‍💻 dev", "❤️", "عربي"} {
		_, err := owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{DisplayName: &v}))
		wantOK(t, "display name "+v, err)
	}
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "line one\n\tline two"})
	if m.GetText() != "line one\n\tline two" {
		t.Fatalf("message text = %q", m.GetText())
	}
}

// TestDisplayNameClaimsAreCleaned: the name claim of a token is the issuer's text, not the
// caller's, so Join does not refuse it; what may not be shown is dropped, and a claim with
// nothing visible left gives way to the username.
func TestDisplayNameClaimsAreCleaned(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("owner")
	for _, tc := range []struct{ sub, claim, want string }{
		{"eve", "Eve\u202enimda", "Evenimda"},
		{"nul", "Nu\x00ll\x1b[0m", "Null[0m"},
		{"ghost", "\u200b \u200b", "ghost"},
	} {
		tok, err := s.Issuer.Mint(tc.sub, tc.claim, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Client(tok).Server.Join(ctx, req(&svcv1.JoinRequest{}))
		if err != nil || res.Msg.GetMember().GetDisplayName() != tc.want {
			t.Fatalf("join with the name claim %q: %v %v; want display name %q", tc.claim, res, err, tc.want)
		}
	}
}
