package app_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// family is one emoji of 7 code points (4 people joined by ZWJ), 11 UTF-16 units, 25 bytes.
const family = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"

// charsEntry exposes lib/chars, the client's counting of the server's text limits.
const charsEntry = `
import { chars, utf8Bytes, measure, excess, limitError, LIMITS } from "./src/lib/chars";
globalThis.chars = { chars, utf8Bytes, measure, excess, limitError, LIMITS };
`

// TestUnitsCharsCountAsTheServer: the client counts characters as the server does (Go's
// utf8.RuneCountInString: code points, so an emoji is one, not the two UTF-16 units of
// .length) and bytes as UTF-8, and says what is too many in the server's terms.
func TestUnitsCharsCountAsTheServer(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, charsEntry)
	samples := []string{
		"",
		"plain ASCII",
		"Zoë, Ærøskøbing",       // two-byte letters
		"日本語のチャンネル",             // three-byte letters
		"🔥",                     // one emoji: 2 UTF-16 units, 4 bytes
		strings.Repeat("🌻", 40), // the audit's display name: 80 UTF-16 units
		family,                  // a family: 7 code points joined by ZWJ
		"\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", // a subdivision flag: tag characters
		"🇳🇴🇯🇵",                                  // two flags of regional indicators
		"e\u0301 combining",                     // a combining accent is a code point of its own
		"\U0001F44D\U0001F3FD with a skin tone", // a modifier is a code point of its own
		"\U0001D54F\U0001D552\U0001D55E\n",      // mathematical letters, astral
		"\u200b\ufeff",                          // invisible, still counted
	}
	for _, s := range samples {
		got := eval[[]int](p, fmt.Sprintf(`[chars.chars(%[1]s), chars.utf8Bytes(%[1]s), %[1]s.length]`, js(s)))
		if want := utf8.RuneCountInString(s); got[0] != want {
			t.Errorf("chars(%q) = %d, want %d (UTF-16 length %d)", s, got[0], want, got[2])
		}
		if got[1] != len(s) {
			t.Errorf("utf8Bytes(%q) = %d, want %d", s, got[1], len(s))
		}
	}
	// A lone surrogate (only JavaScript strings have them) goes on the wire as U+FFFD: one
	// character of 3 bytes, as TextEncoder (the wire's encoder) makes it.
	if got := eval[[]int](p, `["\ud83d", "a\udc00b", "\udc00\ud83d"].flatMap(s => [chars.chars(s), chars.utf8Bytes(s), new TextEncoder().encode(s).length])`); fmt.Sprint(got) != "[1 3 3 3 5 5 2 6 6]" {
		t.Errorf("lone surrogates: [chars, bytes, TextEncoder bytes] = %v", got)
	}

	// The limits: within, at and past, in the server's unit and words.
	for _, c := range []struct {
		value, limit string
		excess       int
		message      string
	}{
		{strings.Repeat("🌻", 40), "displayName", 0, ""},
		{strings.Repeat("🌻", 64), "displayName", 0, ""},
		{strings.Repeat("🌻", 65), "displayName", 1, "1 character too many: a display name is at most 64."},
		{strings.Repeat("é", 4003), "description", 3, "3 characters too many: a description is at most 4,000."},
		{strings.Repeat("🔥", 16), "statusEmoji", 0, ""},                                                           // 64 bytes
		{strings.Repeat("🔥", 16) + "!", "statusEmoji", 1, "1 byte too many: a status emoji is at most 64 bytes."}, // 65
		{strings.Repeat(family, 3), "statusEmoji", 11, "11 bytes too many: a status emoji is at most 64 bytes."},  // 3 × 25
		{strings.Repeat("x", 8000), "messageText", 0, ""},
		{strings.Repeat("💬", 8001), "messageText", 1, "1 character too many: a message is at most 8,000."},
	} {
		got := eval[[]any](p, fmt.Sprintf(`[chars.excess(%[1]s, chars.LIMITS[%[2]s]), chars.limitError(%[1]s, chars.LIMITS[%[2]s])]`, js(c.value), js(c.limit)))
		if int(got[0].(float64)) != c.excess || got[1] != c.message {
			t.Errorf("%s of %d characters, %d bytes: excess %v, %q; want %d, %q", c.limit, utf8.RuneCountInString(c.value), len(c.value), got[0], got[1], c.excess, c.message)
		}
	}
	// The server's limits (docs/decisions.md, "Limits we chose"; engine/names.go), in its units.
	want := map[string]string{
		"displayName": "64 characters", "username": "32 characters", "bio": "1024 characters", "statusText": "128 characters",
		"statusEmoji": "64 bytes", "communityName": "64 characters", "description": "4000 characters", "joinQuestion": "200 characters",
		"joinAnswer": "1000 characters", "inviteCode": "64 characters", "channelName": "320 characters", "channelTopic": "1024 characters",
		"channelCategory": "80 characters", "roleName": "32 characters", "messageText": "8000 characters", "reportNote": "1000 characters",
		"searchQuery": "1000 characters", "pluginSource": "256000 bytes",
		// engine/audit.go (reasons) and engine/filters.go (blocked words).
		"reason": "500 characters", "blockedWord": "50 characters",
	}
	got := eval[map[string]string](p, `Object.fromEntries(Object.entries(chars.LIMITS).map(([k, l]) => [k, l.max + " " + l.unit]))`)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("limits:\n got %v\nwant %v", got, want)
	}
}
