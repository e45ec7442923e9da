package engine

import "testing"

func TestNormalizeChannelName(t *testing.T) {
	for in, want := range map[string]string{
		"Hello World!":       "hello-world",
		"  general  ":        "general",
		"off_topic":          "off_topic",
		"Q&A / Help":         "q-a-help",
		"Été à Paris":        "été-à-paris",
		"日本語 チャンネル":          "日本語-チャンネル",
		"---":                "",
		"release 2.0 notes!": "release-2-0-notes",
	} {
		if got := normalizeChannelName(in); got != want {
			t.Errorf("normalizeChannelName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUsernames(t *testing.T) {
	for in, want := range map[string]string{
		"Alice":                              "alice",
		"Zoë Smith":                          "zo_smith",
		"bob.builder-2":                      "bob.builder-2",
		"x":                                  "member",
		"__":                                 "member",
		"averyveryverylongname_that_goes_on": "averyveryverylongname_that_goes",
	} {
		if got := normalizeUsername(in); got != want {
			t.Errorf("normalizeUsername(%q) = %q, want %q", in, got, want)
		}
	}
	taken := map[string]bool{"alice": true, "alice2": true, "abcdefghijklmnopqrstuvwxyz012345": true}
	if got := uniqueUsername("alice", func(s string) bool { return taken[s] }); got != "alice3" {
		t.Errorf("uniqueUsername(alice) = %q", got)
	}
	if got := uniqueUsername("abcdefghijklmnopqrstuvwxyz012345", func(s string) bool { return taken[s] }); got != "abcdefghijklmnopqrstuvwxyz012342" {
		t.Errorf("uniqueUsername of a 32-character name = %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 8001: "8,001", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
