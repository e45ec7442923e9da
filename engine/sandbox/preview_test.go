package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"hearth/engine/sandbox/internal/pagetest"
)

// The extraction itself is tested natively in the guest's package; these run it as wasm.
func TestPreviewInTheGuest(t *testing.T) {
	s := sharedSandbox(t)
	got, err := s.Preview(context.Background(), Page{
		URL:         "https://news.example.com/a/b",
		ContentType: "text/html; charset=utf-8",
		Body:        []byte(pagetest.Typical()),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Preview{
		Title:       "An article about something",
		Description: `A longer summary of the article, which says what it is about in a sentence or two, with an & and a quote "here".`,
		SiteName:    "Example News",
		Image:       "https://news.example.com/images/2026/11/cover.jpg",
	}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// The header's charset, passed to the guest.
	got, err = s.Preview(context.Background(), Page{URL: "http://x.example/", ContentType: "text/html; charset=windows-1252", Body: []byte("<title>\x93hi\x94</title>")})
	if err != nil || got.Title != "\u201chi\u201d" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// Every hostile page ends in an answer within the limits or, when it takes the guest over
// its time or memory (2 s, 32 MiB), in ErrUnreadable: "no preview", never a failure of the
// server. Which of the two depends on the machine's speed.
func TestPreviewHostilePages(t *testing.T) {
	s := sharedSandbox(t)
	for name, page := range pagetest.Hostile() {
		t.Run(name, func(t *testing.T) {
			// Each page is seconds of a guest's work; the sandbox runs as many at once as it has
			// cores, and a page that runs out of time is as good an outcome as any.
			t.Parallel()
			got, err := s.Preview(context.Background(), Page{URL: "https://example.com/", ContentType: "text/html", Body: page})
			if errors.Is(err, ErrUnreadable) {
				return
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			if utf8.RuneCountInString(got.Title) > MaxTitle || utf8.RuneCountInString(got.Description) > MaxDescription {
				t.Fatalf("over the limits: %d, %d characters", utf8.RuneCountInString(got.Title), utf8.RuneCountInString(got.Description))
			}
		})
	}
}

func TestPreviewReadsOnlyTheFirstMegabyte(t *testing.T) {
	// A megabyte is a long read for the guest: a deadline it cannot reach even on a busy
	// machine under the race detector, so that the test is about what is read, not how fast.
	s := newSandbox(t, Options{Timeout: time.Minute})
	page := "<head>" + strings.Repeat(" ", MaxPageBody) + "<title>too late</title>"
	got, err := s.Preview(context.Background(), Page{URL: "https://example.com/", ContentType: "text/html", Body: []byte(page)})
	if err != nil || got != (Preview{}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestPreviewRefusesBadPageURLs(t *testing.T) {
	s := sharedSandbox(t)
	_, err := s.Preview(context.Background(), Page{URL: "https://example.com/\ninspect", Body: []byte("<title>x</title>")})
	if err == nil || errors.Is(err, ErrUnreadable) {
		t.Fatalf("got %v", err)
	}
	// A content type with a line break is dropped, not passed on.
	got, err := s.Preview(context.Background(), Page{URL: "https://example.com/", ContentType: "text/html\nx", Body: []byte("<title>x</title>")})
	if err != nil || got.Title != "x" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestValidImageURL(t *testing.T) {
	for s, ok := range map[string]bool{
		"https://example.com/a.png":      true,
		"http://example.com:8080/a?b=c":  true,
		"javascript:alert(1)":            false,
		"https://u:p@example.com/a.png":  false,
		"https://example.com/a.png#frag": false,
		"/relative.png":                  false,
		"https://example.com/\x00":       false,
		"https://example.com/" + "\xff":  false,
	} {
		if validImageURL(s) != ok {
			t.Errorf("validImageURL(%q) = %v", s, !ok)
		}
	}
}

// BenchmarkPreview is the cost of one page's extraction in the guest, a fresh instance
// included (the pool keeps one ready between calls).
func BenchmarkPreview(b *testing.B) {
	s := sharedSandbox(b)
	page := Page{URL: "https://news.example.com/a", ContentType: "text/html; charset=utf-8", Body: []byte(pagetest.Typical())}
	b.SetBytes(int64(len(page.Body)))
	for b.Loop() {
		if _, err := s.Preview(context.Background(), page); err != nil {
			b.Fatal(err)
		}
	}
}
