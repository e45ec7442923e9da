package engine

import (
	"crypto/sha256"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Fuzz targets of the engine's scanners of untrusted text, with seed corpora in
// testdata/fuzz. CI runs each with -fuzz for 30 s (.ci/run); `go test` runs the seeds.

var mentionID = regexp.MustCompile(`^[0-9a-f-]{36}$`)

// FuzzMessageText scans message text as SendMessage does: the mentions (`<@member_id>`) and the
// links of the markdown subset that get previews. Whatever the text, the scan ends, every
// mention is written in the text, and every link is a distinct http(s) URL of the text, at most
// five, with a fetch URL that has no credentials or fragment (nor an apostrophe in its host).
func FuzzMessageText(f *testing.F) {
	f.Add("hi <@0190a5f2-1c3e-7b4d-8e9f-a0b1c2d3e4f5> see https://example.com/a_(b).")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4*messageTextMax {
			return
		}
		_ = checkMessageText(text, false)
		ids := mentionedIDs(text)
		seen := map[string]bool{}
		for _, id := range ids {
			if !mentionID.MatchString(id) || seen[id] || !strings.Contains(strings.ToLower(text), "<@"+id+">") {
				t.Fatalf("mention %q of %q", id, text)
			}
			seen[id] = true
		}
		links := findLinks(text)
		if len(links) > previewLinksMax {
			t.Fatalf("%d links", len(links))
		}
		fetched := map[string]bool{}
		for _, l := range links {
			lower := strings.ToLower(l.written)
			if !strings.Contains(text, l.written) || len(l.written) > previewLinkMax ||
				!(strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) ||
				strings.ContainsAny(l.written, " \t\n<>\"`") {
				t.Fatalf("link %q of %q", l.written, text)
			}
			// An apostrophe may be in a path, query or fragment (Ender's_Game), never in a host.
			u, err := url.Parse(l.fetch)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Contains(u.Host, "'") || u.User != nil || u.Fragment != "" || fetched[l.fetch] {
				t.Fatalf("fetch URL %q of link %q: %v", l.fetch, l.written, err)
			}
			if again, ok := normalizeLink(l.fetch); !ok || again != l.fetch {
				t.Fatalf("the fetch URL %q normalizes again to %q", l.fetch, again)
			}
			if l.key != sha256.Sum256([]byte(l.fetch)) {
				t.Fatalf("key of %q", l.fetch)
			}
			fetched[l.fetch] = true
		}
	})
}

// FuzzChannelName checks channel names as CreateChannel does: a name either is refused or
// normalizes to lower-case words of letters, digits and underscores joined by single hyphens,
// at most 80 characters, and normalizing it again changes nothing. Shown names (checkShownText)
// are fuzzed alongside: what shownName makes of any text passes the check.
func FuzzChannelName(f *testing.F) {
	f.Add("Hello World!")
	f.Fuzz(func(t *testing.T, raw string) {
		name, err := channelName(raw)
		if err == nil {
			if name == "" || utf8.RuneCountInString(name) > channelNameMax || normalizeChannelName(name) != name ||
				strings.Contains(name, "--") || strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
				t.Fatalf("channelName(%q) = %q", raw, name)
			}
			for _, r := range name {
				if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
					t.Fatalf("channelName(%q) = %q holds %U", raw, name, r)
				}
			}
			if err := checkShownText("name", name, channelNameMax); err != nil {
				t.Fatalf("channelName(%q) = %q, which is not a shown name: %v", raw, name, err)
			}
		}
		if shown := shownName(raw, displayNameMax); shown != "" {
			if err := checkShownText("display_name", shown, displayNameMax); err != nil {
				t.Fatalf("shownName(%q) = %q: %v", raw, shown, err)
			}
		}
		if err := checkShownText("x", raw, 1000); err == nil && utf8.ValidString(raw) {
			for _, r := range raw {
				if refusedInName(r) != "" {
					t.Fatalf("checkShownText passed %q with %U", raw, r)
				}
			}
		}
	})
}
