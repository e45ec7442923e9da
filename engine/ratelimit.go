package engine

import (
	"time"

	"golang.org/x/time/rate"

	"hearth/engine/ratelimit"
)

// limiter is the engine's rate limits: a token bucket per key (a member, a client address),
// on the engine's clock (engine/ratelimit).
type limiter struct{ *ratelimit.Limiter }

func newLimiter(now func() time.Time) *limiter { return &limiter{ratelimit.New(now)} }

// allow takes one token from key's bucket (created with the given rate and burst on first use)
// and returns 0, or returns how long until a token is available and takes nothing.
func (l *limiter) allow(key string, every rate.Limit, burst int) time.Duration {
	return l.allowN(key, every, burst, 1)
}

// allowN is allow for n tokens at once: all or none.
func (l *limiter) allowN(key string, every rate.Limit, burst, n int) time.Duration {
	return l.Allow(key, ratelimit.Limit{Every: every, Burst: burst}, n)
}
