package webtest

import (
	"time"

	"hearth/engine"
	"hearth/engine/clock"
)

// Clock is a clock that only moves when told, for rate limits, expiry, retention and the
// engine's timers (presence, heartbeats, the minute jobs), which fire as Advance passes them.
type Clock = clock.Manual

// NewClock starts at a fixed, recent time.
func NewClock() *Clock { return clock.NewManual(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)) }

// NewClockAt starts at t: a clock for what must agree with the real one now (tokens checked
// by a verifier on the real clock).
func NewClockAt(t time.Time) *Clock { return clock.NewManual(t) }

// WithClock runs the engine on c.
func WithClock(c *Clock) Option { return func(o *engine.Options) { o.Clock = c } }

// WithManualJobs leaves the engine's background jobs to the test's own calls (PurgeNow,
// PruneLog, ExpireUploads, ExpirePreviews), so that advancing the clock does not run them.
func WithManualJobs() Option { return func(o *engine.Options) { o.ManualJobs = true } }
