package webtest

import (
	"sync"
	"time"

	"hearth/engine"
)

// Clock is a clock that only moves when told, for rate limits, expiry and retention.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at a fixed, recent time.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)} }

// NewClockAt starts at t: a clock for what must agree with the real one now (tokens checked
// by a verifier on the real clock).
func NewClockAt(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// WithClock runs the engine on c.
func WithClock(c *Clock) Option { return func(o *engine.Options) { o.Now = c.Now } }
