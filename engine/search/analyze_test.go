package search

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // terms joined by "|"
	}{
		{"Hello, World!", "hello|world"},
		{"Café crème brûlée", "cafe|creme|brulee"},
		{"CAFÉ naïve Ångström", "cafe|naive|angstrom"},
		{"Straße Øresund Łódź", "strasse|oresund|lodz"},
		{"ΣΟΦΊΑ σοφίας", "σοφια|σοφιασ"},
		{"Москва ЁЛКА", "москва|елка"},
		{"ﬁne ＡＢＣ１２３", "fine|abc123"},
		{"東京都に行く", "東京|京都|都に|に行|行く|く"},
		{"東京 2024", "東京|京|2024"},
		{"서울에서 만나요", "서울|울에|에서|서|만나|나요|요"},
		{"ｶﾀｶﾅ", "カタ|タカ|カナ|ナ"},
		{"ship it 🚀🚀 👍🏽 ❤️", "ship|it|🚀|🚀|👍|❤"},
		{"party :tada: :Party_Parrot: time", "party|:tada:|:party_parrot:|time"},
		{"at 10:30:45 sharp", "at|10|30|45|sharp"},
		{"hi <@0190f0a0-0000-7000-8000-000000000001> there", "hi|there"},
		{"a<@b>c <@> <3", "a|c|3"},
		{"e-mail snake_case don't", "e|mail|snake|case|don|t"},
		{"hindi हिन्दी", "hindi|हिन्दी"},
		{"مَرْحَبًا", "مرحبا"},
		{strings.Repeat("x", 100), strings.Repeat("x", MaxTermBytes)},
		{"   ...,,,!!!   ", ""},
	} {
		var got []string
		Tokens(tc.text, func(term string, _ bool) { got = append(got, term) })
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("Tokens(%q) = %q, want %q", tc.text, g, tc.want)
		}
	}
}

func TestTermsSortedDistinct(t *testing.T) {
	got := Terms("the cat and the hat", []string{"Cat.PNG"})
	want := []string{"\x02and", "\x02cat", "\x02hat", "\x02png", "\x02the", "\x03and the", "and", "cat", "hat", "png", "the"}
	if !slices.Equal(got, want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string // phrases joined by " / ", parts by " ", prefix parts end with *
	}{
		{"hello world", "hello / world*"},
		{"  Hello   WORLD  ", "hello / world*"},
		{`"hello world" foo`, "hello world / foo*"},
		{`foo "hello world"`, "foo / hello world"},
		{`foo "hello wor`, "foo / hello wor*"},
		{"“smart quotes” x", "smart quotes / x*"},
		{"e-mail", "e mail*"},
		{"東京", "東京 京*"},
		{"京 tower", "京* / tower*"},
		{":tada: yes", ":tada: / yes*"},
	} {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.q, err)
		}
		var ps []string
		for _, p := range q.Phrases {
			var parts []string
			for _, part := range p {
				s := part.Term
				if part.Prefix {
					s += "*"
				}
				parts = append(parts, s)
			}
			ps = append(ps, strings.Join(parts, " "))
		}
		if g := strings.Join(ps, " / "); g != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.q, g, tc.want)
		}
	}
	for _, q := range []string{"", "   ", `"" ,.;!?`, "<@0190f0a0-0000-7000-8000-000000000001>"} {
		if _, err := Parse(q); !errors.Is(err, ErrNoWords) {
			t.Errorf("Parse(%q) = %v, want ErrNoWords", q, err)
		}
	}
	if _, err := Parse(strings.Repeat("a ", 33)); err == nil {
		t.Error("33 terms accepted")
	}
	if _, err := Parse(strings.Repeat("a", MaxQueryChars+1)); err == nil {
		t.Error("an over-long query accepted")
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		q, text string
		names   []string
		want    bool
	}{
		{"deploy", "We deployed it", nil, true}, // prefix on the last word
		{"deploy friday", "deploy on Friday", nil, true},
		{"deploy fri", "deploy on Monday", nil, false},
		{"fri deploy", "friday deploy", nil, false}, // only the last word is a prefix
		{"cafe", "Café au lait", nil, true},
		{"CAFÉ", "cafe au lait", nil, true},
		{`"quick fox"`, "the quick brown fox", nil, false},
		{`"quick brown"`, "the quick brown fox", nil, true},
		{`"brown quick"`, "the quick brown fox", nil, false},
		{"report", "see attached", []string{"Q3-Report.pdf"}, true},
		{`"q3 report"`, "see attached", []string{"Q3-Report.pdf"}, true},
		{`"attached q3"`, "see attached", []string{"Q3-Report.pdf"}, false}, // no phrase across fields
		{"東京", "明日東京に行きます", nil, true},
		{"京都", "明日東京に行きます", nil, false},
		{"京", "東京", nil, true},
		{"🚀", "ship it 🚀", nil, true},
		{"🚀", "ship it", nil, false},
		{":tada:", "done :tada:", nil, true},
		{"tada", "done :tada:", nil, false},
		{"0190f0a0", "hi <@0190f0a0-0000-7000-8000-000000000001>", nil, false},
	} {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Match(tc.text, tc.names); got != tc.want {
			t.Errorf("Parse(%q).Match(%q, %q) = %v, want %v", tc.q, tc.text, tc.names, got, tc.want)
		}
	}
}

func BenchmarkTerms(b *testing.B) {
	text := "Hey team, the deploy of the billing service is done; dashboards look fine. Café at 3?"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Terms(text, nil)
	}
}

func TestAnalyzeMasksAndPlanAlignment(t *testing.T) {
	d := Analyze("to be or not to be", []string{"be.txt"})
	masks := map[string]uint32{}
	for i, term := range d.Terms {
		masks[term] = d.Masks[i]
	}
	// to: 0, 4; be: 1, 5, and 7 in the file name (after a gap); or: 2; not: 3; txt: 8.
	want := map[string]uint32{"to": 1<<0 | 1<<4, "be": 1<<1 | 1<<5 | 1<<7, "or": 1 << 2, "not": 1 << 3, "txt": 1 << 8}
	if !slices.Contains(d.Terms, "\x02txt") || !slices.Contains(d.Terms, "\x02not") || slices.Contains(d.Terms, "\x02to") {
		t.Errorf("stems: %q", d.Terms)
	}
	for term, m := range want {
		if masks[term] != m {
			t.Errorf("mask of %q = %b, want %b", term, masks[term], m)
		}
	}
	for q, ok := range map[string]bool{`"to be"`: true, `"be or"`: true, `"not be"`: false, `"be to"`: false, `"or not to be"`: true, `"be txt"`: true} {
		pq, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		p := pq.Plan()
		ms := make([]uint32, len(p.Exact))
		for i, term := range p.Exact {
			ms[i] = masks[term]
		}
		if got := p.aligned(ms); got != ok {
			t.Errorf("%s aligned = %v, want %v", q, got, ok)
		}
	}
}
