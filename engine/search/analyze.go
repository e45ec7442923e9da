// Package search is the message index: how text becomes terms (analyze.go), what a query asks
// for and whether a text answers it (query.go), how changes reach the index and how a search
// runs (index.go), and the posting lists in Badger that find the candidates newest first
// (badger.go, postings.go). The engine stages the changes with each message (see
// engine/searching.go); every candidate is checked against the message as it is stored now
// (Index.Find), so the lists only ever propose: they never decide what a caller gets.
// docs/search.md has the design and its numbers.
package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTermBytes bounds a term: a longer word (a hash, a run of letters) is cut to this many
// bytes, in the index and in queries alike, so it is still found by its start.
const MaxTermBytes = 64

// Tokens calls emit with each term of text, in order. The same function analyzes messages,
// file names and queries, so what a query asks for is spelled as the index spells it:
//   - words are runs of letters, digits and marks, case-folded, with accents dropped from
//     Latin, Greek, Cyrillic, Arabic and Hebrew letters (Café is cafe), compatibility forms
//     unified (ﬁ is fi, ＡＢＣ is abc);
//   - scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar) give one
//     term per pair of neighbouring characters (東京都 is 東京 京都) and one for the last
//     character of the run, so that any character is the start of some term; a run is in
//     compatibility composition first, so half-width kana with their voicing marks (ｶﾞｲﾄﾞ)
//     are the full-width letters (ガイド);
//   - an emoji is a word of its own, without its skin tone or presentation selectors;
//   - a :shortcode: is one word, colons included;
//   - a mention <@member-id> is not text and gives nothing.
//
// Cjk reports whether the term is the lone last character of a run of such a script: a query
// treats it as a prefix, so that 京 also finds 京都.
func Tokens(text string, emit func(term string, cjkTail bool)) {
	t := tokenizer{text: text, emit: emit}
	t.run()
}

type tokenizer struct {
	text string
	emit func(string, bool)
	buf  []byte
}

func (t *tokenizer) run() {
	s := t.text
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case isASCIIWord(c):
				j := i + 1
				ascii := true
				for j < len(s) {
					if s[j] < utf8.RuneSelf {
						if !isASCIIWord(s[j]) {
							break
						}
						j++
						continue
					}
					r, n := utf8.DecodeRuneInString(s[j:])
					if !isWordRune(r) || isRunScript(r) {
						break
					}
					ascii = false
					j += n
				}
				t.word(s[i:j], ascii)
				i = j
			case c == '<':
				i += mentionLen(s[i:]) + 1
			case c == ':':
				if n := shortcodeLen(s, i); n > 0 {
					t.shortcode(s[i : i+n])
					i += n
				} else {
					i++
				}
			default:
				i++
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case isRunScript(r):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isRunScript(r2) && !(unicode.Is(unicode.Mn, r2) || r2 == 0x3099 || r2 == 0x309A) {
					break
				}
				j += n2
			}
			t.cjk(s[i:j])
			i = j
		case isWordRune(r):
			j := i + n
			for j < len(s) {
				if s[j] < utf8.RuneSelf {
					if !isASCIIWord(s[j]) {
						break
					}
					j++
					continue
				}
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) || isRunScript(r2) {
					break
				}
				j += n2
			}
			t.word(s[i:j], false)
			i = j
		case isEmoji(r):
			t.emit(string(r), false)
			i += n
		default:
			i += n
		}
	}
}

func isASCIIWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.No, r)
}

// isRunScript reports the scripts written without spaces between words.
func isRunScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
		r == 0x30FC || r == 0x3005 || r == 0xFF70 || // prolonged sound mark, iteration mark
		r == 0xFF9E || r == 0xFF9F // half-width voicing marks: NFKC joins ｶﾞ into ガ
}

// isEmoji reports a pictographic symbol: a word on its own.
func isEmoji(r rune) bool {
	if isEmojiModifier(r) {
		return false
	}
	return unicode.Is(unicode.So, r) || r >= 0x1F000 && r <= 0x1FAFF
}

// isEmojiModifier reports the parts of an emoji sequence that are not a picture of their own:
// joiners, presentation selectors, skin tones, keycap and tag characters.
func isEmojiModifier(r rune) bool {
	return r == 0x200D || r == 0xFE0F || r == 0xFE0E || r == 0x20E3 ||
		r >= 0x1F3FB && r <= 0x1F3FF || r >= 0xE0020 && r <= 0xE007F
}

// mentionLen is the length of a <@id> mention at the start of s minus one, or 0 when s does not
// start with one (the caller then moves on by one byte).
func mentionLen(s string) int {
	if len(s) < 3 || s[1] != '@' {
		return 0
	}
	for j := 2; j < len(s) && j < 2+64; j++ {
		c := s[j]
		switch {
		case c == '>':
			if j == 2 {
				return 0
			}
			return j
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
		default:
			return 0
		}
	}
	return 0
}

// shortcodeLen is the length of the :shortcode: at s[i:], or 0. A shortcode stands apart from
// the letters and digits around it, so "10:30:45" holds none.
func shortcodeLen(s string, i int) int {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if isWordRune(r) {
			return 0
		}
	}
	for j := i + 1; j < len(s) && j <= i+1+62; j++ {
		c := s[j]
		switch {
		case c == ':':
			if j == i+1 {
				return 0
			}
			if j+1 < len(s) {
				r, _ := utf8.DecodeRuneInString(s[j+1:])
				if isWordRune(r) {
					return 0
				}
			}
			return j + 1 - i
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '+':
		default:
			return 0
		}
	}
	return 0
}

func (t *tokenizer) shortcode(s string) {
	t.buf = append(t.buf[:0], s...)
	for i, c := range t.buf {
		if c >= 'A' && c <= 'Z' {
			t.buf[i] = c + 'a' - 'A'
		}
	}
	t.emit(string(t.buf), false)
}

// word emits one folded word.
func (t *tokenizer) word(w string, ascii bool) {
	b := t.buf[:0]
	if ascii {
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	} else {
		b = foldWord(b, w)
	}
	t.buf = b
	if len(b) == 0 {
		return
	}
	t.emit(string(cut(b)), false)
}

// foldWord appends w case-folded, in compatibility decomposition, without the accents of the
// scripts where an accent is a variant of the letter.
func foldWord(b []byte, w string) []byte {
	var base rune
	for _, r := range norm.NFKD.String(w) {
		if unicode.Is(unicode.Mn, r) {
			if stripsMarks(base) {
				continue
			}
			b = utf8.AppendRune(b, r)
			continue
		}
		base = r
		if s, ok := specialFolds[r]; ok {
			b = append(b, s...)
			continue
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return b
}

// specialFolds are letters that no decomposition takes to a base letter, and final sigma.
var specialFolds = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th",
	'ı': "i", 'ħ': "h", 'Ħ': "h", 'ŧ': "t", 'Ŧ': "t", 'ς': "σ",
}

// stripsMarks reports the scripts whose combining marks are accents on a letter.
func stripsMarks(base rune) bool {
	return base < 0x0530 || // Latin, Greek, Cyrillic, Armenian
		base >= 0x0590 && base < 0x0700 || // Hebrew, Arabic
		base >= 0x1E00 && base < 0x2000 // Latin and Greek extended
}

// cjk emits the bigrams of a run of a script without spaces, and its last character.
func (t *tokenizer) cjk(run string) {
	run = norm.NFKC.String(run)
	prev := -1 // where the previous character starts
	for i, r := range run {
		if unicode.Is(unicode.Mn, r) || r == 0x3099 || r == 0x309A {
			continue
		}
		if prev >= 0 {
			t.emit(run[prev:i+utf8.RuneLen(r)], false)
		}
		prev = i
	}
	if prev >= 0 {
		t.emit(run[prev:], true)
	}
}

// cut shortens a term to MaxTermBytes at a character boundary.
func cut(b []byte) []byte {
	if len(b) <= MaxTermBytes {
		return b
	}
	n := MaxTermBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// Doc is what the index keeps of a message: its distinct terms, sorted, and for each the
// positions it is at, modulo 32, as bits (see storepb.SearchOp).
type Doc struct {
	Terms []string
	Masks []uint32
}

// Analyze makes the Doc of a message: its text and its attachments' file names.
func Analyze(text string, names []string) Doc {
	masks := map[string]uint32{}
	pos := 0
	prev := ""
	add := func(term string, _ bool) {
		masks[term] |= 1 << (pos % 32)
		pos++
		if s, ok := Stem(term); ok {
			masks[s] |= 0
		}
		if p, ok := Pair(prev, term); ok {
			masks[p] |= 0
		}
		prev = term
	}
	Tokens(text, add)
	for _, n := range names {
		pos++ // a phrase does not run from one field into the next
		prev = ""
		Tokens(n, add)
	}
	d := Doc{Terms: make([]string, 0, len(masks))}
	for t := range masks {
		d.Terms = append(d.Terms, t)
	}
	slices.Sort(d.Terms)
	d.Masks = make([]uint32, len(d.Terms))
	for i, t := range d.Terms {
		d.Masks[i] = masks[t]
	}
	return d
}

// StemRunes is the length of the stem every longer term is also indexed under: a prefix query
// of at least that many characters reads the stem's list instead of merging the lists of
// every term that starts with it.
const StemRunes = 3

// Stem is the stem term of a term of at least StemRunes characters: its first StemRunes
// characters after a 0x02 byte, which no word holds.
func Stem(term string) (string, bool) {
	n := 0
	for i := range term {
		if n == StemRunes {
			return "\x02" + term[:i], true
		}
		n++
	}
	if n == StemRunes {
		return "\x02" + term, true
	}
	return "", false
}

// Pair is the term for two neighbouring words that are both among the most common ones ("of
// the", "to be"): a phrase of such words reads one short list instead of walking two lists
// that hold most of the history.
func Pair(a, b string) (string, bool) {
	if !commonWords[a] || !commonWords[b] {
		return "", false
	}
	return "\x03" + a + " " + b, true
}

// commonWords are the most frequent words of the languages of most communities: those that
// appear in a large share of all messages.
var commonWords = wordSet(`the to and a of i you it is in that for on we this be with
		have are not just so do was at but can if my me will what about like all get up out know
		think one don t s time there an good now they would as from how or more m when make see
		people no your yeah going some then them because thanks need really here also today
		de la que el en y los las un una por con para es le les et des du est pas qui une dans
		der die und das ist nicht ich zu den mit sie ein es auf
		и в не на я что с он как это`)

func wordSet(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// Terms returns the distinct terms of a message, sorted.
func Terms(text string, names []string) []string { return Analyze(text, names).Terms }
