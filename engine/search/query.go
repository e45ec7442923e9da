package search

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a query.
const (
	// MaxQueryChars bounds the query text.
	MaxQueryChars = 1000
	// MaxQueryTerms bounds the terms a query asks for.
	MaxQueryTerms = 32
)

// ErrNoWords is a query with nothing to search for: only spaces and punctuation.
var ErrNoWords = errors.New("the query has no words to search for, only spaces or punctuation")

// TooManyTerms is a query of more than MaxQueryTerms terms.
type TooManyTerms struct{ N int }

func (e *TooManyTerms) Error() string {
	return fmt.Sprintf("the query has %d terms; the limit is %d", e.N, MaxQueryTerms)
}

// Part is one term of a phrase; a prefix part matches every term that starts with it.
type Part struct {
	Term   string
	Prefix bool
}

// Phrase is a run of terms that must follow each other in a message (or in one of its file
// names). A plain word is a phrase of one term, or of several when the analyzer splits it
// (e-mail, 東京都).
type Phrase []Part

// Query is what Search asks for: every phrase must occur, and the filter must hold.
type Query struct {
	Phrases []Phrase
	Filter  Filter
}

// Parse reads a query: words separated by spaces, "quoted phrases" (straight or curly
// quotes; an unclosed quote runs to the end), and the last word (or the end of an unclosed
// quote) matched as a prefix. Words outside quotes that are filters (filters.go) go to the
// Filter, once each; a query may be filters alone.
func Parse(q string) (*Query, error) {
	if n := utf8.RuneCountInString(q); n > MaxQueryChars {
		return nil, fmt.Errorf("the query is %d characters; the limit is %d", n, MaxQueryChars)
	}
	out := &Query{}
	quoted := false
	lastOpen := false // whether the last phrase may take a prefix
	var seg strings.Builder
	var ferr error
	seen := map[string]bool{}
	flush := func(inQuote, closed bool) {
		s := seg.String()
		seg.Reset()
		if inQuote {
			if p := phraseOf(s); len(p) > 0 {
				out.Phrases = append(out.Phrases, p)
				lastOpen = !closed
			}
			return
		}
		for _, w := range strings.FieldsFunc(s, unicode.IsSpace) {
			if key, value, ok := splitFilter(w); ok {
				if err := out.Filter.add(w, key, value, seen); err != nil && ferr == nil {
					ferr = err
				}
				// The word before a filter was typed whole.
				lastOpen = false
				continue
			}
			if p := phraseOf(w); len(p) > 0 {
				out.Phrases = append(out.Phrases, p)
				lastOpen = true
			}
		}
	}
	for _, r := range q {
		if isQuote(r) {
			flush(quoted, true)
			quoted = !quoted
			continue
		}
		seg.WriteRune(r)
	}
	flush(quoted, false)
	if ferr != nil {
		return nil, ferr
	}
	if len(out.Phrases) == 0 && out.Filter.empty() {
		return nil, ErrNoWords
	}
	if lastOpen {
		last := out.Phrases[len(out.Phrases)-1]
		last[len(last)-1].Prefix = true
	}
	n := 0
	for _, p := range out.Phrases {
		n += len(p)
	}
	if n > MaxQueryTerms {
		return nil, &TooManyTerms{N: n}
	}
	return out, nil
}

func isQuote(r rune) bool { return r == '"' || r == '“' || r == '”' || r == '„' }

func phraseOf(s string) Phrase {
	var p Phrase
	Tokens(s, func(term string, cjkTail bool) { p = append(p, Part{Term: term, Prefix: cjkTail}) })
	return p
}

// Exact lists the distinct terms every match must hold.
func (q *Query) Exact() []string {
	var out []string
	for _, p := range q.Phrases {
		for _, part := range p {
			if !part.Prefix {
				out = append(out, part.Term)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Prefixes lists the distinct prefixes a match must hold a term of, leaving out those a term
// already asked for implies: the last character of 東京 is in the term 東京 itself.
func (q *Query) Prefixes() []string {
	var out []string
	for _, p := range q.Phrases {
		for i, part := range p {
			if !part.Prefix {
				continue
			}
			if i > 0 && !p[i-1].Prefix && strings.HasSuffix(p[i-1].Term, part.Term) {
				continue
			}
			out = append(out, part.Term)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Plan is what a backend looks for: documents with every exact term, a term starting with
// each prefix, and for each phrase its exact terms at the right distances from each other.
type Plan struct {
	Exact    []string
	Prefixes []string
	// Stems are the stems of the prefixes that have one, Pairs the pair terms of the phrases'
	// neighbouring common words: required terms too.
	Stems []string
	Pairs []string
	// Phrases hold, for each phrase of two or more exact terms, each term's index in Exact and
	// its place in the phrase.
	Phrases [][]PhraseTerm
	// Filters are the filter terms every match holds; AnyOf groups of them, one of each group
	// (filters.go).
	Filters []string
	AnyOf   [][]string
	// AfterMs and BeforeMs bound the documents' days (Filter).
	AfterMs, BeforeMs int64
}

// PhraseTerm is one exact term of a phrase.
type PhraseTerm struct {
	Exact  int
	Offset int
}

// Plan is the query for a backend.
func (q *Query) Plan() Plan {
	p := Plan{Exact: q.Exact(), Prefixes: q.Prefixes(), Filters: q.Filter.terms(), AnyOf: q.Filter.anyOf(),
		AfterMs: q.Filter.AfterMs, BeforeMs: q.Filter.BeforeMs}
	for _, pre := range p.Prefixes {
		if s, ok := Stem(pre); ok {
			p.Stems = append(p.Stems, s)
		}
	}
	for _, ph := range q.Phrases {
		var pts []PhraseTerm
		for off, part := range ph {
			if part.Prefix {
				continue
			}
			i, _ := slices.BinarySearch(p.Exact, part.Term)
			pts = append(pts, PhraseTerm{Exact: i, Offset: off})
		}
		if len(pts) >= 2 {
			p.Phrases = append(p.Phrases, pts)
		}
		for i := 1; i < len(ph); i++ {
			if ph[i-1].Prefix || ph[i].Prefix {
				continue
			}
			if pair, ok := Pair(ph[i-1].Term, ph[i].Term); ok && !slices.Contains(p.Pairs, pair) {
				p.Pairs = append(p.Pairs, pair)
			}
		}
	}
	return p
}

// aligned reports whether the exact terms' position masks (in the order of Exact) leave room
// for every phrase: some position where each term stands at its offset. Positions are kept
// modulo 32, so a long message may pass without holding the phrase; it is checked afterwards.
func (p *Plan) aligned(masks []uint32) bool {
	for _, ph := range p.Phrases {
		m := ^uint32(0)
		for _, pt := range ph {
			m &= bits.RotateLeft32(masks[pt.Exact], -(pt.Offset % 32))
		}
		if m == 0 {
			return false
		}
	}
	return true
}

// Match reports whether a message with this text and these file names answers the query:
// the final word on every candidate the index proposes.
func (q *Query) Match(text string, names []string) bool {
	fields := make([][]string, 0, 1+len(names))
	fields = append(fields, tokenList(text))
	for _, n := range names {
		fields = append(fields, tokenList(n))
	}
	for _, p := range q.Phrases {
		if !slices.ContainsFunc(fields, p.in) {
			return false
		}
	}
	return true
}

func tokenList(s string) []string {
	var out []string
	Tokens(s, func(term string, _ bool) { out = append(out, term) })
	return out
}

// in reports whether the phrase occurs in a list of terms.
func (p Phrase) in(terms []string) bool {
	for i := 0; i+len(p) <= len(terms); i++ {
		ok := true
		for j, part := range p {
			t := terms[i+j]
			if part.Prefix && !strings.HasPrefix(t, part.Term) || !part.Prefix && t != part.Term {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
