package engine

import (
	"context"
	"errors"
	"runtime"
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// replayChunk is how many logged events one read transaction of a replay covers, so that a
// slow client never holds a transaction open for long.
const replayChunk = 256

// errGone ends a stream whose member left the community.
var errGone = errors.New("the member left the community")

// errResync ends a replay that found part of the log pruned.
var errResync = errors.New("resync")

// Subscribe streams events to one client: a heartbeat at once (so the client and any proxy see
// the stream open before the first event), then every event after afterSeq the caller may see,
// from the log; then live events from the hub; a heartbeat every 25 s. It returns when the
// client goes away (ctx), the stream must resync, the member leaves, or the server closes;
// a nil error means the stream ended normally.
//
// The calling goroutine only waits: everything that sends (replay, heartbeats, deliveries)
// runs on a goroutine of its own that ends when it is done (see RunOnFreshStack), so that the stack an
// idle stream keeps is only as deep as the wait.
func (e *Engine) Subscribe(ctx context.Context, c Caller, afterSeq int64, send func(*Frame) error) error {
	if _, err := e.snap.Load().caller(c); err != nil {
		return err
	}
	e.streams.Add(1)
	defer e.streams.Add(-1)
	ctx, untrack := e.open.track(ctx, c.ID)
	defer untrack()
	cur := e.hub.cursor()
	defer e.hub.leave(cur.reg)
	e.presence.opened(c.ID)
	defer e.presence.closed(c.ID)
	s := &stream{e: e, member: c.ID, send: send}
	err := RunOnFreshStack(func() error { return s.start(ctx, afterSeq, cur) })
	if err == nil {
		err = s.live(ctx, cur.reg)
	}
	if errors.Is(err, context.Canceled) {
		// Ended by the engine (see streamSet) or by the client going away.
		if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
			err = cause
		}
	}
	if errors.Is(err, errGone) || errors.Is(err, context.Canceled) || errors.Is(err, errEnded) {
		return nil
	}
	return err
}

// errEnded ends a stream normally after start sent resync.
var errEnded = errors.New("the stream ended")

// start sends the first heartbeat and replays the log after afterSeq up to the stream's
// cursor; or sends resync (and ends the stream with errEnded) when the log no longer has it.
func (s *stream) start(ctx context.Context, afterSeq int64, cur cursor) error {
	if afterSeq > cur.seq || afterSeq < s.e.firstKeptSeq()-1 {
		return s.resyncAndEnd()
	}
	if err := s.heartbeat(); err != nil {
		return err
	}
	err := s.replay(ctx, afterSeq, cur.seq, cur.snap)
	if errors.Is(err, errResync) {
		return s.resyncAndEnd()
	}
	return err
}

func (s *stream) resyncAndEnd() error {
	if err := s.resync(); err != nil {
		return err
	}
	return errEnded
}

// RunOnFreshStack runs fn on a new goroutine and waits for it; a panic in fn goes on in the caller. A
// long-lived goroutine that does deep work keeps the stack that work needed while it waits
// (the runtime halves it at a garbage collection only when under a quarter is in use), so on
// a server with thousands of mostly idle streams the work is done on goroutines that end,
// and the stream's own goroutine stays small.
func RunOnFreshStack(fn func() error) error {
	var err error
	var p any
	finished, panicked := false, false
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if !finished {
				p, panicked = recover(), true
			}
		}()
		err = fn()
		finished = true
	}()
	<-done
	if panicked {
		if p == nil {
			// fn called runtime.Goexit (t.FailNow in a test's send): end this goroutine too.
			runtime.Goexit()
		}
		panic(p)
	}
	return err
}

// firstKeptSeq is the seq of the oldest event still in the log (1 while nothing was pruned).
func (e *Engine) firstKeptSeq() int64 {
	if s := e.logStart.Load(); s > 0 {
		return s
	}
	return 1
}

type stream struct {
	e       *Engine
	member  string
	send    func(*Frame) error
	visible []hubEntry
}

func (s *stream) heartbeat() error {
	return s.send(newFrame(&svcv1.Event{AtMs: s.e.now().UnixMilli(), Kind: &svcv1.Event_Heartbeat{Heartbeat: true}}))
}

func (s *stream) resync() error {
	return s.send(newFrame(&svcv1.Event{AtMs: s.e.now().UnixMilli(), Kind: &svcv1.Event_Resync{Resync: true}}))
}

// replay sends the logged events after..until the member may see, judged against snap (the
// community now), a chunk per read transaction, leaving out events about messages past
// retention. Seqs are consecutive, so a missing one means the pruner deleted it meanwhile: the
// client must resync.
func (s *stream) replay(ctx context.Context, after, until int64, snap *Snapshot) error {
	cutoff := cutoffMs(snap.Settings(), s.e.now())
	for after < until {
		var frames []*Frame
		gap := false
		err := s.e.db.View(func(r *store.Reader) error {
			return r.Events(after, until, func(le *storepb.LoggedEvent) (bool, error) {
				seq := le.GetEvent().GetSeq()
				if seq != after+1 {
					gap = true
					return false, nil
				}
				after = seq
				if !snap.receives(s.member, le.GetAudience()) {
					return true, nil
				}
				// Messages past retention are gone from replay as from ListMessages.
				if gone, err := eventExpired(r, le.GetEvent(), cutoff); err != nil || gone {
					return err == nil, err
				}
				frames = append(frames, newFrame(le.GetEvent()))
				return len(frames) < replayChunk, nil
			})
		})
		if err != nil {
			return err
		}
		if gap {
			return errResync
		}
		for _, f := range frames {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.send(f); err != nil {
				return err
			}
		}
		if len(frames) < replayChunk {
			break
		}
	}
	return nil
}

// live sends what the hub publishes from the stream's position on, until the stream ends.
func (s *stream) live(ctx context.Context, reg *readPos) error {
	heartbeat := time.NewTicker(s.e.opts.Heartbeat)
	defer heartbeat.Stop()
	pos := reg.pos.Load()
	var buf []hubEntry
	for {
		rr := s.e.hub.read(pos, buf[:0])
		if rr.lost {
			return RunOnFreshStack(s.resync)
		}
		if len(rr.entries) > 0 {
			if err := RunOnFreshStack(func() error { return s.deliver(rr.entries) }); err != nil {
				return err
			}
			pos, buf = rr.next, reuse(rr.entries)
			reg.pos.Store(pos)
			continue
		}
		if rr.closed {
			return nil
		}
		select {
		case <-rr.wake:
		case <-heartbeat.C:
			if err := RunOnFreshStack(s.heartbeat); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// keepEntries is the largest buffer of entries a stream keeps from one read to the next. A
// burst (the presence changes of many streams opening at once) can grow a stream's buffers to
// thousands of entries; kept, that is tens of KiB on every idle stream.
const keepEntries = 64

// reuse empties buf for the next read: cleared (so that it holds no Frames or Snapshots)
// when it is small, dropped when a burst made it large.
func reuse(buf []hubEntry) []hubEntry {
	if cap(buf) > keepEntries {
		return nil
	}
	clear(buf)
	return buf[:0]
}

// deliver sends the entries this member may receive, in order. When more than one presence
// change is among them, they go as one presence_batch (the latest change per member) in the
// place of the last one.
func (s *stream) deliver(entries []hubEntry) error {
	s.visible = s.visible[:0]
	presences, gone := 0, false
	for _, en := range entries {
		if en.snap.active(s.member) == nil {
			gone = true
			break
		}
		if !en.snap.receives(s.member, en.aud) {
			continue
		}
		if isPresence(en.frame) {
			presences++
		}
		s.visible = append(s.visible, en)
	}
	var batch *Frame
	if presences > 1 {
		batch = s.presenceBatch()
	}
	seen := 0
	for _, en := range s.visible {
		f := en.frame
		if batch != nil && isPresence(f) {
			if seen++; seen < presences {
				continue
			}
			f = batch
		}
		if err := s.send(f); err != nil {
			return err
		}
	}
	s.visible = reuse(s.visible)
	if gone {
		return errGone
	}
	return nil
}

// isPresence tells presence and presence_batch events, which fold into one another.
func isPresence(f *Frame) bool {
	return f.Event.GetPresence() != nil || f.Event.GetPresenceBatch() != nil
}

// presenceBatch folds the visible presence and presence_batch events into one, keeping each
// member's latest change.
func (s *stream) presenceBatch() *Frame {
	var changes []*svcv1.PresenceEvent
	var at int64
	for _, en := range s.visible {
		ev := en.frame.Event
		if p := ev.GetPresence(); p != nil {
			changes = append(changes, p)
		} else if b := ev.GetPresenceBatch(); b != nil {
			changes = append(changes, b.GetChanges()...)
		} else {
			continue
		}
		at = ev.GetAtMs()
	}
	return newFrame(&svcv1.Event{AtMs: at, Kind: &svcv1.Event_PresenceBatch{
		PresenceBatch: &svcv1.PresenceBatch{Changes: latestPerMember(changes)},
	}})
}
