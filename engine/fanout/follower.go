package fanout

import "context"

// A Follower reads the event log in seq order from a position on, each event once: first the
// logged events after that position (replay, through the Replay it is given), then what the
// hub publishes from then on. It registers its place in the hub's ring before it replays, so
// nothing published during the replay is missed or handed over twice. It hands over only what
// its Audience receives. A follower that falls further behind than the ring holds gets
// ErrResync.
//
// It is what every reader of the log shares: the streams (through a Stream), and consumers that
// do their work on their own goroutine (Run).
type Follower[E Entry] struct {
	hub *Hub[E]
	// pos is the follower's place in the hub's ring, registered there; held here, not on its
	// own, so that the deliverers' pass over a thousand streams finds it beside the rest.
	pos Position
	// until is the seq where the replay ends and the ring takes over; after is the seq of the
	// last event replayed.
	until, after int64
	replay       Replay[E]
	aud          Audience[E]
	// wake is closed by the hub's next publish after the last read of the ring.
	wake   chan struct{}
	buf    []E
	gone   bool
	closed bool
}

// Audience is who a follower hands entries to: the engine's rules of who may see what.
type Audience[E Entry] interface {
	// Receives reports whether the follower's consumer receives e. gone reports that it no
	// longer receives anything (its member left): the follower hands over what came before e
	// and then ends with ErrGone.
	Receives(e *E) (receives, gone bool)
}

// Replay reads the logged events after `after`, up to `until`, into buf: those the follower's
// consumer receives, in order, a chunk at a time. last is the seq of the last event it read,
// handed over or not; it returns no entries only once it reached until. It fails with
// ErrResync when the log no longer holds what it should.
type Replay[E Entry] func(after, until int64, buf []E) (out []E, last int64, err error)

// Follow makes a follower of h that hands over the logged events after `after` up to `until`
// through replay, then what h publishes from now on, as far as aud receives them (nil: all).
// Call it under whatever orders h's publishes with `until`, so that the events after until
// are exactly those h publishes from now on. Close it when done.
func Follow[E Entry](h *Hub[E], after, until int64, replay Replay[E], aud Audience[E]) *Follower[E] {
	f := &Follower[E]{hub: h, after: after, until: until, replay: replay, aud: aud}
	h.join(&f.pos)
	return f
}

// Close lets go of the follower's place in the hub.
func (f *Follower[E]) Close() {
	if !f.closed {
		f.closed = true
		f.hub.leave(&f.pos)
	}
}

// Next returns the events available now, in seq order, without waiting: a chunk of the replay
// while there is one, then what the hub has published since the last call. An empty answer
// means nothing is waiting: call Wait. The slice is the follower's own and is reused by the
// next call. Errors: ErrResync, ErrGone, the hub's closed error, or the replay's.
func (f *Follower[E]) Next() ([]E, error) { return f.next(nil) }

// next is Next, reading what the hub published from w when w holds it (a deliverer's window).
func (f *Follower[E]) next(w *window[E]) ([]E, error) {
	if f.gone {
		return nil, ErrGone
	}
	if f.after < f.until {
		out, last, err := f.replay(f.after, f.until, reuse(f.buf))
		f.buf = out
		if err != nil {
			return nil, err
		}
		f.after = max(f.after, last)
		if len(out) > 0 {
			return out, nil
		}
		if f.after < f.until {
			// The log ended before until: pruned under us, or never written.
			return nil, ErrResync
		}
	}
	return f.live(w)
}

// Replaying reports whether the follower still has logged events to read from the log.
func (f *Follower[E]) Replaying() bool { return f.after < f.until }

// Wait blocks until Next may have more (the hub published, or closed: Next then answers its
// closed error) or alarm has something, and then it reports true. One channel of the
// consumer's for all its own signals, not one per reason: every publish wakes every waiting
// follower, and a select's cost grows with its channels.
func (f *Follower[E]) Wait(alarm <-chan struct{}) (alarmed bool) {
	if f.wake == nil {
		return false
	}
	select {
	case <-f.wake:
		return false
	case <-alarm:
		return true
	}
}

// Run hands every event to fn, batch by batch, until ctx ends, fn fails or the follower does.
// It suits consumers that do their work on the follower's goroutine.
func (f *Follower[E]) Run(ctx context.Context, fn func([]E) error) error {
	for {
		ds, err := f.Next()
		if err != nil {
			return err
		}
		if len(ds) > 0 {
			if err := fn(ds); err != nil {
				return err
			}
			continue
		}
		if f.Wait(ctx.Done()) {
			return ctx.Err()
		}
	}
}

// live reads what the hub published from the follower's place on (from w when it holds it),
// keeps the entries its audience receives, and moves its place.
func (f *Follower[E]) live(w *window[E]) ([]E, error) {
	pos := f.pos.pos.Load()
	if f.wake != nil && !f.hub.hasNew(pos) && !isClosed(f.wake) {
		// Nothing since the last read, which found the hub open: the same answer without the
		// lock. A closed wake channel means the hub closed, or swapped it without appending.
		return nil, nil
	}
	buf := reuse(f.buf)
	rr, ok := w.read(pos, buf)
	if !ok {
		rr = f.hub.read(pos, buf)
	}
	if rr.lost {
		return nil, ErrResync
	}
	f.wake = rr.wake
	if len(rr.entries) == 0 {
		f.buf = rr.entries
		if rr.closed {
			return nil, f.hub.closedErr
		}
		return nil, nil
	}
	f.pos.pos.Store(rr.next)
	out := rr.entries[:0]
	for i := range rr.entries {
		if f.aud != nil {
			receives, gone := f.aud.Receives(&rr.entries[i])
			if gone {
				f.gone = true
				break
			}
			if !receives {
				continue
			}
		}
		out = append(out, rr.entries[i])
	}
	// What was filtered out stays referenced past len(out) until the next read clears it.
	f.buf = rr.entries
	if len(out) == 0 && f.gone {
		return nil, ErrGone
	}
	return out, nil
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// keepEntries is the largest buffer of entries a follower keeps from one read to the next. A
// burst (the presence changes of many streams opening at once) can grow a buffer to thousands
// of entries; kept, that is tens of KiB on every idle stream.
const keepEntries = 64

// reuse empties buf for the next read: cleared (so that it holds nothing the ring let go of)
// when it is small, dropped when a burst made it large. Every read fills its buffer from
// empty, so clearing what the last one filled clears everything.
func reuse[E any](buf []E) []E {
	if cap(buf) > keepEntries {
		return nil
	}
	clear(buf)
	return buf[:0]
}
