package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"hearth/engine/clock"
	"hearth/engine/fanout"
	svcv1 "hearth/proto/svc/v1"
)

// StreamEnd says how a Subscribe stream ended, for logs and metrics.
type StreamEnd string

const (
	// StreamRefused: the stream never opened (the caller is no active member).
	StreamRefused StreamEnd = "refused"
	// StreamClientClosed: the client went away.
	StreamClientClosed StreamEnd = "client_closed"
	// StreamShutdown: the server closed its streams to shut down.
	StreamShutdown StreamEnd = "shutdown"
	// StreamResync: the stream was sent resync (too far behind, or asked for a seq the log no
	// longer has) and closed.
	StreamResync StreamEnd = "resync"
	// StreamLeft: the member left or was removed, or the bot's token changed.
	StreamLeft StreamEnd = "member_left"
	// StreamCapped: the member opened more streams than allowed, and this one was ended
	// (an error with CodeResourceExhausted).
	StreamCapped StreamEnd = "stream_cap"
	// StreamTokenExpired: the access token the stream was opened with expired
	// (ErrTokenExpired, CodeUnauthenticated).
	StreamTokenExpired StreamEnd = "token_expired"
	// StreamSlowConsumer: the client did not read its events in time: its queue filled up
	// (fanout.MaxQueued), or a write to it did not finish within the transport's deadline
	// (ErrSlowStream, CodeUnavailable).
	StreamSlowConsumer StreamEnd = "slow_consumer"
	// StreamFailed: anything else, such as a send that failed or a database error.
	StreamFailed StreamEnd = "error"
)

// StreamEnds are the reasons a stream that opened can end, for metrics to count from zero.
var StreamEnds = []StreamEnd{StreamClientClosed, StreamShutdown, StreamResync, StreamLeft, StreamCapped, StreamTokenExpired, StreamSlowConsumer, StreamFailed}

// Sink is where a stream's frames go: each transport has one (fanout.Sink). Its Write is
// called by the stream's one writer: the goroutine that called Subscribe, or SubscribeAsync's.
type Sink = fanout.Sink

// ErrSlowConsumer is what a sink's write that missed its deadline wraps (fanout).
var ErrSlowConsumer = fanout.ErrSlowConsumer

// ErrSlowStream ends a stream whose client did not read its events in time: what the client
// is told, if it reads at all.
var ErrSlowStream = &Error{Code: CodeUnavailable, Msg: "the stream was ended because its events were not read in time; subscribe again from the last seq you have"}

// SendFunc is a Sink that takes a batch frame by frame: more says that another frame of the
// same batch follows, so the frame may wait for it (a transport flushes once per batch).
type SendFunc func(f *Frame, more bool) error

// Write implements Sink.
func (send SendFunc) Write(frames []*Frame) error {
	for i, f := range frames {
		if err := send(f, i < len(frames)-1); err != nil {
			return err
		}
	}
	return nil
}

// stream is one Subscribe stream: fanout's, with the engine's frames and rules.
type stream = fanout.Stream[Delivery]

// Subscribe streams events to one client: a heartbeat at once (so the client and any proxy see
// the stream open before the first event), then every event after afterSeq the caller may see,
// replayed from the log, then live events, as one Follower hands them over; a heartbeat every
// 25 s. Every frame goes through the stream's queue, and the calling goroutine is its one
// writer: it writes everything queued to sink as one write (see fanout.Stream).
//
// It returns when the client goes away (ctx), the stream must resync (after sending resync),
// the member leaves, the server closes, the member opens more than MaxStreamsPerMember streams
// and this is their oldest (ErrTooManyStreams), the caller's token expires (c.Expires,
// ErrTokenExpired), or the client does not read its events in time (ErrSlowStream); a nil
// error means the stream ended normally. The StreamEnd says which.
//
// A token is checked when the stream opens; the stream then lasts, so it ends when the token
// it was opened with expires, on the engine's clock: the heartbeat's timer is set for that
// moment when it comes before the next heartbeat (no timer of its own, nothing per delivery).
// The client subscribes again with a new token from its last seq, losing nothing.
func (e *Engine) Subscribe(ctx context.Context, c Caller, afterSeq int64, sink Sink) (StreamEnd, error) {
	o, end, err := e.openStream(ctx, c, afterSeq, sink)
	if o == nil {
		return end, err
	}
	// Deferred: Serve panics with a panic reading the log, and the stream's member, place and
	// timer must go all the same.
	defer o.release()
	return e.streamEnded(ctx, o.s, o.s.Serve(ctx, o.sink))
}

// SubscribeAsync is Subscribe without a goroutine that waits for the stream's end: it returns
// at once, the stream's writer is a goroutine started only while something is queued for it
// (fanout.Stream.Run), and done is called once with what Subscribe would have returned, on
// that goroutine (or on the caller's, for a stream that never opened). A transport that owns
// its connection (GET /events) holds no goroutine for an idle stream this way.
func (e *Engine) SubscribeAsync(ctx context.Context, c Caller, afterSeq int64, sink Sink, done func(StreamEnd, error)) {
	o, end, err := e.openStream(ctx, c, afterSeq, sink)
	if o == nil {
		done(end, err)
		return
	}
	o.s.Run(ctx, o.sink, func(err error) { done(o.ended(ctx, err)) })
}

// openStream is a Subscribe stream, set up and started, for its writer to write to sink.
type openStream struct {
	e    *Engine
	s    *stream
	sink Sink
	c    Caller
	b    *beats // nil for a stream that ends at once (resync)
}

// openStream sets up c's stream and starts it; nil, with how it ended, for one that never
// opened.
func (e *Engine) openStream(ctx context.Context, c Caller, afterSeq int64, sink Sink) (*openStream, StreamEnd, error) {
	me, err := e.snap.Load().caller(c)
	if err != nil {
		return nil, StreamRefused, err
	}
	e.streams.Add(1)
	s := fanout.NewStream[Delivery](fanout.StreamOptions{MaxQueued: e.opts.StreamQueue, Fold: foldPresence, Last: e.lastFrame})
	e.open.track(c.ID, s)
	o := &openStream{e: e, s: s, sink: sink, c: c}
	if afterSeq > 0 && afterSeq < me.GetJoinedSeq() {
		// The client's state is from before the member left and came back: what changed for
		// them meanwhile (channels left, roles reset) is in no event they may see.
		s.End(ErrResync)
		return o, "", nil
	}
	f, err := e.Follow(FollowOptions{AfterSeq: afterSeq, Member: c.ID})
	if errors.Is(err, ErrResync) {
		s.End(ErrResync)
		return o, "", nil
	}
	if err != nil {
		end, err := o.ended(ctx, err)
		return nil, end, err
	}
	e.presence.opened(c.ID)
	o.b = &beats{e: e, s: s}
	if !c.Expires.IsZero() {
		o.b.expires = c.Expires.UnixNano()
	}
	if err := o.b.start(); err != nil {
		f.Close()
		end, err := o.ended(ctx, err)
		return nil, end, err
	}
	o.sink = beatingSink{sink, o.b}
	s.Start(f, e.deliverers)
	return o, "", nil
}

// ended tells how the stream ended (streamEnded) and lets go of what it held.
func (o *openStream) ended(ctx context.Context, err error) (StreamEnd, error) {
	end, err := o.e.streamEnded(ctx, o.s, err)
	o.release()
	return end, err
}

// release lets go of what the stream held in the engine: its heartbeats' timer, its member's
// presence, its place among the member's streams.
func (o *openStream) release() {
	if o.b != nil {
		o.b.stop()
		o.e.presence.closed(o.c.ID)
	}
	o.e.open.untrack(o.c.ID, o.s)
	o.e.streams.Add(-1)
}

// streamEnded tells how a stream ended, from what ended it, and reports it to the Observer:
// what it was ending for, unless the client went away first (a write to a client that left
// fails); a stream the engine stopped (streamSet, the token's expiry) ended for the engine's
// reason, even if the client went away after.
func (e *Engine) streamEnded(ctx context.Context, s *stream, err error) (StreamEnd, error) {
	why := StreamFailed
	var ee *Error
	switch {
	case errors.Is(err, ErrSlowConsumer), errors.Is(context.Cause(ctx), ErrSlowConsumer):
		// Before the client's going away: a transport may cancel the request of a stream whose
		// write missed its deadline (HTTP/2 resets it), or whose client answered no ping in
		// time (a WebSocket's reader ends the stream's context with that cause).
		why, err = StreamSlowConsumer, ErrSlowStream
	case !s.StoppedWith(err) && !errors.Is(err, ErrClosed) && clientWentAway(ctx):
		why, err = StreamClientClosed, nil
	case errors.Is(err, ErrResync):
		why, err = StreamResync, nil
	case errors.Is(err, ErrGone):
		why, err = StreamLeft, nil
	case errors.Is(err, ErrClosed):
		why, err = StreamShutdown, nil
	case errors.Is(err, context.Canceled):
		why, err = StreamClientClosed, nil
	case errors.As(err, &ee) && ee.Code == CodeResourceExhausted:
		why = StreamCapped
	case errors.Is(err, ErrTokenExpired):
		why = StreamTokenExpired
	}
	if o, ok := e.opts.Observer.(StreamObserver); ok {
		o.StreamEnded(why)
	}
	return why, err
}

// clientWentAway reports whether the stream's context ended from the client's side: the
// request was canceled or ran out of its own deadline, not ended by the engine.
func clientWentAway(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded)
}

// lastFrame is what a stream sends last when it ends with err: resync, when it must.
func (e *Engine) lastFrame(err error) *Frame {
	if errors.Is(err, ErrResync) {
		return newFrame(&svcv1.Event{AtMs: e.now().UnixMilli(), Kind: &svcv1.Event_Resync{Resync: true}})
	}
	return nil
}

// ErrTokenExpired ends a stream whose access token expired (see Subscribe).
var ErrTokenExpired = &Error{Code: CodeUnauthenticated, Msg: "the access token this stream was opened with expired; subscribe again with a new one"}

// beats queues a stream's heartbeats, and ends it when its token expires: one timer on the
// engine's clock, set for whichever comes first. The next heartbeat is due 25 s after one is
// queued (its timer is set before it can reach the client, on a manual clock too), but none is
// queued while the last waits to be written (beatingSink): a stream whose client takes nothing
// piles up no heartbeats (its write's deadline ends it), and a clock moved on by a year queues
// one, not one per 25 s of it, and fires no timer for the rest of the year.
type beats struct {
	e *Engine
	s *stream
	// expires is when the token the stream was opened with expires, in Unix nanoseconds on
	// the engine's clock; 0 for a token that does not (a bot's).
	expires int64
	// pending is the heartbeat queued and not written yet.
	pending atomic.Pointer[Frame]

	mu    sync.Mutex
	timer clock.Timer
	// waiting: the timer came while a heartbeat was pending, and is set again once it is
	// written.
	waiting bool
	stopped bool
}

// start queues the first heartbeat and arms the timer; ErrTokenExpired when the token had
// expired on the engine's clock already.
func (b *beats) start() error {
	if b.expired() {
		return ErrTokenExpired
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.beatLocked()
	return nil
}

// expired reports whether the stream's token has expired.
func (b *beats) expired() bool {
	return b.expires != 0 && b.e.now().UnixNano() >= b.expires
}

// beatLocked queues a heartbeat and arms the timer for the next; while one waits to be
// written, it queues none and arms the timer for the token's expiry only.
func (b *beats) beatLocked() {
	if b.stopped {
		return
	}
	b.waiting = b.pending.Load() != nil
	if !b.waiting {
		hb := newFrame(&svcv1.Event{AtMs: b.e.now().UnixMilli(), Kind: &svcv1.Event_Heartbeat{Heartbeat: true}})
		// Pending, and the next one's timer set, before it is queued: the writer may write it
		// before Send returns.
		b.pending.Store(hb)
		b.armLocked()
		if !b.s.Send(hb) {
			b.pending.Store(nil)
		}
		return
	}
	b.armLocked()
}

// armLocked sets the timer for the token's expiry, and for the next heartbeat unless the timer
// waits for the last one's write, whichever comes first.
func (b *beats) armLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	d, set := b.e.opts.Heartbeat, !b.waiting
	if b.expires != 0 {
		left := time.Duration(b.expires - b.e.now().UnixNano())
		if !set || left < d {
			d, set = left, true
		}
	}
	if set {
		b.timer = b.e.clock.AfterFunc(max(d, 0), b.fire)
	}
}

// fire is the timer: the stream ends if its token expired, else it gets a heartbeat.
func (b *beats) fire() {
	if b.expired() {
		b.s.Stop(ErrTokenExpired)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.beatLocked()
}

// written is told of every batch written: once the pending heartbeat went, a timer that waited
// for it is set for the next.
func (b *beats) written(frames []*Frame) {
	hb := b.pending.Load()
	if hb == nil || !slices.Contains(frames, hb) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending.CompareAndSwap(hb, nil) && b.waiting && !b.stopped {
		b.waiting = false
		b.armLocked()
	}
}

func (b *beats) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.timer != nil {
		b.timer.Stop()
	}
}

// beatingSink tells the stream's beats what was written.
type beatingSink struct {
	Sink
	b *beats
}

func (k beatingSink) Write(frames []*Frame) error {
	if err := k.Sink.Write(frames); err != nil {
		return err
	}
	k.b.written(frames)
	return nil
}

// foldPresence sends the presence changes of a batch, when it holds more than one, as one
// presence_batch (the latest change per member) in the place of the last one.
func foldPresence(frames []*Frame) []*Frame {
	n := 0
	for _, f := range frames {
		if isPresence(f) {
			n++
		}
	}
	if n < 2 {
		return frames
	}
	batch := presenceBatch(frames)
	out, seen := frames[:0], 0
	for _, f := range frames {
		if isPresence(f) {
			if seen++; seen < n {
				continue
			}
			f = batch
		}
		out = append(out, f)
	}
	return out
}

// isPresence tells presence and presence_batch events, which fold into one another.
func isPresence(f *Frame) bool {
	return f.Event.GetPresence() != nil || f.Event.GetPresenceBatch() != nil
}

// presenceBatch folds the presence and presence_batch events among frames into one, keeping
// each member's latest change.
func presenceBatch(frames []*Frame) *Frame {
	var changes []*svcv1.PresenceEvent
	var at int64
	for _, f := range frames {
		ev := f.Event
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
