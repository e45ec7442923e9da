package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"hearth/engine/search"
)

// The filter queries (EXTENSIONS.md 5): each filter alone (the newest matches of the whole
// history) and with words, and several together. Members are user0 to user99 and channels
// channel0 to channel99, as benchNames resolves them; in: picks among the ten channels that
// both kinds of member (in all 100 channels, in 10 of them) are in.

// benchNames resolves the corpus's usernames and channel names (search.Resolver).
type benchNames struct{}

func (benchNames) Member(username string) (string, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(username, "user"))
	if err != nil || n < 0 || n >= 100 {
		return "", false
	}
	return memberID(n), true
}

func (benchNames) Channel(name string) (string, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "channel"))
	if err != nil || n < 0 {
		return "", false
	}
	return channelID(n), true
}

func filterClasses(per int) []class {
	rng := rand.New(rand.NewPCG(9, 9))
	c := newCorpus(1)
	// A day of the corpus's year (gen spreads it over the 365 days before it ran).
	day := func() string {
		return time.Now().AddDate(0, 0, -1-rng.IntN(364)).UTC().Format("2006-01-02")
	}
	word := func() string {
		if rng.IntN(2) == 0 {
			return english[rng.IntN(40)] // common
		}
		return c.vocab[500+rng.IntN(5000)] // less common
	}
	maybeWord := func(q string) string {
		if rng.IntN(2) == 0 {
			return word() + " " + q
		}
		return q
	}
	has := []string{"has:file", "has:image", "has:link"}
	var from, in, hasQ, pinned, mentions, dates, combined []string
	for range per {
		from = append(from, maybeWord(fmt.Sprintf("from:user%d", rng.IntN(100))))
		in = append(in, maybeWord(fmt.Sprintf("in:channel%d", rng.IntN(10))))
		hasQ = append(hasQ, maybeWord(has[rng.IntN(3)]))
		pinned = append(pinned, maybeWord("is:pinned"))
		mentions = append(mentions, maybeWord("mentions:me"))
		switch rng.IntN(3) {
		case 0:
			dates = append(dates, maybeWord("before:"+day()))
		case 1:
			dates = append(dates, maybeWord("after:"+day()))
		default:
			a := day()
			b, _ := time.Parse("2006-01-02", a)
			dates = append(dates, maybeWord("after:"+a+" before:"+b.AddDate(0, 0, 2+rng.IntN(30)).Format("2006-01-02")))
		}
		switch rng.IntN(3) {
		case 0:
			combined = append(combined, fmt.Sprintf("from:user%d %s after:%s", rng.IntN(100), has[rng.IntN(3)], day()))
		case 1:
			combined = append(combined, fmt.Sprintf("%s in:channel%d before:%s", word(), rng.IntN(10), day()))
		default:
			combined = append(combined, fmt.Sprintf("%s from:user%d mentions:me", word(), rng.IntN(100)))
		}
	}
	return []class{{"from", from}, {"in", in}, {"has", hasQ}, {"pinned", pinned}, {"mentions", mentions}, {"dates", dates}, {"combined", combined}}
}

var _ search.Resolver = benchNames{}
