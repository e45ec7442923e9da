package search

import (
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"
)

var plainWord = regexp.MustCompile(`^[A-Za-z0-9]{1,64}$`)

// FuzzSearchText runs message text, as any member writes it, through the analyzer and the
// query parser: nothing panics, every term is valid UTF-8 of 1 to MaxTermBytes bytes, a Doc's
// terms are sorted and distinct, and a plain word finds itself. Seeds in testdata/fuzz; CI runs
// it with -fuzz for 30 s (.ci/run).
func FuzzSearchText(f *testing.F) {
	f.Add("Café au lait :tada: <@0190a5f2-1c3e-7b4d-8e9f-a0b1c2d3e4f5> 東京都 \"a phrase\" pref")
	f.Fuzz(func(t *testing.T, text string) {
		if utf8.RuneCountInString(text) > 8000 {
			return
		}
		Tokens(text, func(term string, _ bool) {
			if term == "" || len(term) > MaxTermBytes || !utf8.ValidString(term) {
				t.Fatalf("term %q of %q", term, text)
			}
		})
		d := Analyze(text, []string{text})
		if !slices.IsSorted(d.Terms) || len(slices.Compact(slices.Clone(d.Terms))) != len(d.Terms) || len(d.Masks) != len(d.Terms) {
			t.Fatalf("the Doc of %q: %v", text, d.Terms)
		}
		if q, err := Parse(text); err == nil {
			q.Plan()
			q.Match(text, nil)
		}
		if plainWord.MatchString(text) {
			q, err := Parse(text)
			if err != nil || !q.Match(text, nil) {
				t.Fatalf("the word %q does not find itself: %v", text, err)
			}
		}
	})
}
