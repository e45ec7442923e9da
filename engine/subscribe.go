package engine

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
	// StreamFailed: anything else, such as a send that failed or a database error.
	StreamFailed StreamEnd = "error"
)

// Subscribe streams events to one client: a heartbeat at once (so the client and any proxy see
// the stream open before the first event), then every event after afterSeq the caller may see,
// replayed from the log, then live events, as one Follower hands them over; a heartbeat every
// 25 s. It returns when the client goes away (ctx), the stream must resync (after sending
// resync), the member leaves, the server closes, the member opens more than
// MaxStreamsPerMember streams and this is their oldest (ErrTooManyStreams), or the caller's
// token expires (c.Expires, ErrTokenExpired); a nil error means the stream ended normally.
// The StreamEnd says which.
//
// A token is checked when the stream opens; the stream then lasts, so it ends when the token
// it was opened with expires, on the engine's clock: the heartbeat's timer is set for that
// moment when it comes before the next heartbeat (no timer of its own, nothing per delivery).
// The client subscribes again with a new token from its last seq, losing nothing.
//
// send gets each frame with more set when another follows at once (the rest of what the
// stream had waiting): a sink may hold such a frame back and write it with the next, so that
// a stream that reads several events at a time pays one flush (one write to the socket) for
// them; a frame without more must go out before send returns.
//
// The calling goroutine delivers live events itself (a shallow path: the ring, the
// visibility check, the cached encoding, the write), unless its sink can send without
// waiting (SubscribeTo), when the deliverers do; the deep work, the replay from the
// database and the heartbeats, runs on a goroutine of its own that ends when it is done (see
// RunOnFreshStack), so that the stack an idle stream keeps is only as deep as a delivery. A
// goroutine per delivery cost more CPU than anything else the engine did per delivery.
func (e *Engine) Subscribe(ctx context.Context, c Caller, afterSeq int64, send SendFunc) (StreamEnd, error) {
	return e.SubscribeTo(ctx, c, afterSeq, Sink{Send: send})
}

// SubscribeTo is Subscribe with a sink that may send without waiting: then live events go
// out from the deliverers (see deliverers), not from the calling goroutine.
func (e *Engine) SubscribeTo(ctx context.Context, c Caller, afterSeq int64, sink Sink) (StreamEnd, error) {
	me, err := e.snap.Load().caller(c)
	if err != nil {
		return StreamRefused, err
	}
	e.streams.Add(1)
	defer e.streams.Add(-1)
	s := &stream{e: e, sink: sink, alarm: make(chan struct{}, 1)}
	e.open.track(c.ID, s)
	defer e.open.untrack(c.ID, s)
	if !c.Expires.IsZero() {
		s.expires = c.Expires.UnixNano()
	}
	if afterSeq > 0 && afterSeq < me.GetJoinedSeq() {
		// The client's state is from before the member left and came back: what changed for
		// them meanwhile (channels left, roles reset) is in no event they may see.
		return s.ended(ctx, StreamResync, RunOnFreshStack(s.resync))
	}
	f, err := e.Follow(FollowOptions{AfterSeq: afterSeq, Member: c.ID})
	if errors.Is(err, ErrResync) {
		return s.ended(ctx, StreamResync, RunOnFreshStack(s.resync))
	}
	if err != nil {
		return s.ended(ctx, StreamFailed, err)
	}
	defer f.Close()
	e.presence.opened(c.ID)
	defer e.presence.closed(c.ID)
	return s.finish(ctx, s.run(ctx, f))
}

// finish tells how a stream that ran ended, from what ended it.
func (s *stream) finish(ctx context.Context, err error) (StreamEnd, error) {
	switch {
	case errors.Is(err, ErrResync):
		return s.ended(ctx, StreamResync, RunOnFreshStack(s.resync))
	case errors.Is(err, ErrGone):
		return s.ended(ctx, StreamLeft, nil)
	case errors.Is(err, ErrClosed):
		return s.ended(ctx, StreamShutdown, nil)
	case errors.Is(err, context.Canceled):
		return s.ended(ctx, StreamClientClosed, nil)
	}
	return s.ended(ctx, StreamFailed, err)
}

// ended tells how the stream ended: what it was ending for, unless the client went away
// first (a send to a client that left fails) or the attempt to end it failed; and reports it
// to the Observer. A stream that ended with the cause the engine stopped it with (streamSet)
// ended for the engine's reason, even if the client went away after.
func (s *stream) ended(ctx context.Context, why StreamEnd, err error) (StreamEnd, error) {
	var ee *Error
	switch {
	case why != StreamShutdown && !s.stoppedWith(err) && clientWentAway(ctx):
		why, err = StreamClientClosed, nil
	case errors.As(err, &ee) && ee.Code == CodeResourceExhausted:
		why = StreamCapped
	case errors.Is(err, ErrTokenExpired):
		why = StreamTokenExpired
	case err != nil:
		why = StreamFailed
	}
	if o, ok := s.e.opts.Observer.(StreamObserver); ok {
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

// run sends the first heartbeat, then whatever the follower hands over, until it fails (or
// at once, when the stream's token has expired already).
func (s *stream) run(ctx context.Context, f *Follower) error {
	if s.sink.TrySend == nil {
		// Its own goroutine delivers for this stream, and waits in Follower.Wait, woken by
		// every publish: the context's end rings the alarm, so that it waits on one channel of
		// its own. A stream live with a deliverer waits on the context itself (runLive).
		defer context.AfterFunc(ctx, s.ring)()
	}
	// The heartbeat's timer is re-armed here, on the stream's goroutine, when it has fired:
	// only this goroutine touches it. It also tells when the stream's token expires. It is
	// armed before the first heartbeat goes, so that the next is due 25 s after the first
	// reached the client (on a manual clock too).
	next, err := s.nextBeat()
	if err != nil {
		return err
	}
	beat := s.e.clock.AfterFunc(next, s.beatDue)
	defer func() { beat.Stop() }()
	if err := RunOnFreshStack(s.heartbeat); err != nil {
		return err
	}
	// beatIfDue sends a heartbeat when its timer fired, and arms the timer again.
	beatIfDue := func() error {
		if !s.beat.Swap(false) {
			return nil
		}
		next, err := s.nextBeat()
		if err != nil {
			return err
		}
		beat = s.e.clock.AfterFunc(next, s.beatDue)
		return RunOnFreshStack(s.heartbeat)
	}
	for {
		send := func() error { return s.sendAvailable(ctx, f) }
		if f.Replaying() {
			send = func() error { return RunOnFreshStack(func() error { return s.sendAvailable(ctx, f) }) }
		}
		if err := send(); err != nil {
			return err
		}
		if s.sink.TrySend != nil && !f.Replaying() {
			s.ctx, s.f = ctx, f
			return s.runLive(beatIfDue)
		}
		if !f.Wait(s.alarm) {
			continue
		}
		if err := s.interrupted(ctx); err != nil {
			return err
		}
		if err := beatIfDue(); err != nil {
			return err
		}
	}
}

// stop ends the stream with cause (see streamSet): deliverers stop writing for it at once,
// on the caller's goroutine (before whatever it publishes next, such as a bot's new token),
// and its goroutine wakes to end it. The first cause is the one it ends with.
func (s *stream) stop(cause error) {
	s.stopped.CompareAndSwap(nil, &cause)
	s.ring()
}

// interrupted is why the stream must end before it waits for or sends anything more: the
// client went away (ctx is the request's), or the engine stopped it; nil while neither. The
// client's going away comes first: if it went away before the engine stopped the stream, it
// is what ended it.
func (s *stream) interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if cause := s.stopped.Load(); cause != nil {
		return *cause
	}
	return nil
}

// stoppedWith reports whether err is the cause the engine stopped the stream with.
func (s *stream) stoppedWith(err error) bool {
	cause := s.stopped.Load()
	return cause != nil && err == *cause
}

// ring wakes the stream from Wait (see alarm).
func (s *stream) ring() {
	select {
	case s.alarm <- struct{}{}:
	default:
	}
}

// ErrTokenExpired ends a stream whose access token expired (see Subscribe).
var ErrTokenExpired = &Error{Code: CodeUnauthenticated, Msg: "the access token this stream was opened with expired; subscribe again with a new one"}

// nextBeat is how long until the heartbeat's timer should fire: the next heartbeat, or the
// expiry of the stream's token if that comes first. ErrTokenExpired once it has come: the
// timer fired at the expiry, or the token had expired on the engine's clock when the stream
// opened.
func (s *stream) nextBeat() (time.Duration, error) {
	d := s.e.opts.Heartbeat
	if s.expires == 0 {
		return d, nil
	}
	left := time.Duration(s.expires - s.e.now().UnixNano())
	if left <= 0 {
		return 0, ErrTokenExpired
	}
	return min(d, left), nil
}

// beatDue is the heartbeat's timer firing: the stream sends one when it wakes (or ends, when
// its token has expired).
func (s *stream) beatDue() {
	s.beat.Store(true)
	s.ring()
}

// sendAvailable sends what the follower has now, until it has nothing more or the client left.
func (s *stream) sendAvailable(ctx context.Context, f *Follower) error {
	for {
		if err := s.interrupted(ctx); err != nil {
			return err
		}
		ds, err := f.Next()
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			return nil
		}
		if err := s.deliver(ds); err != nil {
			return err
		}
	}
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

// SendFunc sends one frame of a Subscribe stream; more says that another follows at once, so
// the frame may wait for it (see Subscribe).
type SendFunc func(f *Frame, more bool) error

// Sink is where a Subscribe stream's frames go.
type Sink struct {
	// Send sends a frame, waiting as long as the client takes; more as for SendFunc.
	Send SendFunc
	// TrySend, when set, sends a frame only if that needs no waiting, so that the deliverers
	// can write live events for many streams from a few goroutines (see deliverers). Not
	// taken: nothing of the frame went. Taken but not flushed: it waits, with the frames
	// taken with more before it, for Flush. A frame with more set is held back as with Send.
	TrySend func(f *Frame, more bool) (taken, flushed bool, err error)
	// Flush sends what TrySend left waiting, waiting as long as it takes.
	Flush func() error
}

type stream struct {
	e    *Engine
	sink Sink
	// alarm wakes the stream from its wait for events (Follower.Wait) for what is not an
	// event: the engine stopping it, its context ending (without a deliverer), or its
	// heartbeat coming due (then beat is set); live with a deliverer, it is also how the
	// deliverer hands over (see runLive).
	alarm chan struct{}
	beat  atomic.Bool
	// stopped is the cause the engine stopped the stream with (stop), nil until it does.
	// Deliverers read it on a line of memory they touch anyway, and stop writing for a stream
	// that has one. A client that went away needs no such mark: its sink fails, and its
	// goroutine, woken by the context, ends it.
	stopped atomic.Pointer[error]
	// expires is when the token the stream was opened with expires, in Unix nanoseconds on
	// the engine's clock; 0 for a token that does not (a bot's).
	expires int64

	// Live with a deliverer (runLive), whoever holds mu writes: the stream's goroutine or a
	// deliverer, which hands over (handedOff) what it could not send at once.
	mu        sync.Mutex
	ctx       context.Context
	f         *Follower
	shard     *deliveryShard
	slot      int
	left      bool
	handedOff bool
	held      []Delivery // a deliverer's, to send before the follower's next
	unflushed bool       // the sink holds frames a Flush must send
	failed    error      // the stream ends with it
}

func (s *stream) heartbeat() error {
	return s.sink.Send(newFrame(&svcv1.Event{AtMs: s.e.now().UnixMilli(), Kind: &svcv1.Event_Heartbeat{Heartbeat: true}}), false)
}

func (s *stream) resync() error {
	return s.sink.Send(newFrame(&svcv1.Event{AtMs: s.e.now().UnixMilli(), Kind: &svcv1.Event_Resync{Resync: true}}), false)
}

// deliver sends the events, which the member may all receive, in order, all but the last
// with more set. When more than one presence change is among them, they go as one
// presence_batch (the latest change per member) in the place of the last one.
func (s *stream) deliver(ds []Delivery) error {
	presences := presences(ds)
	var batch *Frame
	if presences > 1 {
		batch = presenceBatch(ds)
	}
	seen := 0
	for i, d := range ds {
		f := d.Frame
		if batch != nil && isPresence(f) {
			if seen++; seen < presences {
				continue
			}
			f = batch
		}
		// The last event is always sent: a presence change there is the batch's place.
		if err := s.sink.Send(f, i < len(ds)-1); err != nil {
			return err
		}
	}
	return nil
}

// isPresence tells presence and presence_batch events, which fold into one another.
func isPresence(f *Frame) bool {
	return f.Event.GetPresence() != nil || f.Event.GetPresenceBatch() != nil
}

// presenceBatch folds the presence and presence_batch events among ds into one, keeping each
// member's latest change.
func presenceBatch(ds []Delivery) *Frame {
	var changes []*svcv1.PresenceEvent
	var at int64
	for _, d := range ds {
		ev := d.Event()
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
