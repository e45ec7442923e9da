package engine

import (
	"strings"
	"testing"
)

func TestEmojiName(t *testing.T) {
	for _, tc := range []struct{ file, name, err string }{
		{"party.png", "party", ""},
		{"Party Parrot.GIF", "party_parrot", ""},
		{"folder/sub/Thumbs-Up.webp", "thumbs-up", ""},
		{`C:\Users\me\wave.png`, "wave", ""},
		{"a.b.c.png", "a_b_c", ""},
		{"noext", "noext", ""},
		{"café.png", "caf_", ""},
		{"日本.png", "__", ""},
		{".png", "", "gives no emoji name"},
		{"dir/", "", "gives no emoji name"},
		{strings.Repeat("x", 62) + ".png", strings.Repeat("x", 62), ""},
		{strings.Repeat("x", 63) + ".png", strings.Repeat("x", 63), "63 characters long; the limit is 62"},
	} {
		name, err := EmojiName(tc.file)
		if name != tc.name || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("EmojiName(%q) = %q, %v; want %q, %q", tc.file, name, err, tc.name, tc.err)
		}
	}
}
