package main

import "testing"

// TestShortcodeTable: each name once, the first set's where both name different emoji, every
// emoji's names in the order the sets give them; the emoji in the order of their code points,
// the first as the distance from the one before (nothing for 1, 0 for an emoji that starts
// with the same one), the others in hex.
func TestShortcodeTable(t *testing.T) {
	slack := `{"1F44D":["+1","thumbsup"],"2764":"heart","1F44D-1F3FB":"+1::skin-tone-2","1F600":"grinning","23-FE0F-20E3":"hash"}`
	github := `{"1F600":["grinning","smiley_face"],"1F603":"smiley","2665":"heart","1F44E":["-1","thumbsdown"]}`
	got, err := shortcodeTable([][]byte{[]byte(slack), []byte(github)})
	if err == nil {
		t.Fatalf("a name with a colon was taken: %q", got)
	}
	slack = `{"1F44D":["+1","thumbsup"],"2764":"heart","1F44D-1F3FB":"+1_tone1","1F600":"grinning","23-FE0F-20E3":"hash"}`
	got, err = shortcodeTable([][]byte{[]byte(slack), []byte(github)})
	if err != nil {
		t.Fatal(err)
	}
	want := "23-fe0f-20e3 hash\n" + // 0x23 from 0
		"2741 heart\n" + // 0x2764 - 0x23; GitHub's heart (2665) was Slack's already
		"1cce9 +1 thumbsup\n" + // 0x1F44D - 0x2764
		"0-1f3fb +1_tone1\n" + // the same first code point
		" -1 thumbsdown\n" + // 0x1F44E: the next one
		"1b2 grinning smiley_face\n" + // 0x1F600
		"3 smiley\n"
	if got != want {
		t.Errorf("shortcodeTable =\n%s\nwant\n%s", got, want)
	}
	if _, err := shortcodeTable([][]byte{[]byte(`["not", "an object"]`)}); err == nil {
		t.Error("a set that is not an object was read")
	}
}
