package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// TestParseFilters: filter words go to the Filter (keys in any case, once each), the rest is
// text; bad values and repeats are FilterErrors naming the word.
func TestParseFilters(t *testing.T) {
	day := func(s string) int64 {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return d.UnixMilli()
	}
	for _, tc := range []struct {
		q      string
		want   Filter
		phrase int
		err    string
	}{
		{q: "from:Maria", want: Filter{From: "maria"}},
		{q: "FROM:@maria lunch", want: Filter{From: "maria"}, phrase: 1},
		{q: "in:#General", want: Filter{In: "general"}},
		{q: "has:file has:Image has:LINK", want: Filter{HasFile: true, HasImage: true, HasLink: true}},
		{q: "is:pinned mentions:me", want: Filter{Pinned: true, MentionsMe: true}},
		{q: "before:2026-11-02", want: Filter{BeforeMs: day("2026-11-02")}},
		{q: "after:2026-11-02", want: Filter{AfterMs: day("2026-11-03")}},
		{q: "foo:bar", phrase: 1},
		{q: `"from:maria"`, phrase: 1}, // quoted: text
		{q: "from:a from:b", err: `"from:" may be used once`},
		{q: "has:file has:file", err: `"has:" may be used once`},
		{q: "has:video", err: `"has:video": has: takes file, image or link`},
		{q: "is:open", err: "is: takes pinned"},
		{q: "mentions:you", err: "mentions: takes me"},
		{q: "before:2026-02-30", err: `"before:2026-02-30" is not a date`},
		{q: "after:", err: `"after:" needs a value`},
		{q: "in:", err: `"in:" needs a value`},
	} {
		q, err := Parse(tc.q)
		var fe *FilterError
		switch {
		case tc.err != "":
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want a FilterError saying %q", tc.q, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.q, err)
		case q.Filter != tc.want || len(q.Phrases) != tc.phrase:
			t.Errorf("%q: filter %+v and %d phrases, want %+v and %d", tc.q, q.Filter, len(q.Phrases), tc.want, tc.phrase)
		}
	}
	if _, err := Parse("  "); !errors.Is(err, ErrNoWords) {
		t.Errorf("no words and no filters: %v", err)
	}
	// The word before a filter was typed whole: no prefix.
	q, err := Parse("lun from:x")
	if err != nil || q.Phrases[0][0].Prefix {
		t.Errorf("a word before a filter is a prefix: %+v %v", q, err)
	}
}

// TestFilterTerms: what a message is indexed under besides its words.
func TestFilterTerms(t *testing.T) {
	me, you := "0190f0a0-0000-7000-8000-000000000001", "0190f0a0-0000-7000-8000-000000000002"
	m := &svcv1.Message{AuthorId: me, ChannelId: "c", Text: "see https://x.example/a <@" + strings.ToUpper(you) + ">",
		Attachments: []*svcv1.Attachment{{Name: "a.png", ContentType: "image/png"}}, PinnedAtMs: 1,
		ReplyTo: &svcv1.MessageRef{AuthorId: you}, MentionsEveryone: true, MentionsHere: true}
	want := []string{AuthorTerm(me), ChannelTerm("c"), MentionTerm(you), everyoneTerm, fileTerm, hereTerm, imageTerm, linkTerm, pinnedTerm}
	slices.Sort(want)
	if got := filterTerms(m); !slices.Equal(got, want) {
		t.Fatalf("filterTerms = %q, want %q", got, want)
	}
	// A reply to one's own message mentions nobody; text without links or files has none.
	m = &svcv1.Message{AuthorId: me, ChannelId: "c", Text: "http: no link", ReplyTo: &svcv1.MessageRef{AuthorId: me}}
	if got := filterTerms(m); !slices.Equal(got, []string{AuthorTerm(me), ChannelTerm("c")}) {
		t.Fatalf("filterTerms = %q", got)
	}
}

// TestDaysAgainstModel: filter terms and day ranges, found by the lists and by the ops still in
// memory together, against a brute-force model, newest first.
func TestDaysAgainstModel(t *testing.T) {
	db, ix := openHeldIndex(t)
	rng := rand.New(rand.NewPCG(4, 5))
	type doc struct {
		at    int64
		ch    string
		terms []string
	}
	docs := map[int64]doc{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	at := start
	var staged []Staged
	b := db.NewBatch()
	for n := int64(1); n <= 3000; n++ {
		// Time only grows along the documents, by up to 5 hours: some days have none.
		at += rng.Int64N(5 * 3600_000)
		d := doc{at: at, ch: fmt.Sprintf("c%d", rng.IntN(5))}
		d.terms = []string{ChannelTerm(d.ch), AuthorTerm(fmt.Sprintf("m%d", rng.IntN(4)))}
		if rng.IntN(3) == 0 {
			d.terms = append(d.terms, "word")
		}
		if rng.IntN(10) == 0 {
			d.terms = append(d.terms, pinnedTerm)
		}
		slices.Sort(d.terms)
		docs[n] = d
		s, err := ix.Stage(b, &storepb.SearchOp{Doc: n, ChannelId: d.ch, Terms: d.terms, AtMs: d.at})
		if err != nil {
			t.Fatal(err)
		}
		staged = append(staged, s)
		// The last ones stay in memory.
		if n%500 == 0 || n == 2900 || n == 3000 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			b.Discard()
			b = db.NewBatch()
			ix.Committed(staged)
			staged = nil
			if n <= 2900 {
				if err := ix.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	b.Discard()
	if ix.Pending() == 0 {
		t.Fatal("nothing waits in memory")
	}
	for i := range 300 {
		f := Filter{}
		if rng.IntN(2) == 0 {
			f.AfterMs = start + rng.Int64N(at-start)
			if rng.IntN(2) == 0 {
				f.AfterMs -= f.AfterMs % dayMs
			}
		}
		if rng.IntN(2) == 0 {
			f.BeforeMs = start + rng.Int64N(at-start+dayMs)
			if rng.IntN(2) == 0 {
				f.BeforeMs -= f.BeforeMs % dayMs
			}
		}
		if rng.IntN(3) == 0 {
			f.AuthorID = fmt.Sprintf("m%d", rng.IntN(4))
		}
		if rng.IntN(4) == 0 {
			f.Pinned = true
		}
		q := &Query{Filter: f}
		if rng.IntN(3) == 0 {
			q.Phrases = []Phrase{{{Term: "word"}}}
		}
		visible := func(ch string) bool { return ch != "c3" }
		var want []int64
		for n := int64(3000); n >= 1; n-- {
			d := docs[n]
			if !visible(d.ch) || !f.inTime(d.at) || !slices.Contains(d.terms, AuthorTerm(f.AuthorID)) && f.AuthorID != "" ||
				f.Pinned && !slices.Contains(d.terms, pinnedTerm) || len(q.Phrases) > 0 && !slices.Contains(d.terms, "word") {
				continue
			}
			want = append(want, n)
		}
		var got []int64
		err := ix.Candidates(context.Background(), q, visible, func(doc int64, _ string) bool {
			// The lists may propose a document of a day that starts the range: Find checks it.
			if f.inTime(docs[doc].at) {
				got = append(got, doc)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d %+v: got %d docs %v..., want %d %v...", i, f, len(got), head(got), len(want), head(want))
		}
	}
}

// TestLinksAndMentionsAsTheRegularExpressions: HasLink and MentionIDs, which scan by hand in
// the writer, find what the regular expressions of the link previews and the mentions find.
func TestLinksAndMentionsAsTheRegularExpressions(t *testing.T) {
	link := regexp.MustCompile("(?i)\\bhttps?://[^\\s<>\"`]")
	mention := regexp.MustCompile(`<@([0-9a-fA-F-]{36})>`)
	id := "0190f0a0-0000-7000-8000-00000000000A"
	parts := []string{"http", "https", "HTTPS", "://", ":/", "x", "_", "é", " ", "<", ">", "`", "\"", "\t", "a.b", "<@", id, id[:35], "-", "s", "ftp"}
	rng := rand.New(rand.NewPCG(6, 6))
	for range 200_000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		text := b.String()
		if got, want := HasLink(text), link.MatchString(text); got != want {
			t.Fatalf("HasLink(%q) = %v, want %v", text, got, want)
		}
		var want []string
		for _, m := range mention.FindAllStringSubmatch(text, -1) {
			if id := strings.ToLower(m[1]); !slices.Contains(want, id) {
				want = append(want, id)
			}
		}
		if got := MentionIDs(text); !slices.Equal(got, want) {
			t.Fatalf("MentionIDs(%q) = %v, want %v", text, got, want)
		}
	}
}
