package ratelimit

import (
	"testing"
	"time"

	"golang.org/x/time/rate"
)

var (
	perMinute = Limit{Every: rate.Every(6 * time.Second), Burst: 10}
	perHour   = Limit{Every: rate.Every(6 * time.Minute), Burst: 10}
)

func TestAllowAllTakesFromEveryKeyOrNone(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	two := []Limit{perMinute, perHour}
	for range 10 {
		if w := l.AllowAll([]string{"addr:a", "user:x"}, two, 1); w != 0 {
			t.Fatalf("wait %s within the burst", w)
		}
	}
	// user:x is out; a refused attempt takes nothing from addr:b.
	if w := l.AllowAll([]string{"addr:b", "user:x"}, two, 1); w != 6*time.Minute {
		t.Fatalf("wait = %s, want 6m", w)
	}
	for range 10 {
		if w := l.AllowAll([]string{"addr:b", "user:y"}, two, 1); w != 0 {
			t.Fatalf("addr:b lost a token to a refused attempt (wait %s)", w)
		}
	}
}

func TestAllowTakesNTokensOrNone(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	if w := l.Allow("k", perMinute, 8); w != 0 {
		t.Fatalf("8 of a burst of 10: wait %s", w)
	}
	// 3 more are not there: none is taken, and the wait is until the third arrives.
	if w := l.Allow("k", perMinute, 3); w != 6*time.Second {
		t.Fatalf("3 with 2 left: wait %s, want 6s", w)
	}
	if w := l.Allow("k", perMinute, 2); w != 0 {
		t.Fatalf("the 2 left: wait %s", w)
	}
	// More than a bucket ever holds.
	if w := l.Allow("other", perMinute, 11); w != tooMany {
		t.Fatalf("11 of a burst of 10: wait %s, want %s", w, tooMany)
	}
}

func TestALimitChangeAppliesToItsBucket(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	l.Allow("bot", Limit{Every: 1, Burst: 1}, 1)
	if w := l.Allow("bot", Limit{Every: 1, Burst: 1}, 1); w == 0 {
		t.Fatal("a burst of 1 gave two tokens")
	}
	// A higher rate given later (the server's options changed) applies from now on.
	if w := l.Allow("bot", Limit{Every: 100, Burst: 5}, 1); w > 10*time.Millisecond {
		t.Fatalf("after raising the rate: wait %s", w)
	}
}

func TestFullBucketsAreDropped(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	for _, k := range []string{"a", "b", "c"} {
		l.Allow(k, perMinute, 1)
	}
	if n := l.Buckets(); n != 3 {
		t.Fatalf("%d buckets, want 3", n)
	}
	now = now.Add(2 * time.Minute) // refilled, and a sweep is due
	l.Allow("d", perMinute, 1)
	if n := l.Buckets(); n != 1 {
		t.Fatalf("%d buckets after the sweep, want only d's", n)
	}
}

func TestReturnGivesTokensBackUpToTheBurst(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := New(func() time.Time { return now })
	keys := []string{"a", "b"}
	two := []Limit{perMinute, perHour}
	for range 10 {
		if w := l.AllowAll(keys, two, 1); w != 0 {
			t.Fatalf("wait %s within the burst", w)
		}
	}
	if w := l.AllowAll(keys, two, 1); w == 0 {
		t.Fatal("an eleventh token")
	}
	// Three attempts that did not count: three more tokens, then none.
	l.Return(keys, 3)
	for i := range 3 {
		if w := l.AllowAll(keys, two, 1); w != 0 {
			t.Fatalf("returned token %d: wait %s", i, w)
		}
	}
	if w := l.AllowAll(keys, two, 1); w == 0 {
		t.Fatal("more tokens than were returned")
	}
	// A full bucket stays at its burst however much is returned.
	l.Return([]string{"c"}, 5)
	l.Allow("c", perMinute, 1)
	l.Return([]string{"c"}, 5)
	if w := l.Allow("c", perMinute, 10); w != 0 {
		t.Fatalf("a full bucket: wait %s", w)
	}
	if w := l.Allow("c", perMinute, 1); w == 0 {
		t.Fatal("a returned token beyond the burst")
	}
}
