// Package clock is the time the engine runs on: its reads of the time (rate limits, expiry,
// retention, message times) and its timers (presence, heartbeats, the background jobs). The
// server runs on the wall clock (Real); tests run on a Manual clock that moves only when told,
// firing the timers that come due as it does, so that nothing a test checks waits on real time.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and runs timers on it.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once d has passed on this clock (in its own goroutine on the wall
	// clock, within Advance on a Manual one). Stop reports whether it stopped f from running.
	AfterFunc(d time.Duration, f func()) Timer
	// NewTicker delivers the time on C every d, dropping ticks a slow reader misses, as
	// time.Ticker does.
	NewTicker(d time.Duration) Ticker
}

// Timer is a pending AfterFunc.
type Timer interface{ Stop() bool }

// Ticker is a running NewTicker.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Real is the wall clock.
type Real struct{}

func (Real) Now() time.Time                            { return time.Now() }
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
func (Real) NewTicker(d time.Duration) Ticker          { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }

// Manual is a clock that moves only when Advance (or Set) says. Its timers fire inside
// Advance, in time order, each at its own time (Now during the call is the timer's time), so
// a test that advances past a deadline finds its effects done when Advance returns.
type Manual struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
	// firing serializes Advance calls, so timers fire in order even when two tests' goroutines
	// advance at once.
	firing sync.Mutex
}

type manualTimer struct {
	m      *Manual
	at     time.Time
	f      func()
	every  time.Duration // > 0 for a ticker
	c      chan time.Time
	active bool
}

type manualTicker struct{ *manualTimer }

func (t *manualTimer) Stop() bool           { return t.m.stop(t) }
func (t *manualTicker) Stop()               { t.m.stop(t.manualTimer) }
func (t *manualTicker) C() <-chan time.Time { return t.c }

func newTimer(m *Manual, at time.Time, f func()) *manualTimer {
	return &manualTimer{m: m, at: at, f: f}
}

// NewManual returns a Manual clock at t.
func NewManual(t time.Time) *Manual { return &Manual{now: t} }

// Now is the clock's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// AfterFunc schedules f at Now+d.
func (m *Manual) AfterFunc(d time.Duration, f func()) Timer {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := newTimer(m, m.now.Add(d), f)
	m.add(t)
	return t
}

// NewTicker ticks every d from now on.
func (m *Manual) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTicker{newTimer(m, m.now.Add(d), nil)}
	t.every, t.c = d, make(chan time.Time, 1)
	m.add(t.manualTimer)
	return t
}

// Advance moves the clock forward by d, firing every timer that comes due on the way.
func (m *Manual) Advance(d time.Duration) {
	m.Set(m.Now().Add(d))
}

// Set moves the clock to t (never back), firing every timer that comes due on the way.
func (m *Manual) Set(t time.Time) {
	m.firing.Lock()
	defer m.firing.Unlock()
	for {
		m.mu.Lock()
		if len(m.timers) == 0 || m.timers[0].at.After(t) {
			if t.After(m.now) {
				m.now = t
			}
			m.mu.Unlock()
			return
		}
		next := m.timers[0]
		m.timers = m.timers[1:]
		if next.at.After(m.now) {
			m.now = next.at
		}
		if next.every > 0 {
			next.at = next.at.Add(next.every)
			m.add(next)
		} else {
			next.active = false
		}
		now := m.now
		m.mu.Unlock()
		if next.f != nil {
			next.f()
		} else {
			select {
			case next.c <- now:
			default:
			}
		}
	}
}

// add inserts t in time order (after those due at the same time). Called with m.mu held.
func (m *Manual) add(t *manualTimer) {
	t.active = true
	i := sort.Search(len(m.timers), func(i int) bool { return m.timers[i].at.After(t.at) })
	m.timers = append(m.timers, nil)
	copy(m.timers[i+1:], m.timers[i:])
	m.timers[i] = t
}

func (m *Manual) stop(t *manualTimer) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !t.active {
		return false
	}
	t.active = false
	for i, x := range m.timers {
		if x == t {
			m.timers = append(m.timers[:i], m.timers[i+1:]...)
			break
		}
	}
	return true
}
