// Package fanout hands committed events to the open streams of the event log: the hub's ring of
// the newest events, the followers that read the log from a position on (replay, then the
// ring), the deliverers that move live events to the streams that may see them, and each
// stream's bounded queue with its one writer, ended with a named reason when its client does
// not keep up (ErrSlowConsumer). Who may see what is not decided here: the engine passes each
// follower its Audience. Where a stream's frames go is not decided here either: each transport
// gives its stream a Sink.
//
// The shape, from the writer to a client:
//   - the engine's writer publishes each batch of committed events to the Hub: O(1) for it,
//     whatever the number of streams;
//   - one deliverer per core, woken once per publish, reads what was published once and, for
//     each live stream, hands its Follower the new entries; what the stream's audience may see
//     goes on the stream's queue, without waiting;
//   - the stream's writer (its transport's goroutine) takes everything queued and writes it as
//     one write to its Sink;
//   - a stream whose queue is full, or whose Sink cannot write within its deadline, ends with
//     ErrSlowConsumer and lets go of everything it held: a slow client costs the others
//     nothing, and holds nothing for long.
//
// Replay, heartbeats, resync and every other frame a stream sends go through the same queue
// and writer: nothing reaches a client around it.
package fanout

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Entry is what the hub's ring holds for one event: its Frame, and whatever the audience needs
// to judge it.
type Entry interface {
	EventFrame() *Frame
}

// ErrResync ends a follower that fell further behind than the hub's ring (or the log) keeps,
// or that asked for a position outside the log.
var ErrResync = errors.New("the event log no longer holds what follows this position: resync")

// ErrGone ends a follower whose audience no longer receives anything (its member left).
var ErrGone = errors.New("the member left the community")

// Hub is a ring of the newest events that every follower reads at its own pace with its own
// position:
//   - publishing is O(1), whatever the number of followers;
//   - all followers share one Frame per event, so each wire encoding is computed once;
//   - a slow or dead follower costs the others nothing: it falls behind, and once the ring has
//     moved on by more than its size it gets ErrResync. The ring is the buffer of every
//     follower at once, so idle ones cost no buffer of their own.
type Hub[E Entry] struct {
	mu   sync.RWMutex
	ring []E
	// head is the position the next entry takes. It changes under mu only, and is atomic so
	// that a follower can tell it has read everything without the lock (hasNew).
	head   atomic.Uint64
	wake   chan struct{} // closed and replaced on every publish
	closed bool
	// closedErr is what followers get once the hub is closed.
	closedErr error
	// live holds the read position of every follower, from the moment it joins: Lags tells
	// from them how far behind they are, and release what nobody will read.
	live map[*Position]struct{}
	// released is the position below which ring slots have been emptied; releasedAt the head
	// at the last release.
	released, releasedAt uint64
}

// releaseEvery is how many entries the ring takes between two releases.
const releaseEvery = 256

// Position is a follower's place in the ring; the follower stores it after each read.
type Position struct{ pos atomic.Uint64 }

// NewHub makes a hub of size entries; once closed, its followers get closedErr.
func NewHub[E Entry](size int, closedErr error) *Hub[E] {
	return &Hub[E]{ring: make([]E, size), wake: make(chan struct{}), closedErr: closedErr, live: map[*Position]struct{}{}}
}

// Size is how many entries the ring holds.
func (h *Hub[E]) Size() int { return len(h.ring) }

// join registers p at the head: from here on, nothing p has to read is released.
func (h *Hub[E]) join(p *Position) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p.pos.Store(h.head.Load())
	h.live[p] = struct{}{}
}

// leave unregisters a follower's position.
func (h *Hub[E]) leave(p *Position) {
	h.mu.Lock()
	delete(h.live, p)
	h.mu.Unlock()
}

// Lags returns the ring's head and, for every follower, how many published entries it has
// not read yet.
func (h *Hub[E]) Lags() (head uint64, lags []uint64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	head = h.head.Load()
	lags = make([]uint64, 0, len(h.live))
	for p := range h.live {
		if pos := p.pos.Load(); pos < head {
			lags = append(lags, head-pos)
		} else {
			lags = append(lags, 0)
		}
	}
	return head, lags
}

// Publish appends entries and wakes every follower and deliverer.
func (h *Hub[E]) Publish(entries ...E) {
	h.mu.Lock()
	woken := h.append(entries)
	h.mu.Unlock()
	// Closed once h.mu is let go: closed under the lock, it woke followers that the other core
	// ran before the close had woken the rest, and they blocked on the lock at once. A
	// follower that read the ring before the swap holds this channel; one that read it after,
	// the new one.
	if woken != nil {
		close(woken)
	}
}

// append is Publish with h.mu held; it returns the wake channel it replaced, for the caller
// to close once it has let go of h.mu (nil when the hub is closed).
func (h *Hub[E]) append(entries []E) chan struct{} {
	if h.closed {
		return nil
	}
	head := h.head.Load()
	for _, en := range entries {
		h.ring[head%uint64(len(h.ring))] = en
		head++
	}
	h.head.Store(head)
	if head-h.releasedAt >= releaseEvery {
		h.release()
	}
	woken := h.wake
	h.wake = make(chan struct{})
	return woken
}

// release empties the ring slots every follower has read past. An entry may hold much (the
// engine's hold the community as of their batch): a burst of changes would otherwise keep
// thousands of them reachable until the ring came round. A slot is read only by followers at
// or before it, and new followers start at the head, so a slot below every follower's
// position is never read again. Called with h.mu held.
func (h *Hub[E]) release() {
	head := h.head.Load()
	until := head
	for p := range h.live {
		until = min(until, p.pos.Load())
	}
	n := uint64(len(h.ring))
	from := h.released
	if head > n {
		// Slots further back were overwritten; a follower that far behind gets ErrResync.
		from = max(from, head-n)
	}
	var zero E
	for p := from; p < until; p++ {
		h.ring[p%n] = zero
	}
	h.released = max(h.released, until)
	h.releasedAt = head
}

// readResult is what a follower gets from one read of the ring.
type readResult[E Entry] struct {
	entries []E
	next    uint64
	lost    bool          // the follower fell further behind than the ring holds
	closed  bool          // the hub is closing
	wake    chan struct{} // closed at the next publish
}

// hasNew reports whether anything was published at or after pos, without the lock: the
// deliverers ask it of every stream after every pass, and two cores taking the lock's reader
// count in turn for each of a thousand streams was a few percent of the server's CPU. A
// publish stores head under h.mu, so a reader that took h.mu after the publish (as a
// deliverer does before its pass) sees it.
func (h *Hub[E]) hasNew(pos uint64) bool { return h.head.Load() != pos }

// read copies the entries from pos on into buf.
func (h *Hub[E]) read(pos uint64, buf []E) readResult[E] {
	h.mu.RLock()
	defer h.mu.RUnlock()
	head := h.head.Load()
	if head-pos > uint64(len(h.ring)) {
		return readResult[E]{lost: true}
	}
	for p := pos; p < head; p++ {
		buf = append(buf, h.ring[p%uint64(len(h.ring))])
	}
	return readResult[E]{entries: buf, next: head, closed: h.closed, wake: h.wake}
}

// wakeState is the channel the next publish closes, and whether the hub is closed (then the
// channel is closed already).
func (h *Hub[E]) wakeState() (chan struct{}, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.wake, h.closed
}

// window is a deliverer's copy of what the hub published since its last pass, read once for
// the pass: its streams, most of them where the last pass left them, read from here without
// the hub's lock, whose reader count, taken by two cores in turn for each of a thousand
// streams, moved one line of memory between them per stream and event. A window is a read of
// the ring at one moment: a follower that reads it is where it would be had it read the ring
// then, its wake channel with it, so that what was published since is read from the ring.
type window[E Entry] struct {
	from, head uint64
	entries    []E
	wake       chan struct{}
	closed     bool
}

// maxWindow bounds a window's entries: a follower further behind reads the ring itself.
const maxWindow = keepEntries

// readWindow fills w with the entries published since w was last filled (maxWindow of the
// newest at most) and the hub's wake channel and state at that moment.
func (h *Hub[E]) readWindow(w *window[E]) {
	w.entries = w.entries[:0]
	h.mu.RLock()
	defer h.mu.RUnlock()
	head := h.head.Load()
	from, most := w.head, min(maxWindow, uint64(len(h.ring)))
	if head-from > most {
		from = head - min(head, most)
	}
	// Slots below released are emptied, and no follower reads them (see release).
	from = max(from, h.released)
	for p := from; p < head; p++ {
		w.entries = append(w.entries, h.ring[p%uint64(len(h.ring))])
	}
	w.from, w.head, w.wake, w.closed = from, head, h.wake, h.closed
}

// empty lets go of the window's entries until the next fill.
func (w *window[E]) empty() {
	clear(w.entries)
	w.entries = w.entries[:0]
}

// read is Hub.read from the window, for a follower with something in it (from <= pos < head).
func (w *window[E]) read(pos uint64, buf []E) (readResult[E], bool) {
	if w == nil || pos < w.from || pos >= w.head {
		return readResult[E]{}, false
	}
	buf = append(buf, w.entries[pos-w.from:]...)
	return readResult[E]{entries: buf, next: w.head, closed: w.closed, wake: w.wake}, true
}

// Close ends every follower: they get the hub's closed error once they read what it holds.
func (h *Hub[E]) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.wake)
	}
}
