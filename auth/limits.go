package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sign-in attempts (DECISIONS.md): 10 a minute per client address, 10 an hour per account.
// The account is named by the username typed, whether or not an account has it, so that the
// limit tells nobody which usernames exist.
var (
	addrAttempts    = limit{every: rate.Every(6 * time.Second), burst: 10}
	accountAttempts = limit{every: rate.Every(6 * time.Minute), burst: 10}
)

type limit struct {
	every rate.Limit
	burst int
}

// limiter is a token bucket per key on the issuer's clock. Buckets that refilled are dropped
// now and then, so memory is bounded by the keys active in the last hour.
type limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*rate.Limiter
	swept   time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token from each key's bucket, or from none: it returns 0 when every bucket had
// one, else how long until they all will.
func (l *limiter) allow(keys []string, limits []limit) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	var wait time.Duration
	rs := make([]*rate.Reservation, 0, len(keys))
	for i, k := range keys {
		b := l.buckets[k]
		if b == nil {
			b = rate.NewLimiter(limits[i].every, limits[i].burst)
			l.buckets[k] = b
		}
		r := b.ReserveN(now, 1)
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

// sweep drops full buckets once a minute: a full bucket is the same as no bucket.
func (l *limiter) sweep(now time.Time) {
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
