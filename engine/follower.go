package engine

import (
	"context"
	"errors"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// A Follower reads the community's events in seq order from a position on, each exactly once:
// first the logged events after that position, from the database (replay), then the events
// the writer commits from then on, from the hub. It is what every consumer of the event log
// shares: the Subscribe streams, the plugins (hooks in log order) and the search index.
//
// The follower registers its place in the hub's ring before it replays, so nothing committed
// during the replay is missed or handed over twice. A follower that falls further behind than
// the ring holds, or asks for a position the log no longer keeps, gets ErrResync: it starts
// again from a newer position (a client calls GetState first).

// ErrResync ends a follower that fell further behind than the event log or the hub's ring
// keeps, or that asked for a position outside the log.
var ErrResync = errors.New("the event log no longer holds what follows this position: resync")

// ErrGone ends a follower that follows a member (FollowOptions.Member) once that member is no
// longer in the community.
var ErrGone = errors.New("the member left the community")

// replayChunk is how many events one read transaction of a replay hands over at most, so that
// a slow consumer never holds a transaction open for long.
const replayChunk = 256

// FollowOptions say where a follower starts and what it hands over.
type FollowOptions struct {
	// AfterSeq is the seq of the last event the consumer has: the follower starts after it.
	AfterSeq int64
	// Member, when set, follows as that member: only the events they may receive, and ErrGone
	// after the last one while they are in the community. Empty: every event.
	Member string
	// LoggedOnly leaves out the ephemeral events (typing, presence, seq 0).
	LoggedOnly bool
}

// Follower is one reader of the event log; see Follow. It is not safe for concurrent use.
type Follower struct {
	e    *Engine
	opts FollowOptions
	// pos is the follower's place in the hub's ring, registered there; held here, not on its
	// own, so that the deliverers' pass over a thousand streams finds it beside the rest.
	pos readPos
	// until is the seq where the replay ends and the ring takes over; after is the seq of the
	// last event replayed.
	until, after int64
	// snap judges the replayed events: the community when the follower started.
	snap *Snapshot
	// wake is closed by the hub's next publish after the last read of the ring.
	wake   chan struct{}
	buf    []Delivery
	gone   bool
	closed bool
	// member is the active row of the member followed, as of the Snapshot whose membersGen is
	// activeIn: until the members change, it is the row every event is judged with (rows are
	// replaced, never changed), so a delivery costs no lookup of it.
	member   *storepb.MemberRecord
	activeIn uint64
}

// Follow starts a follower after opts.AfterSeq. It fails with ErrResync when that position is
// newer than the log or older than what the log keeps. Close it when done.
func (e *Engine) Follow(opts FollowOptions) (*Follower, error) {
	f := &Follower{e: e, opts: opts, after: opts.AfterSeq}
	cur := e.hub.cursor(&f.pos)
	if opts.AfterSeq > cur.seq || opts.AfterSeq < e.firstKeptSeq()-1 {
		e.hub.leave(&f.pos)
		return nil, ErrResync
	}
	f.until, f.snap = cur.seq, cur.snap
	return f, nil
}

// Close lets go of the follower's place in the hub.
func (f *Follower) Close() {
	if !f.closed {
		f.closed = true
		f.e.hub.leave(&f.pos)
	}
}

// Next returns the events available now, in seq order, without waiting: a chunk of the replay
// while there is one, then what the hub has published since the last call. An empty answer
// means nothing is waiting: call Wait. The slice is the follower's own and is reused by the
// next call. Errors: ErrResync, ErrGone, ErrClosed (the server shuts down), or a database error.
func (f *Follower) Next() ([]Delivery, error) { return f.next(nil) }

// next is Next, reading what the hub published from w when w holds it (a deliverer's window).
func (f *Follower) next(w *ringWindow) ([]Delivery, error) {
	if f.gone {
		return nil, ErrGone
	}
	if f.after < f.until {
		out, err := f.replay()
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
	return f.live(w)
}

// Replaying reports whether the follower still has logged events to read from the database.
func (f *Follower) Replaying() bool { return f.after < f.until }

// Wait blocks until Next may have more (the hub published, or the server shuts down: Next
// then answers ErrClosed) or alarm has something: the consumer's own signal (its context
// ending, its heartbeat coming due), and then it reports true. One channel of the consumer's
// for all of that, not one per reason: every publish wakes every waiting follower, and a
// select's cost grows with its channels (a ticker's channel also enters and leaves the timer
// heap on every wait). See docs/performance.md, "one channel to wait on besides the hub's".
func (f *Follower) Wait(alarm <-chan struct{}) (alarmed bool) {
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
// It suits consumers that do their work on the follower's goroutine (plugins, the search index).
func (f *Follower) Run(ctx context.Context, fn func([]Delivery) error) error {
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

// replay reads the next chunk of logged events after f.after up to f.until, judged against
// the community now, leaving out events about messages past retention. Seqs are consecutive,
// so a missing one means the pruner deleted it meanwhile: ErrResync.
func (f *Follower) replay() ([]Delivery, error) {
	out := reuse(f.buf)
	cutoff := cutoffMs(f.snap.Settings(), f.e.now())
	err := f.e.db.View(func(r *store.Reader) error {
		return r.Events(f.after, f.until, func(le *storepb.LoggedEvent) (bool, error) {
			seq := le.GetEvent().GetSeq()
			// Seqs follow each other, but for the one gap a restore leaves (restoreSeqGap), which
			// a follower crosses from the backup's last seq only: one that saw a seq past that,
			// saw the old server's events, not these.
			if seq != f.after+1 && seq != f.after+restoreSeqGap && seq-importGap(le) != f.after+1 {
				return false, ErrResync
			}
			f.after = seq
			if f.opts.Member != "" && !f.snap.receives(f.opts.Member, le.GetAudience()) {
				return true, nil
			}
			// Messages past retention are gone from replay as from ListMessages.
			if gone, err := eventExpired(r, le.GetEvent(), cutoff); err != nil || gone {
				return err == nil, err
			}
			// Nor does a replay show the text of a message deleted or edited since.
			if err := redactReplayed(r, le.GetEvent()); err != nil {
				return false, err
			}
			out = append(out, Delivery{Frame: newFrame(le.GetEvent()), Audience: le.GetAudience(), Reaction: le.GetReaction(), Snapshot: f.snap})
			return len(out) < replayChunk, nil
		})
	})
	f.buf = out
	if err != nil {
		return nil, err
	}
	if len(out) < replayChunk && f.after < f.until {
		// The log ended before until: pruned under us, or never written.
		return nil, ErrResync
	}
	return out, nil
}

// live reads what the hub published from the follower's place on (from w when it holds it),
// keeps the events the follower hands over, and moves its place.
func (f *Follower) live(w *ringWindow) ([]Delivery, error) {
	pos := f.pos.pos.Load()
	if f.wake != nil && !f.e.hub.hasNew(pos) && !isClosed(f.wake) {
		// Nothing since the last read, which found the hub open: the same answer without the
		// lock. A closed wake channel means the hub closed, or swapped it without appending.
		return nil, nil
	}
	buf := reuse(f.buf)
	rr, ok := w.read(pos, buf)
	if !ok {
		rr = f.e.hub.read(pos, buf)
	}
	if rr.lost {
		return nil, ErrResync
	}
	f.wake = rr.wake
	if len(rr.entries) == 0 {
		f.buf = rr.entries
		if rr.closed {
			return nil, ErrClosed
		}
		return nil, nil
	}
	f.pos.pos.Store(rr.next)
	out := rr.entries[:0]
	for _, d := range rr.entries {
		if f.opts.LoggedOnly && d.Event().GetSeq() == 0 {
			continue
		}
		if m := f.opts.Member; m != "" {
			if gen := d.Snapshot.membersGen; gen != f.activeIn || f.member == nil {
				if f.member = d.Snapshot.active(m); f.member == nil {
					f.gone = true
					break
				}
				f.activeIn = gen
			}
			if !d.Snapshot.receivesAs(m, f.member, d.Audience, d.channel) {
				continue
			}
		}
		out = append(out, d)
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

// reuse empties buf for the next read: cleared (so that it holds no Frames or Snapshots) when
// it is small, dropped when a burst made it large. Every read fills its buffer from empty, so
// clearing what the last one filled clears everything.
func reuse(buf []Delivery) []Delivery {
	if cap(buf) > keepEntries {
		return nil
	}
	clear(buf)
	return buf[:0]
}

// firstKeptSeq is the seq of the oldest event still in the log (1 while nothing was pruned).
func (e *Engine) firstKeptSeq() int64 {
	if s := e.logStart.Load(); s > 0 {
		return s
	}
	return 1
}
