package engine

import (
	"strings"
	"testing"
)

func TestFindLinks(t *testing.T) {
	tests := []struct {
		text string
		want []string // written | fetched
	}{
		{"see https://example.com/a.", []string{"https://example.com/a|https://example.com/a"}},
		{"(see https://en.wikipedia.org/wiki/Go_(programming_language))", []string{"https://en.wikipedia.org/wiki/Go_(programming_language)|https://en.wikipedia.org/wiki/Go_(programming_language)"}},
		{"<https://example.com> and 'http://example.com:80/x?y=1#top'", []string{"https://example.com|https://example.com/", "http://example.com:80/x?y=1#top|http://example.com/x?y=1"}},
		{"HTTPS://Example.COM/Path and https://example.com/Path#frag", []string{"HTTPS://Example.COM/Path|https://example.com/Path"}},
		{"`https://code.example/x` **https://bold.example/y**", []string{"https://code.example/x|https://code.example/x", "https://bold.example/y|https://bold.example/y"}},
		{"https://[2001:db8::1]:8443/a https://[2001:db8::2]/b", []string{"https://[2001:db8::1]:8443/a|https://[2001:db8::1]:8443/a", "https://[2001:db8::2]/b|https://[2001:db8::2]/b"}},
		{"ftp://x.example/ mailto:a@b.c javascript:alert(1) www.example.com", nil},
		{"https://user:pw@example.com/ https:// http://:80/", nil},
		// A zone names one of the sender's interfaces: never a link to preview.
		{"http://[fe80::1%25eth0]/ http://[::%25\xa20] https://[2001:db8::3]/", []string{"https://[2001:db8::3]/|https://[2001:db8::3]/"}},
		{"xhttps://glued.example/ nothttp://x.example/", nil},
		{"https://a.example/?q=<b>", []string{"https://a.example/?q=|https://a.example/?q="}},
		// An apostrophe belongs to the URL; a quote around it does not.
		{"https://en.wikipedia.org/wiki/Ender's_Game, 'https://q.example/a' ('https://q.example/b').", []string{
			"https://en.wikipedia.org/wiki/Ender's_Game|https://en.wikipedia.org/wiki/Ender's_Game",
			"https://q.example/a|https://q.example/a",
			"https://q.example/b|https://q.example/b",
		}},
		{"https://example.com's docs, https://example.org:8443's too", []string{
			"https://example.com|https://example.com/",
			"https://example.org:8443|https://example.org:8443/",
		}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range findLinks(tt.text) {
			got = append(got, l.written+"|"+l.fetch)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("findLinks(%q)\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

func TestFindLinksKeepsTheFirstFiveDistinct(t *testing.T) {
	var b strings.Builder
	for i := range 8 {
		b.WriteString("https://example.com/" + string(rune('a'+i)) + " https://EXAMPLE.com/a#again ")
	}
	b.WriteString("https://example.com/" + strings.Repeat("x", previewLinkMax))
	got := findLinks(b.String())
	var paths []string
	for _, l := range got {
		paths = append(paths, l.fetch[len("https://example.com/"):])
	}
	if strings.Join(paths, "") != "abcde" {
		t.Fatalf("got %q", paths)
	}
	if got[0].key == got[1].key {
		t.Fatal("two links share a key")
	}
	if long := findLinks("https://example.com/" + strings.Repeat("x", previewLinkMax)); len(long) != 0 {
		t.Fatal("a link over the limit was kept")
	}
}
