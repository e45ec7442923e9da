package engine

import (
	"sync"
	"sync/atomic"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The hub hands committed events (and ephemeral ones: typing, presence) to the open Subscribe
// streams. It is a ring of the newest events that every stream reads at its own pace with its
// own cursor:
//   - publishing is O(1) for the writer, whatever the number of streams;
//   - each stream filters what it may see, against the Snapshot the event carries (the
//     community as of the event's batch), in its own goroutine or in a deliverer's (see
//     deliverers);
//   - all streams share one Frame per event, so each wire encoding is computed once;
//   - a slow or dead stream costs the others nothing: it falls behind, and when the ring has
//     moved on by more than its size the stream gets resync and ends. The ring is the bounded
//     buffer of every stream at once, so idle streams cost no buffer of their own.

// Delivery is one event as the hub and the followers hand it over.
type Delivery struct {
	// Frame is the event, with its wire encodings computed once for every stream.
	Frame *Frame
	// Audience is who may receive it.
	Audience *storepb.Audience
	// Reaction is set on the message_updated of React: the reaction that changed (for the
	// plugins' reaction hook; clients get the message only).
	Reaction *storepb.ReactionChange
	// Snapshot is the community to judge the event against: as of the event's batch for a live
	// event, as it is now for a replayed one (see DECISIONS: recipients are decided at delivery).
	Snapshot *Snapshot
	// channel is the Audience's channel in Snapshot, for a live event to a channel's members
	// or viewers: looked up once as it is published, not once per stream.
	channel *storepb.ChannelRecord
}

// Event is the delivered event. It is shared: never change it.
func (d Delivery) Event() *svcv1.Event { return d.Frame.Event }

// VisibleTo reports whether a member may receive the event.
func (d Delivery) VisibleTo(memberID string) bool { return d.Snapshot.receives(memberID, d.Audience) }

type hub struct {
	mu   sync.RWMutex
	ring []Delivery
	// head is the position the next entry takes. It changes under mu only, and is atomic so
	// that a follower can tell it has read everything without the lock (hasNew).
	head   atomic.Uint64
	seq    int64 // seq of the newest logged event published
	snap   *Snapshot
	wake   chan struct{} // closed and replaced on every publish
	closed bool
	// live holds the read position of every open stream, from the moment it takes its cursor:
	// Stats tells from them how far behind the streams are, and release what nobody will read.
	live map[*readPos]struct{}
	// released is the position below which ring slots have been emptied; releasedAt the head
	// at the last release.
	released, releasedAt uint64
}

// releaseEvery is how many entries the ring takes between two releases.
const releaseEvery = 256

// readPos is a live stream's position in the ring; the stream stores it after each read.
type readPos struct{ pos atomic.Uint64 }

func newHub(size int, seq int64, snap *Snapshot) *hub {
	return &hub{ring: make([]Delivery, size), seq: seq, snap: snap, wake: make(chan struct{}), live: map[*readPos]struct{}{}}
}

// leave unregisters a stream's position (see cursor).
func (h *hub) leave(p *readPos) {
	h.mu.Lock()
	delete(h.live, p)
	h.mu.Unlock()
}

// lags returns the ring's head and, for every live stream, how many published entries it has
// not read yet.
func (h *hub) lags() (head uint64, lags []uint64) {
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

// publish appends entries that share one Snapshot and wakes every stream.
func (h *hub) publish(entries []Delivery, snap *Snapshot) {
	h.mu.Lock()
	woken := h.append(entries, snap)
	h.mu.Unlock()
	wakeAll(woken)
}

// wakeAll closes the wake channel that append swapped out, once h.mu is let go. Closed under
// the lock, it woke streams that the other core ran before the close had woken the rest, and
// they blocked on the lock at once: a second sleep and wake-up on the way to the event, for
// one stream read in seven in a trace of a standard run. A stream that read the ring before
// the swap holds this channel; one that read it after, the new one.
func wakeAll(woken chan struct{}) {
	if woken != nil {
		close(woken)
	}
}

// append is publish with h.mu held; it returns the wake channel it replaced, for the caller
// to close once it has let go of h.mu (nil when the hub is closed).
func (h *hub) append(entries []Delivery, snap *Snapshot) chan struct{} {
	if h.closed {
		return nil
	}
	head := h.head.Load()
	for _, en := range entries {
		en.Snapshot = snap
		en.channel = snap.audienceChannel(en.Audience)
		h.ring[head%uint64(len(h.ring))] = en
		head++
		if s := en.Frame.Event.GetSeq(); s > 0 {
			h.seq = s
		}
	}
	h.head.Store(head)
	h.snap = snap
	if head-h.releasedAt >= releaseEvery {
		h.release()
	}
	woken := h.wake
	h.wake = make(chan struct{})
	return woken
}

// release empties the ring slots every stream has read past. Each entry holds the Snapshot of
// its batch, and every batch that changes the community publishes a new one: a burst of joins
// would otherwise keep thousands of nearly whole copies of the community reachable until the
// ring came round. A slot is read only by streams at or before it, and new streams start at the
// head, so a slot below every stream's position is never read again. Called with h.mu held.
func (h *hub) release() {
	head := h.head.Load()
	until := head
	for p := range h.live {
		until = min(until, p.pos.Load())
	}
	n := uint64(len(h.ring))
	from := h.released
	if head > n {
		// Slots further back were overwritten; a stream that far behind gets resync.
		from = max(from, head-n)
	}
	for p := from; p < until; p++ {
		h.ring[p%n] = Delivery{}
	}
	h.released = max(h.released, until)
	h.releasedAt = head
}

// publishEphemeral adds one event that is not logged (seq 0) against the newest Snapshot.
// The Snapshot is read under the same lock that appends: read before it, a commit could
// publish a newer one in between, and the older one would become the hub's again, so that
// new streams judged visibility against a community that no longer is.
func (h *hub) publishEphemeral(ev *svcv1.Event, aud *storepb.Audience) {
	en := Delivery{Frame: newFrame(ev), Audience: aud}
	h.mu.Lock()
	woken := h.append([]Delivery{en}, h.snap)
	h.mu.Unlock()
	wakeAll(woken)
}

// cursor is where a new stream starts reading: everything logged up to seq is in the database,
// everything after arrives in the ring from the position registered with it.
type cursor struct {
	seq  int64
	snap *Snapshot
}

// cursor registers reg, a new stream's position, at the head; the stream calls leave when it
// ends. It counts from here on, while it replays too, so that nothing it will read is released.
func (h *hub) cursor(reg *readPos) cursor {
	h.mu.Lock()
	defer h.mu.Unlock()
	reg.pos.Store(h.head.Load())
	h.live[reg] = struct{}{}
	return cursor{seq: h.seq, snap: h.snap}
}

// readResult is what a stream gets from one read of the ring.
type readResult struct {
	entries []Delivery
	next    uint64
	lost    bool          // the stream fell further behind than the ring holds
	closed  bool          // the hub is closing
	wake    chan struct{} // closed at the next publish
}

// hasNew reports whether anything was published at or after pos, without the lock: the
// deliverers ask it of every stream after every pass (tryDeliver reads until a read comes
// back empty), and two cores taking the lock's reader count in turn, for each of a thousand
// streams, was a few percent of the server's CPU in the standard run. A publish stores head
// under h.mu, so a reader that took h.mu after the publish (as a deliverer does before its
// pass) sees it.
func (h *hub) hasNew(pos uint64) bool { return h.head.Load() != pos }

// ringWindow is a deliverer's copy of what the hub published since its last pass, read once
// for the pass: its streams, most of them where the last pass left them, read from here
// without the hub's lock. That lock's reader count, taken by two cores in turn for each of a
// thousand streams, moved one line of memory between them per stream and event
// (docs/performance.md). A window is a read of the ring at one moment: a stream that reads
// it is where it would be had it read the ring then, its wake channel with it, so that what
// was published since then is read from the ring.
type ringWindow struct {
	from, head uint64
	entries    []Delivery
	wake       chan struct{}
	closed     bool
}

// maxWindow bounds a window's entries: a stream further behind reads the ring itself.
const maxWindow = keepEntries

// readWindow fills w with the entries published since w was last filled (maxWindow of the
// newest at most) and the hub's wake channel and state at that moment.
func (h *hub) readWindow(w *ringWindow) {
	w.entries = w.entries[:0]
	h.mu.RLock()
	defer h.mu.RUnlock()
	head := h.head.Load()
	from, most := w.head, min(maxWindow, uint64(len(h.ring)))
	if head-from > most {
		from = head - min(head, most)
	}
	// Slots below released are emptied, and no stream reads them (see release).
	from = max(from, h.released)
	for p := from; p < head; p++ {
		w.entries = append(w.entries, h.ring[p%uint64(len(h.ring))])
	}
	w.from, w.head, w.wake, w.closed = from, head, h.wake, h.closed
}

// empty lets go of the window's entries (and the Snapshots they hold) until the next fill.
func (w *ringWindow) empty() {
	clear(w.entries)
	w.entries = w.entries[:0]
}

// read is hub.read from the window, for a stream with something in it (from <= pos < head).
func (w *ringWindow) read(pos uint64, buf []Delivery) (readResult, bool) {
	if w == nil || pos < w.from || pos >= w.head {
		return readResult{}, false
	}
	buf = append(buf, w.entries[pos-w.from:]...)
	return readResult{entries: buf, next: w.head, closed: w.closed, wake: w.wake}, true
}

// read copies the entries from pos on into buf.
func (h *hub) read(pos uint64, buf []Delivery) readResult {
	h.mu.RLock()
	defer h.mu.RUnlock()
	head := h.head.Load()
	if head-pos > uint64(len(h.ring)) {
		return readResult{lost: true}
	}
	for p := pos; p < head; p++ {
		buf = append(buf, h.ring[p%uint64(len(h.ring))])
	}
	return readResult{entries: buf, next: head, closed: h.closed, wake: h.wake}
}

// close ends every stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.wake)
	}
}

// Frame is one event as the streams send it. Every stream that receives the event shares the
// same Frame, so each wire format is encoded once, by whichever stream needs it first.
type Frame struct {
	Event *svcv1.Event

	// enc is read without a lock: every deliverer reads it for each of its streams, and a
	// mutex there was one cache line written by all of them in turn, per stream. mu orders
	// the encodings, each stored as a new slice.
	enc atomic.Pointer[[]encoding]
	mu  sync.Mutex
}

type encoding struct {
	format string
	bytes  []byte
}

func newFrame(ev *svcv1.Event) *Frame { return &Frame{Event: ev} }

// Encoded returns the event encoded in format, encoding it with marshal the first time. The
// bytes are shared: callers must not change them.
func (f *Frame) Encoded(format string, marshal func(*svcv1.Event) ([]byte, error)) ([]byte, error) {
	if b, ok := f.cached(format); ok {
		return b, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.cached(format); ok {
		return b, nil
	}
	b, err := marshal(f.Event)
	if err != nil {
		return nil, err
	}
	var encs []encoding
	if p := f.enc.Load(); p != nil {
		encs = *p
	}
	encs = append(encs[:len(encs):len(encs)], encoding{format, b})
	f.enc.Store(&encs)
	return b, nil
}

func (f *Frame) cached(format string) ([]byte, bool) {
	if p := f.enc.Load(); p != nil {
		for _, e := range *p {
			if e.format == format {
				return e.bytes, true
			}
		}
	}
	return nil, false
}
