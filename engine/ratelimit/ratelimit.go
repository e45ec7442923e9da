// Package ratelimit is the token buckets behind Hearth's rate limits: one bucket per key (a
// member, a client address, a username typed), on an injected clock so that tests control
// time, with memory bounded by the keys used lately (a bucket that refilled is dropped: a full
// bucket is the same as none). It imports nothing of Hearth: the engine and the built-in
// issuer (auth) both use it. AddrKey is how every per-address limit keys a client address.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limit is a rate limit: Every tokens a second, at most Burst at once.
type Limit struct {
	Every rate.Limit
	Burst int
}

// tooMany is the wait answered for more tokens at once than a bucket ever holds.
const tooMany = time.Hour

// Limiter is a token bucket per key. It is safe for concurrent use.
type Limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*rate.Limiter
	swept   time.Time
}

// New returns a Limiter on the clock now.
func New(now func() time.Time) *Limiter {
	return &Limiter{now: now, buckets: map[string]*rate.Limiter{}}
}

// Allow takes n tokens from key's bucket (made with lim on first use) and returns 0, or
// returns how long until they are there and takes nothing.
func (l *Limiter) Allow(key string, lim Limit, n int) time.Duration {
	return l.AllowAll([]string{key}, []Limit{lim}, n)
}

// AllowAll takes n tokens from the bucket of every key (keys[i] limited by lims[i]), or from
// none: it returns 0 when each had them, else how long until they all will.
func (l *Limiter) AllowAll(keys []string, lims []Limit, n int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	var wait time.Duration
	rs := make([]*rate.Reservation, 0, len(keys))
	for i, k := range keys {
		lim := lims[i]
		b := l.buckets[k]
		if b == nil {
			b = rate.NewLimiter(lim.Every, lim.Burst)
			l.buckets[k] = b
		} else if b.Limit() != lim.Every || b.Burst() != lim.Burst {
			b.SetLimitAt(now, lim.Every)
			b.SetBurstAt(now, lim.Burst)
		}
		r := b.ReserveN(now, n)
		if !r.OK() {
			wait = max(wait, tooMany)
			continue
		}
		rs = append(rs, r)
		wait = max(wait, r.DelayFrom(now))
	}
	if wait > 0 {
		for _, r := range rs {
			r.CancelAt(now)
		}
	}
	return wait
}

// sweep drops full buckets once a minute.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
}

// Buckets is how many buckets the limiter holds (for tests of its memory).
func (l *Limiter) Buckets() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// Return gives n tokens back to the bucket of every key, up to each bucket's burst: for a
// taken token whose attempt turned out not to count (a sign-in limit counts failed passwords
// only, yet takes its token before the password is checked, so that attempts in flight at once
// cannot overrun it). A key without a bucket is full already.
func (l *Limiter) Return(keys []string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, k := range keys {
		if b := l.buckets[k]; b != nil && n > 0 {
			// A reservation of -n tokens adds n; the bucket caps them at its burst the next
			// time it counts its tokens.
			b.ReserveN(now, -n)
		}
	}
}
