package fanout

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Deliverers move live events from the hub to the streams' queues: one goroutine per core,
// woken once per publish, goes through its share of the live streams and queues for each what
// its follower hands over. A stream's writer is woken only when something was queued for it,
// not for every publish (a message in one channel wakes no one outside it), and a deliverer
// never waits for a client: a stream whose queue has no room is ended (ErrSlowConsumer).
type Deliverers[E Entry] struct {
	hub    *Hub[E]
	start  sync.Once
	shards []*shard[E]
	next   atomic.Uint32
}

// shard is one deliverer's streams.
type shard[E Entry] struct {
	mu      sync.Mutex
	streams []*Stream[E]
}

// NewDeliverers makes the deliverers of h; they start with the first stream.
func NewDeliverers[E Entry](h *Hub[E]) *Deliverers[E] { return &Deliverers[E]{hub: h} }

// join gives s to a deliverer.
func (d *Deliverers[E]) join(s *Stream[E]) {
	d.start.Do(func() {
		// The deliverers wait on the hub's channel as of now, before any stream joined: a
		// publish after the first stream's read closes it, however late they start.
		wake, _ := d.hub.wakeState()
		d.shards = make([]*shard[E], runtime.GOMAXPROCS(0))
		for i := range d.shards {
			d.shards[i] = &shard[E]{}
			go d.shards[i].work(d.hub, wake)
		}
	})
	sh := d.shards[d.next.Add(1)%uint32(len(d.shards))]
	sh.mu.Lock()
	s.shard, s.slot = sh, len(sh.streams)
	sh.streams = append(sh.streams, s)
	sh.mu.Unlock()
}

// leave takes s back from its deliverer (s has ended: no deliverer queues for it again).
func (d *Deliverers[E]) leave(s *Stream[E]) {
	sh := s.shard
	if sh == nil {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s.slot < 0 {
		return
	}
	last := len(sh.streams) - 1
	moved := sh.streams[last]
	sh.streams[s.slot], moved.slot = moved, s.slot
	sh.streams[last] = nil
	sh.streams = sh.streams[:last]
	s.slot = -1
}

// Streams is how many streams the deliverers have.
func (d *Deliverers[E]) Streams() int {
	n := 0
	for _, sh := range d.shards {
		sh.mu.Lock()
		n += len(sh.streams)
		sh.mu.Unlock()
	}
	return n
}

// work delivers for the shard's streams after every publish, until the hub closes. A stream
// that goes live reads the ring after it did, so what is published after that read finds it
// here: each pass takes the hub's channel before it takes the streams, and a publish closes
// the channel it finds and those before it.
func (sh *shard[E]) work(h *Hub[E], wake chan struct{}) {
	var batch []*Stream[E]
	var w window[E]
	for {
		<-wake
		h.readWindow(&w)
		wake = w.wake
		sh.mu.Lock()
		batch = append(batch[:0], sh.streams...)
		sh.mu.Unlock()
		for _, s := range batch {
			s.deliver(&w)
		}
		clear(batch)
		w.empty()
		if w.closed {
			return
		}
	}
}
