package engine

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key (a member, a client address), on the engine's clock.
// Buckets that have refilled completely are dropped now and then, so memory stays bounded by
// the keys active in the last few minutes.
type limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*rate.Limiter
	swept   time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, buckets: map[string]*rate.Limiter{}}
}

// allow takes one token from key's bucket (created with the given rate and burst on first use)
// and returns 0, or returns how long until a token is available and takes nothing.
func (l *limiter) allow(key string, every rate.Limit, burst int) time.Duration {
	return l.allowN(key, every, burst, 1)
}

// allowN is allow for n tokens at once: all or none.
func (l *limiter) allowN(key string, every rate.Limit, burst, n int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(every, burst)
		l.buckets[key] = b
	} else if b.Limit() != every || b.Burst() != burst {
		b.SetLimitAt(now, every)
		b.SetBurstAt(now, burst)
	}
	r := b.ReserveN(now, n)
	if !r.OK() {
		return time.Hour
	}
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return wait
	}
	return 0
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
