package fanout

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrSlowConsumer ends a stream whose client does not take its events as fast as they come:
// its queue is full (MaxQueued), or a write to it did not finish within its sink's deadline.
// The client subscribes again from the last seq it has, losing nothing.
var ErrSlowConsumer = errors.New("slow consumer")

// MaxQueued is how many frames may wait in a stream's queue for its writer. At 1,000 events a
// second to one stream it is about a second of events; a client that falls that far behind is
// ended (ErrSlowConsumer) rather than held in memory, and resumes from its last seq.
const MaxQueued = 1024

// keepQueue is the largest queue buffer a stream keeps between two batches (see reuse).
const keepQueue = 64

// Sink writes a stream's frames to its client: one per transport, called by the stream's one
// writer (Stream.Serve) only.
type Sink interface {
	// Write writes frames, in order, as one write to the client (one flush), and returns once
	// they are written. A write that does not finish within the sink's deadline fails with an
	// error that wraps ErrSlowConsumer.
	Write(frames []*Frame) error
}

// StreamOptions shape a stream.
type StreamOptions struct {
	// MaxQueued bounds the queue (default MaxQueued).
	MaxQueued int
	// Fold, when set, rewrites a batch of frames before it is written: the engine folds
	// several presence changes into one.
	Fold func([]*Frame) []*Frame
	// Last, when set, gives the frame to write once the stream ends with err, after what is
	// queued (nil: none): the engine's resync.
	Last func(err error) *Frame
}

// A Stream is one client's stream of the log: its Follower, read by the replay and then by a
// deliverer, puts what the client may see on a bounded queue, and one writer takes everything
// queued and writes it to the Sink as one write: Serve, on the transport's goroutine for as
// long as the stream lasts, or Run's, a goroutine started only while there is something to
// write.
//
//   - Replay: a goroutine of its own reads the log's chunks and queues them, waiting for room
//     (the writer sets the pace), then hands the follower to the deliverers and ends.
//   - Live: the deliverers queue what each publish brings the stream, without waiting; a
//     queue that has no room ends the stream with ErrSlowConsumer at once, letting go of its
//     place in the ring and of what it queued.
//   - Frames from outside the log (heartbeats) are queued with Send.
//   - It ends when the writer's context ends (the client went away), when the sink fails, when
//     it is stopped (Stop: at once, what is queued is dropped), or when its follower ends
//     (End: after what is queued, and the Last frame).
type Stream[E Entry] struct {
	opts StreamOptions
	// over is set once the stream has an end: deliverers pass it by without its locks.
	over atomic.Bool
	// live is set once the follower has replayed: from then on the deliverers read it.
	live atomic.Bool

	// mu is the follower's: whoever reads it (the replay, then a deliverer) holds it.
	mu    sync.Mutex
	f     *Follower[E]
	d     *Deliverers[E]
	shard *shard[E]
	slot  int

	// qmu guards the queue and the end.
	qmu   sync.Mutex
	queue []*Frame
	spare []*Frame // the writer's last batch, emptied, for the queue after the next
	ended bool
	end   error
	// drop: the end is at once; what is queued is not written. byWriter: the end is the
	// writer's own (its context, its sink), not one it was given.
	drop, byWriter bool
	// ready is rung when frames are queued or the stream ends: the writer waits on it.
	ready chan struct{}
	// room is rung when the writer takes the queue while the replay waits for room (wanted),
	// or when the stream ends.
	room   chan struct{}
	wanted bool

	// run is set by Run: the stream has no writer waiting on ready, and one is started when
	// something is queued or the stream ends, while none is writing (writing, under qmu).
	run     *runner
	writing bool
}

// runner is what Run keeps for the writers it starts.
type runner struct {
	ctx  context.Context
	sink Sink
	done func(error)
	stop func() bool // the context's AfterFunc
}

// NewStream makes a stream; Start gives it its follower, Serve writes it.
func NewStream[E Entry](opts StreamOptions) *Stream[E] {
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = MaxQueued
	}
	return &Stream[E]{opts: opts, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// Start gives the stream its follower: it replays (on a goroutine of its own, when there is
// a replay) and then goes live with d's deliverers. A stream that ended already closes f.
func (s *Stream[E]) Start(f *Follower[E], d *Deliverers[E]) {
	s.mu.Lock()
	s.f, s.d = f, d
	s.mu.Unlock()
	if s.over.Load() {
		s.closeFollower()
		return
	}
	d.join(s)
	if f.Replaying() {
		// The replay reads the database and waits for the client: on a goroutine that ends
		// with it, so that the writer's stays shallow and no deliverer waits.
		go s.replay()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.recoverFollowing()
	s.goLive()
}

// replay queues what the follower reads, each chunk as the queue has room, until it has
// nothing more, then goes live.
func (s *Stream[E]) replay() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.recoverFollowing()
	for {
		if s.over.Load() {
			s.f.Close()
			return
		}
		ds, err := s.f.Next()
		if err != nil {
			s.finish(err)
			return
		}
		if len(ds) == 0 {
			break
		}
		if !s.queueEntries(ds, true) {
			s.f.Close()
			return
		}
	}
	s.goLive()
}

// goLive tells the deliverers to read the follower from now on, and reads once more what was
// published meanwhile, under the same hold of mu: a deliverer that found the stream not live
// yet passed it by, and what it had is read here; one that finds it live waits for mu.
func (s *Stream[E]) goLive() {
	s.live.Store(true)
	s.readLive(nil)
}

// deliver is a deliverer's turn at the stream: it queues what the follower has, read from w
// when w holds it.
func (s *Stream[E]) deliver(w *window[E]) {
	if !s.live.Load() || s.over.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.recoverFollowing()
	s.readLive(w)
}

// readLive queues what the follower has now, without waiting; s.mu held.
func (s *Stream[E]) readLive(w *window[E]) {
	for !s.over.Load() {
		ds, err := s.f.next(w)
		if err != nil {
			s.finish(err)
			return
		}
		if len(ds) == 0 {
			return
		}
		if !s.queueEntries(ds, false) {
			// Ended (slow, or stopped meanwhile): its place in the ring goes at once.
			s.f.Close()
			return
		}
	}
}

// finish ends the stream after what is queued, because its follower ended with err; s.mu held.
func (s *Stream[E]) finish(err error) {
	s.f.Close()
	s.endWith(err, false)
}

// recoverFollowing hands a panic on a deliverer's or the replay's goroutine to the stream's
// writer, which panics with it (where the transport's server ends that request): the
// deliverer goes on with the other streams, and the process with them. s.mu held.
func (s *Stream[E]) recoverFollowing() {
	if p := recover(); p != nil {
		s.f.Close()
		s.endWith(followPanic{p}, true)
	}
}

// followPanic is a panic while a stream's follower was read, handed to its writer.
type followPanic struct{ value any }

func (p followPanic) Error() string { return fmt.Sprint("reading the log panicked: ", p.value) }

// queueEntries puts the frames of ds on the queue. wait: wait for room (the replay); else a
// queue without room ends the stream with ErrSlowConsumer. False once the stream has ended.
func (s *Stream[E]) queueEntries(ds []E, wait bool) bool {
	for len(ds) > 0 {
		s.qmu.Lock()
		if s.ended {
			s.qmu.Unlock()
			return false
		}
		n := min(len(ds), s.opts.MaxQueued-len(s.queue))
		if n < len(ds) && !wait {
			s.endLocked(ErrSlowConsumer, true)
			s.qmu.Unlock()
			return false
		}
		for _, d := range ds[:n] {
			s.queue = append(s.queue, d.EventFrame())
		}
		ds = ds[n:]
		s.wanted = len(ds) > 0
		if n > 0 {
			s.wakeLocked()
		}
		s.qmu.Unlock()
		if len(ds) > 0 {
			<-s.room
		}
	}
	return true
}

// Send queues frames that are not the log's (heartbeats) without waiting; false once the
// stream has ended. They do not count against MaxQueued: a replay keeps the queue full while
// its client reads, and they come seldom.
func (s *Stream[E]) Send(frames ...*Frame) bool {
	s.qmu.Lock()
	if s.ended {
		s.qmu.Unlock()
		return false
	}
	s.queue = append(s.queue, frames...)
	s.wakeLocked()
	s.qmu.Unlock()
	return true
}

// Stop ends the stream with err at once: nothing more is queued once it returns (before
// whatever its caller publishes next), and what is queued is not written. The first end is
// the one it keeps.
func (s *Stream[E]) Stop(err error) { s.endWith(err, true) }

// End ends the stream with err once what is queued is written (and its Last frame).
func (s *Stream[E]) End(err error) { s.endWith(err, false) }

func (s *Stream[E]) endWith(err error, drop bool) {
	s.qmu.Lock()
	s.endLocked(err, drop)
	s.qmu.Unlock()
}

// endByWriter is the writer's own end, unless the stream had one already.
func (s *Stream[E]) endByWriter(err error) {
	s.qmu.Lock()
	if !s.ended {
		s.endLocked(err, true)
		s.byWriter = true
	}
	s.qmu.Unlock()
}

func (s *Stream[E]) endLocked(err error, drop bool) {
	if s.ended {
		return
	}
	s.ended, s.end, s.drop = true, err, drop
	s.over.Store(true)
	if drop {
		clear(s.queue)
		s.queue = s.queue[:0]
	}
	s.wakeLocked()
	ring(s.room)
}

// wakeLocked tells the writer that something is queued or the stream ended: Serve's waits on
// ready; with Run, one is started unless one is writing. s.qmu held.
func (s *Stream[E]) wakeLocked() {
	if s.run == nil {
		ring(s.ready)
		return
	}
	if !s.writing {
		s.writing = true
		go s.writeOut()
	}
}

// StoppedWith reports whether err is the end the stream was given (Stop, End, the follower's
// end or the slow-consumer rule), not one its writer met (its context's, its sink's).
func (s *Stream[E]) StoppedWith(err error) bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.ended && !s.byWriter && err != nil && s.end == err
}

// Serve is the stream's one writer: it writes everything queued to sink as one write, until
// the stream ends, and returns why: the end it was given, ctx's error once ctx ends (the client
// went away), or the sink's. Then it lets go of everything the stream held.
func (s *Stream[E]) Serve(ctx context.Context, sink Sink) error {
	err := s.serve(ctx, sink)
	s.release(err)
	if p, ok := err.(followPanic); ok {
		panic(p.value)
	}
	return err
}

func (s *Stream[E]) serve(ctx context.Context, sink Sink) error {
	// The context's end rings ready too, so that the writer waits on one channel: a select
	// over two, each wait locking both, cost a quarter of the fan-out's CPU per delivery
	// (BenchmarkFanOut1000, docs/performance.md).
	stop := context.AfterFunc(ctx, func() { ring(s.ready) })
	defer stop()
	var written []*Frame
	for {
		batch, done, err := s.take(ctx, written)
		if len(batch) > 0 {
			if s.opts.Fold != nil {
				batch = s.opts.Fold(batch)
			}
			if werr := sink.Write(batch); werr != nil {
				return werr
			}
		}
		if done {
			return err
		}
		written = batch
	}
}

// release lets go of everything the stream held once its writer is done with err.
func (s *Stream[E]) release(err error) {
	s.endByWriter(err)
	if s.d != nil {
		s.d.leave(s)
	}
	s.closeFollower()
}

// Run is Serve without a goroutine that waits: it returns at once, and a writer is started
// when something is queued or the stream ends, while none is writing, and ends once it has
// written everything queued. An idle stream holds no goroutine (an open stream's goroutine
// and its stack were most of what it held: docs/performance.md). done is called once, on the
// last writer's goroutine, with what Serve would have returned; a panic reading the log is
// handed to it as an error rather than panicking on a goroutine no server recovers. Call it
// once, in the place of Serve and as Serve after Start (a writer lets go of the stream's place
// among the deliverers, which Start gives it); what was queued before it waits for it.
func (s *Stream[E]) Run(ctx context.Context, sink Sink, done func(error)) {
	r := &runner{ctx: ctx, sink: sink, done: done}
	s.qmu.Lock()
	s.run = r
	// The context's end is the writer's, as Serve's.
	r.stop = context.AfterFunc(ctx, func() { s.endByWriter(ctx.Err()) })
	if len(s.queue) > 0 || s.ended {
		s.wakeLocked()
	}
	s.qmu.Unlock()
}

// writeOut is one of Run's writers: it writes what is queued until nothing is, or the stream
// ends.
func (s *Stream[E]) writeOut() {
	r := s.run
	var written []*Frame
	for {
		batch, done, err, ok := s.takeQueued(written)
		if !ok {
			return
		}
		if len(batch) > 0 {
			if s.opts.Fold != nil {
				batch = s.opts.Fold(batch)
			}
			if werr := r.sink.Write(batch); werr != nil {
				err, done = werr, true
			}
		}
		if done {
			r.stop()
			s.release(err)
			r.done(err)
			return
		}
		written = batch
	}
}

// takeQueued is Run's take: it takes what is queued without waiting; ok is false, and the
// writer ends, when nothing is (writing is cleared under the lock that queues, so what is
// queued after finds no writer and starts one).
func (s *Stream[E]) takeQueued(written []*Frame) (batch []*Frame, done bool, err error, ok bool) {
	written = emptied(written)
	s.qmu.Lock()
	if written != nil {
		s.spare = written[:0]
	}
	if len(s.queue) == 0 && !s.ended {
		s.writing = false
		s.qmu.Unlock()
		return nil, false, nil, false
	}
	batch, done, err = s.takeLocked()
	return batch, done, err, true
}

// take waits for frames or the end (on ready, which ctx's end rings too: serve), and takes all
// that is queued (takeLocked). written, the batch written last, becomes the queue after the
// next, emptied, while it is small: a burst's buffer stays with no idle stream.
func (s *Stream[E]) take(ctx context.Context, written []*Frame) (batch []*Frame, done bool, err error) {
	written = emptied(written)
	for {
		s.qmu.Lock()
		if written != nil {
			s.spare, written = written[:0], nil
		}
		if len(s.queue) > 0 || s.ended {
			return s.takeLocked()
		}
		s.qmu.Unlock()
		<-s.ready
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
	}
}

// takeLocked takes all that is queued: the batch, and done with the stream's end when nothing
// follows it (the Last frame, if any, ends the batch). It unlocks s.qmu, which its caller
// holds, and wakes a replay that waits for room.
func (s *Stream[E]) takeLocked() (batch []*Frame, done bool, err error) {
	batch, s.queue, s.spare = s.queue, s.spare, nil
	done, err = s.ended, s.end
	if done && !s.drop && s.opts.Last != nil {
		if f := s.opts.Last(err); f != nil {
			batch = append(batch, f)
		}
	}
	wanted := s.wanted
	s.wanted = false
	s.qmu.Unlock()
	if wanted {
		ring(s.room)
	}
	return batch, done, err
}

// emptied is a written batch made ready to be a queue again, or nil when it is too large to
// keep (keepQueue).
func emptied(written []*Frame) []*Frame {
	if cap(written) > keepQueue {
		return nil
	}
	clear(written[:cap(written)])
	return written
}

func (s *Stream[E]) closeFollower() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
	}
}

// ring wakes whoever waits on ch, once, without waiting.
func ring(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
