package engine

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The deliverers write live events for the streams whose sink can send without waiting
// (Sink.TrySend): one goroutine per core, woken once per publish, goes through its share of
// those streams, where otherwise every stream's own goroutine would be woken for every
// publish, scheduled, and put back to sleep (a tenth of the server's CPU in the standard load
// run, docs/performance.md). What may wait stays with the stream's goroutine: the replay,
// the heartbeats, and a frame the sink could not send at once (the client's window is shut,
// its socket is full), which the deliverer hands over and leaves, so that a slow client still
// holds up no one else. The stream's mutex keeps the two from writing at the same time, and
// whoever holds it sends every event in order, once.
type deliverers struct {
	start  sync.Once
	shards []*deliveryShard
	next   atomic.Uint32
}

// deliveryShard is one deliverer's streams.
type deliveryShard struct {
	mu      sync.Mutex
	streams []*stream
}

// join gives s to a deliverer; s.ctx and s.f are set.
func (d *deliverers) join(h *hub, s *stream) {
	d.start.Do(func() {
		// The deliverers wait on the hub's channel as of now, before any stream joined: a
		// publish after the first stream's read closes it, however late they start.
		wake, _ := h.wakeState()
		d.shards = make([]*deliveryShard, runtime.GOMAXPROCS(0))
		for i := range d.shards {
			d.shards[i] = &deliveryShard{}
			go d.shards[i].work(h, wake)
		}
	})
	sh := d.shards[d.next.Add(1)%uint32(len(d.shards))]
	sh.mu.Lock()
	s.shard, s.slot = sh, len(sh.streams)
	sh.streams = append(sh.streams, s)
	sh.mu.Unlock()
}

// leave takes s back; once it returns, no deliverer writes for s.
func (d *deliverers) leave(s *stream) {
	s.mu.Lock()
	s.left = true
	s.mu.Unlock()
	sh := s.shard
	sh.mu.Lock()
	last := len(sh.streams) - 1
	moved := sh.streams[last]
	sh.streams[s.slot], moved.slot = moved, s.slot
	sh.streams[last] = nil
	sh.streams = sh.streams[:last]
	sh.mu.Unlock()
}

// work delivers for the shard's streams after every publish, until the hub closes. A stream
// that joins reads the ring after it joined, so what is published after that read finds it
// here: each pass takes the hub's channel before it takes the streams, and a publish closes
// the channel it finds and those before it.
func (sh *deliveryShard) work(h *hub, wake chan struct{}) {
	var batch []*stream
	var w ringWindow
	for {
		<-wake
		h.readWindow(&w)
		wake = w.wake
		sh.mu.Lock()
		batch = append(batch[:0], sh.streams...)
		sh.mu.Unlock()
		for _, s := range batch {
			s.tryDeliver(&w)
		}
		clear(batch)
		w.empty()
		if w.closed {
			return
		}
	}
}

// wakeState is the channel the next publish closes, and whether the hub is closed (then the
// channel is closed already).
func (h *hub) wakeState() (chan struct{}, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.wake, h.closed
}

// tryDeliver is a deliverer writing what the stream's follower has, while the sink takes
// it without waiting. When the stream's goroutine holds the stream, or the sink would wait,
// the goroutine is rung to do it (catchUp).
func (s *stream) tryDeliver(w *ringWindow) {
	if !s.mu.TryLock() {
		s.ring()
		return
	}
	defer s.mu.Unlock()
	if s.left || s.handedOff {
		return
	}
	defer func() {
		// A panic in a send is the stream's, as on its own goroutine: it goes on there (the
		// server's handler ends that request), and the deliverer goes on with the others.
		if p := recover(); p != nil {
			s.handOff(nil, deliveryPanic{p})
		}
	}()
	for {
		if s.stopped.Load() != nil || s.beat.Load() {
			// The stream's goroutine was rung when the engine stopped it or the heartbeat's
			// timer fired, which may be its token's expiry: nothing goes out before it had its
			// turn.
			return
		}
		ds, err := s.f.next(w)
		if err != nil {
			s.handOff(nil, err)
			return
		}
		if len(ds) == 0 || !s.trySend(ds) {
			return
		}
	}
}

// trySend sends ds without waiting, all but the last with more set, or hands what it could
// not send to the stream's goroutine and reports false. Presence changes to be batched
// (deliver) go to the goroutine whole: they come in bursts, when streams open.
func (s *stream) trySend(ds []Delivery) bool {
	if presences(ds) > 1 {
		s.handOff(ds, nil)
		return false
	}
	for i, d := range ds {
		last := i == len(ds)-1
		taken, flushed, err := s.sink.TrySend(d.Frame, !last)
		switch {
		case err != nil:
			s.handOff(nil, err)
			return false
		case !taken:
			// Those before it were taken with more set: they wait for a flush.
			s.unflushed = i > 0
			s.handOff(ds[i:], nil)
			return false
		case last && !flushed:
			s.unflushed = true
			s.handOff(nil, nil)
			return false
		}
	}
	return true
}

// handOff leaves the stream to its goroutine: held still to send, or err to end it with.
// Deliverers pass the stream by until catchUp, which sends held before it reads the follower
// again: held can stay in the follower's buffer, which the next read reuses.
func (s *stream) handOff(held []Delivery, err error) {
	s.held = held
	s.failed = err
	s.handedOff = true
	s.ring()
}

// catchUp is the stream's goroutine doing what a deliverer handed over, then sending what
// the follower has, waiting as long as the sink does; s.mu held.
func (s *stream) catchUp() error {
	if s.handedOff {
		s.handedOff = false
		if p, ok := s.failed.(deliveryPanic); ok {
			panic(p.value)
		}
		if s.failed != nil {
			return s.failed
		}
		held := s.held
		s.held = nil
		if s.unflushed && len(held) == 0 {
			// Sending held flushes what waits before it.
			if err := s.sink.Flush(); err != nil {
				return err
			}
		}
		s.unflushed = false
		if len(held) > 0 {
			if err := s.deliver(held); err != nil {
				return err
			}
		}
	}
	return s.sendAvailable(s.ctx, s.f)
}

// runLive is the stream's goroutine once it is live with a deliverer: it sends what a
// deliverer handed over or could not reach, and the heartbeats, until the stream ends.
func (s *stream) runLive(beatIfDue func() error) error {
	s.e.deliverers.join(s.e.hub, s)
	defer s.e.deliverers.leave(s)
	for {
		if err := s.turn(beatIfDue); err != nil {
			return err
		}
		select {
		case <-s.alarm:
		case <-s.ctx.Done():
		}
		if err := s.interrupted(s.ctx); err != nil {
			return err
		}
	}
}

// turn is one of runLive's, under s.mu: the heartbeat when it is due (or the end, when the
// token expired), then catchUp.
func (s *stream) turn(beatIfDue func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := beatIfDue(); err != nil {
		return err
	}
	return s.catchUp()
}

func presences(ds []Delivery) int {
	n := 0
	for _, d := range ds {
		if isPresence(d.Frame) {
			n++
		}
	}
	return n
}

// deliveryPanic is a panic in a deliverer's send, handed to the stream's goroutine.
type deliveryPanic struct{ value any }

func (p deliveryPanic) Error() string { return fmt.Sprint("a send panicked: ", p.value) }
