package fanout

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// entry is a test's event: a message to everyone, or to one member (to).
type entry struct {
	frame *Frame
	to    string
}

func (e entry) EventFrame() *Frame { return e.frame }

func message(seq int64, text string) *Frame {
	return NewFrame(&svcv1.Event{Seq: seq, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: text}}})
}

func textOf(f *Frame) string { return f.Event.GetMessageCreated().GetText() }

var errClosed = errors.New("closed")

// only is the audience of one member: what goes to everyone or to them; they are gone at an
// entry whose text is "bye <member>".
type only string

func (m only) Receives(e *entry) (bool, bool) {
	if textOf(e.frame) == "bye "+string(m) {
		return false, true
	}
	return e.to == "" || e.to == string(m), false
}

// testLog is the event log of a test: what the hub published, kept for replays.
type testLog struct {
	mu      sync.Mutex
	hub     *Hub[entry]
	entries []entry // seq i+1 at i
}

func newTestLog(ring int) *testLog { return &testLog{hub: NewHub[entry](ring, errClosed)} }

// publish logs and publishes messages with the given texts, to everyone.
func (l *testLog) publish(texts ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var es []entry
	for _, t := range texts {
		e := entry{frame: message(int64(len(l.entries)+1), t)}
		l.entries = append(l.entries, e)
		es = append(es, e)
	}
	l.hub.Publish(es...)
}

// replay hands over the logged entries after `after` up to until, three at a time.
func (l *testLog) replay(aud Audience[entry]) Replay[entry] {
	return func(after, until int64, out []entry) ([]entry, int64, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for after < until && len(out) < 3 {
			e := l.entries[after]
			after++
			if aud != nil {
				if ok, _ := aud.Receives(&e); !ok {
					continue
				}
			}
			out = append(out, e)
		}
		return out, after, nil
	}
}

// follow starts a follower after `after`, as the engine does: under the log's lock.
func (l *testLog) follow(after int64, aud Audience[entry]) *Follower[entry] {
	l.mu.Lock()
	until := int64(len(l.entries))
	l.mu.Unlock()
	return Follow(l.hub, after, until, l.replay(aud), aud)
}

func texts(s []string, n int) []string {
	for i := range n {
		s = append(s, fmt.Sprint("m", i))
	}
	return s
}

// TestHubReleasesWhatEveryFollowerRead: the ring lets go of the entries every follower has
// read past, and of everything when no follower is open; it keeps what a follower has yet to
// read, one still replaying included.
func TestHubReleasesWhatEveryFollowerRead(t *testing.T) {
	h := NewHub[entry](1024, errClosed)
	slot := func(pos int) entry { return h.ring[pos%len(h.ring)] }
	publish := func(n int) {
		for range n {
			h.Publish(entry{frame: message(0, "")})
		}
	}
	reg := &Position{}
	h.join(reg) // a follower replaying from the log, at position 0
	publish(300)
	if slot(0).frame == nil || slot(299).frame == nil {
		t.Fatal("released entries a follower has not read")
	}
	reg.pos.Store(200)
	publish(256)
	if slot(199).frame != nil || slot(0).frame != nil {
		t.Fatal("kept entries every follower has read")
	}
	if slot(200).frame == nil || slot(555).frame == nil {
		t.Fatal("released entries the follower has yet to read")
	}
	rr := h.read(200, nil)
	if rr.lost || len(rr.entries) != 356 || rr.entries[0].frame == nil {
		t.Fatalf("the follower reads %d entries (lost %v)", len(rr.entries), rr.lost)
	}
	h.leave(reg)
	publish(256) // the last release comes at 768: every 256 entries
	for pos := 0; pos < 768; pos++ {
		if slot(pos).frame != nil {
			t.Fatalf("with no follower open, entry %d is kept", pos)
		}
	}
}

// TestReuseDropsLargeBuffers: a follower keeps its read buffer between reads only while it is
// small, and never with entries in it.
func TestReuseDropsLargeBuffers(t *testing.T) {
	small := make([]entry, 3, keepEntries)
	small[0].frame = message(1, "")
	got := reuse(small)
	if len(got) != 0 || cap(got) != keepEntries || small[0].frame != nil {
		t.Fatalf("a small buffer: len %d cap %d, entries cleared: %v", len(got), cap(got), small[0].frame == nil)
	}
	if got := reuse(make([]entry, 10, keepEntries+1)); got != nil {
		t.Fatalf("a large buffer is kept (cap %d)", cap(got))
	}
}

// TestFrameEncodedOnceForEveryStream: streams on several goroutines take a new event's
// encodings at once; each format is encoded once, and every stream gets those bytes.
func TestFrameEncodedOnceForEveryStream(t *testing.T) {
	f := NewFrame(&svcv1.Event{Seq: 3})
	var encodings atomic.Int32
	marshal := func(format string) func(*svcv1.Event) ([]byte, error) {
		return func(ev *svcv1.Event) ([]byte, error) {
			encodings.Add(1)
			return fmt.Appendf(nil, "%s %d", format, ev.GetSeq()), nil
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for i := range 100 {
				format := []string{"proto", "json"}[i%2]
				b, err := f.Encoded(format, marshal(format))
				if err != nil || string(b) != format+" 3" {
					errs <- fmt.Errorf("%s: %q, %v", format, b, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := encodings.Load(); n != 2 {
		t.Fatalf("%d encodings for two formats", n)
	}
}

// TestFollowersReadADeliverersWindow: followers reading through a deliverer's window (one read
// of the hub for a pass) get what they would from the hub, each event once and in order: what
// the window holds, then what was published after it, and, for a follower further behind than
// the window reaches, everything from the hub; an audience sees only its own.
func TestFollowersReadADeliverersWindow(t *testing.T) {
	l := newTestLog(8192)
	read := func(f *Follower[entry], w *window[entry]) []string {
		var out []string
		for {
			ds, err := f.next(w)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) == 0 {
				return out
			}
			for _, d := range ds {
				out = append(out, textOf(d.frame))
			}
		}
	}
	var w window[entry]
	l.hub.readWindow(&w)
	everyone, asBob, behind := l.follow(0, nil), l.follow(0, only("bob")), l.follow(0, nil)
	defer everyone.Close()
	defer asBob.Close()
	defer behind.Close()

	sent := texts(nil, maxWindow+5)
	l.publish(sent...)
	l.hub.readWindow(&w)
	if got := read(everyone, &w); !slices.Equal(got, sent) {
		t.Fatalf("the first pass: %d texts, want the %d sent in order", len(got), len(sent))
	}
	read(asBob, &w)

	l.hub.readWindow(&w)
	l.publish("in the window")
	l.mu.Lock()
	private := entry{frame: message(int64(len(l.entries)+1), "not for bob"), to: "alice"}
	l.entries = append(l.entries, private)
	l.hub.Publish(private)
	l.mu.Unlock()
	l.publish("for bob too")
	l.hub.readWindow(&w)
	if w.head-w.from != 3 {
		t.Fatalf("the window holds %d entries, want the 3 published since the last", w.head-w.from)
	}
	l.publish("after the window")
	want := []string{"in the window", "not for bob", "for bob too", "after the window"}
	if got := read(everyone, &w); !slices.Equal(got, want) {
		t.Errorf("a follower at the window's start: %q, want %q", got, want)
	}
	if got := read(asBob, &w); !slices.Equal(got, []string{"in the window", "for bob too", "after the window"}) {
		t.Errorf("following as bob: %q, want what is not alice's", got)
	}
	if got := read(behind, &w); !slices.Equal(got, append(sent, want...)) {
		t.Errorf("a follower behind the window: %d texts, want the %d published since it began", len(got), len(sent)+len(want))
	}
	w.empty()
	if len(w.entries) != 0 || cap(w.entries) == 0 {
		t.Errorf("an emptied window: %d entries (cap %d): want none, its buffer kept", len(w.entries), cap(w.entries))
	}
}

// TestFollowerWithNothingNewWaitsAndSeesTheClose: a follower that read everything answers
// nothing without the hub's lock (hasNew), and still waits on a fresh channel after a wake
// that brought no entry, and still sees the hub close: an idle follower never spins.
func TestFollowerWithNothingNewWaitsAndSeesTheClose(t *testing.T) {
	l := newTestLog(64)
	f := l.follow(0, nil)
	defer f.Close()
	nothingNew := func(when string) {
		t.Helper()
		if ds, err := f.Next(); len(ds) != 0 || err != nil {
			t.Fatalf("%s: Next gave %d events, %v; want none", when, len(ds), err)
		}
	}
	waits := func(when string) {
		t.Helper()
		if f.wake == nil || isClosed(f.wake) {
			t.Fatalf("%s: the follower's wake channel is closed: Wait would return at once", when)
		}
	}
	nothingNew("after the first read")
	nothingNew("read again")
	waits("after reading everything")

	// A publish with no entries swaps the wake channel without moving the head.
	l.hub.Publish()
	if f.Wait(nil) {
		t.Fatal("a publish did not wake the follower")
	}
	nothingNew("after a wake that brought nothing")
	waits("after a wake that brought nothing")

	l.publish("one")
	if ds, err := f.Next(); len(ds) != 1 || err != nil {
		t.Fatalf("after a publish: Next gave %d events, %v; want 1", len(ds), err)
	}
	nothingNew("after reading it")

	l.hub.Close()
	if ds, err := f.Next(); !errors.Is(err, errClosed) {
		t.Fatalf("after the hub closed: Next gave %d events, %v; want its closed error", len(ds), err)
	}
}

// TestFollowerFallenOffTheRingResyncs: a follower further behind than the ring gets ErrResync,
// never a gap.
func TestFollowerFallenOffTheRingResyncs(t *testing.T) {
	l := newTestLog(16)
	f := l.follow(0, nil)
	defer f.Close()
	l.publish(texts(nil, 20)...)
	if ds, err := f.Next(); !errors.Is(err, ErrResync) {
		t.Fatalf("Next after 20 publishes on a ring of 16: %d events, %v; want ErrResync", len(ds), err)
	}
}

// wire is a test's sink: it records the texts of the messages written, batch by batch, and
// waits on block (when set) before each write, as a client that does not read.
type wire struct {
	mu      sync.Mutex
	block   chan struct{}
	batches [][]string
	texts   []string
	fail    error
	arrived chan struct{}
	// writing is rung as a write begins.
	writing chan struct{}
}

func newWire() *wire { return &wire{arrived: make(chan struct{}, 1), writing: make(chan struct{}, 1)} }

func (k *wire) Write(frames []*Frame) error {
	ring(k.writing)
	if k.block != nil {
		<-k.block
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return k.fail
	}
	var batch []string
	for _, f := range frames {
		if f.Event.GetHeartbeat() {
			batch = append(batch, "heartbeat")
			continue
		}
		if f.Event.GetResync() {
			batch = append(batch, "resync")
			continue
		}
		batch = append(batch, textOf(f))
	}
	k.batches = append(k.batches, batch)
	k.texts = append(k.texts, batch...)
	ring(k.arrived)
	return nil
}

// waitFor waits until the wire holds n texts, failing after 10 s.
func (k *wire) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		k.mu.Lock()
		got := slices.Clone(k.texts)
		k.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-k.arrived:
		case <-deadline:
			t.Fatalf("waiting for %d texts, got %d: %q", n, len(got), got)
		}
	}
}

// writer is one of the two ways a stream is written: write starts it on k, and its end comes
// on the channel.
type writer struct {
	name  string
	write func(ctx context.Context, s *Stream[entry], k *wire) chan error
}

// writers: Serve, on a goroutine that waits for as long as the stream lasts, and Run, whose
// writers are started while there is something to write.
var writers = []writer{
	{"Serve", func(ctx context.Context, s *Stream[entry], k *wire) chan error {
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, k) }()
		return done
	}},
	{"Run", func(ctx context.Context, s *Stream[entry], k *wire) chan error {
		done := make(chan error, 1)
		s.Run(ctx, k, func(err error) { done <- err })
		return done
	}},
}

// forEachWriter runs test with each writer.
func forEachWriter(t *testing.T, test func(t *testing.T, w writer)) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) { test(t, w) })
	}
}

// serve starts s on its follower, then its writer on k; the writer's end comes on the channel.
func serve(w writer, ctx context.Context, l *testLog, d *Deliverers[entry], s *Stream[entry], f *Follower[entry], k *wire) chan error {
	s.Start(f, d)
	return w.write(ctx, s, k)
}

// TestStreamWritesEveryEventOnceInOrder: a stream that replays while more is published, then
// goes live, writes every event once and in order, several to a write when they wait together.
func TestStreamWritesEveryEventOnceInOrder(t *testing.T) {
	forEachWriter(t, testStreamWritesEveryEventOnceInOrder)
}

func testStreamWritesEveryEventOnceInOrder(t *testing.T, w writer) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	want := texts(nil, 40)
	l.publish(want[:30]...)
	k := newWire()
	k.block = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	s := NewStream[entry](StreamOptions{MaxQueued: 8})
	done := serve(w, ctx, l, d, s, l.follow(0, nil), k)
	l.publish(want[30:35]...)
	close(k.block)
	k.waitFor(t, 35)
	for _, text := range want[35:] {
		l.publish(text)
	}
	if got := k.waitFor(t, 40); !slices.Equal(got, want) {
		t.Fatalf("the wire has %q, want %q", got, want)
	}
	several := false
	for _, b := range k.batches {
		several = several || len(b) > 1
	}
	if !several {
		t.Error("every write carried one event: what waits together goes in one write")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the stream ended with %v, want its context's end", err)
	}
	if d.Streams() != 0 {
		t.Fatalf("the deliverers still have %d streams", d.Streams())
	}
	if _, lags := l.hub.Lags(); len(lags) != 0 {
		t.Fatalf("the ended stream still holds its place in the ring (%d places)", len(lags))
	}
}

// TestANeverReadingClientCannotPinEvents: a stream whose client takes nothing (its sink never
// returns) is ended as a slow consumer once its queue is full: at once it lets go of its place
// in the ring and of what it queued, and holds up no other stream. Its writer returns the
// reason once the sink gives up.
func TestANeverReadingClientCannotPinEvents(t *testing.T) {
	forEachWriter(t, testANeverReadingClientCannotPinEvents)
}

func testANeverReadingClientCannotPinEvents(t *testing.T, w writer) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	stuck, fine := newWire(), newWire()
	stuck.block = make(chan struct{})
	s := NewStream[entry](StreamOptions{MaxQueued: 8})
	done := serve(w, context.Background(), l, d, s, l.follow(0, nil), stuck)
	other := NewStream[entry](StreamOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve(w, ctx, l, d, other, l.follow(0, nil), fine)
	want := texts(nil, 30)
	for _, text := range want {
		l.publish(text)
	}
	if got := fine.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the other stream got %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, lags := l.hub.Lags()
		s.qmu.Lock()
		queued, end := len(s.queue), s.end
		s.qmu.Unlock()
		if len(lags) == 1 && queued == 0 && errors.Is(end, ErrSlowConsumer) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stuck stream: %d places in the ring (want the other's only), %d frames queued, end %v", len(lags), queued, end)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stuck.block)
	if err := <-done; !errors.Is(err, ErrSlowConsumer) {
		t.Fatalf("the stuck stream ended with %v, want ErrSlowConsumer", err)
	}
}

// TestAReplayWaitsForItsClient: a replay far longer than the queue goes at the writer's pace,
// never ended as slow.
func TestAReplayWaitsForItsClient(t *testing.T) { forEachWriter(t, testAReplayWaitsForItsClient) }

func testAReplayWaitsForItsClient(t *testing.T, w writer) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	want := texts(nil, 200)
	l.publish(want...)
	k := newWire()
	k.block = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewStream[entry](StreamOptions{MaxQueued: 4})
	serve(w, ctx, l, d, s, l.follow(0, nil), k)
	go func() {
		for range 300 {
			k.block <- struct{}{}
			time.Sleep(time.Millisecond)
		}
	}()
	if got := k.waitFor(t, 200); !slices.Equal(got, want) {
		t.Fatalf("the replay wrote %d texts, want the %d logged in order", len(got), len(want))
	}
	if s.over.Load() {
		t.Fatalf("the replay ended the stream: %v", s.end)
	}
}

// TestAStoppedStreamSendsNothingMore: once Stop returns, nothing more reaches the stream,
// what it had queued included, and its writer returns the cause.
func TestAStoppedStreamSendsNothingMore(t *testing.T) {
	forEachWriter(t, testAStoppedStreamSendsNothingMore)
}

func testAStoppedStreamSendsNothingMore(t *testing.T, w writer) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	k := newWire()
	k.block = make(chan struct{})
	s := NewStream[entry](StreamOptions{})
	done := serve(w, context.Background(), l, d, s, l.follow(0, nil), k)
	l.publish("first")
	<-k.writing // the writer took it, and waits for its client
	l.publish("queued")
	waitQueued(t, s, 1)
	cause := errors.New("the member's token changed")
	s.Stop(cause)
	l.publish("after")
	close(k.block)
	if err := <-done; err != cause {
		t.Fatalf("the stream ended with %v, want the cause it was stopped with", err)
	}
	if got := k.waitFor(t, 1); strings.Join(got, ",") != "first" || !s.StoppedWith(cause) {
		t.Fatalf("a stopped stream wrote %q", got)
	}
}

func waitQueued(t *testing.T, s *Stream[entry], n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s.qmu.Lock()
		queued := len(s.queue)
		s.qmu.Unlock()
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d frames queued, want %d", queued, n)
		}
	}
}

// TestAnEndedFollowerEndsTheStreamAfterWhatItQueued: a follower that ends (its member gone,
// fallen off the ring) ends its stream once what it queued is written, with the Last frame
// for its reason.
func TestAnEndedFollowerEndsTheStreamAfterWhatItQueued(t *testing.T) {
	forEachWriter(t, testAnEndedFollowerEndsTheStreamAfterWhatItQueued)
}

func testAnEndedFollowerEndsTheStreamAfterWhatItQueued(t *testing.T, w writer) {
	l := newTestLog(16)
	d := NewDeliverers(l.hub)
	last := func(err error) *Frame {
		if errors.Is(err, ErrResync) {
			return NewFrame(&svcv1.Event{Kind: &svcv1.Event_Resync{Resync: true}})
		}
		return nil
	}
	bob := newWire()
	bobs := NewStream[entry](StreamOptions{Last: last})
	bobDone := serve(w, context.Background(), l, d, bobs, l.follow(0, only("bob")), bob)
	slow := newWire()
	slow.block = make(chan struct{})
	slows := NewStream[entry](StreamOptions{Last: last})
	slowDone := serve(w, context.Background(), l, d, slows, l.follow(0, nil), slow)
	l.publish("hello", "bye bob", "after bob")
	if err := <-bobDone; !errors.Is(err, ErrGone) {
		t.Fatalf("bob's stream ended with %v, want ErrGone", err)
	}
	if got := bob.waitFor(t, 1); strings.Join(got, ",") != "hello" {
		t.Fatalf("bob got %q, want what came before he left", got)
	}
	// The slow stream's follower falls off the ring of 16 while its writer waits.
	slow.block <- struct{}{}
	slow.waitFor(t, 1)
	l.publish(texts(nil, 40)...)
	close(slow.block)
	if err := <-slowDone; !errors.Is(err, ErrResync) && !errors.Is(err, ErrSlowConsumer) {
		t.Fatalf("the slow stream ended with %v", err)
	}
	got := slow.waitFor(t, 1)
	if got[len(got)-1] != "resync" && !errors.Is(slows.end, ErrSlowConsumer) {
		t.Fatalf("the slow stream's last frame is %q, want resync", got[len(got)-1])
	}
}

// panicky is an audience that panics at the text "boom".
type panicky struct{}

func (panicky) Receives(e *entry) (bool, bool) {
	if textOf(e.frame) == "boom" {
		panic("boom")
	}
	return true, false
}

// TestAPanicReadingTheLogIsTheStreamsWriters: a panic while a deliverer reads a stream's
// follower panics on the stream's writer, Serve (where the server's handler ends that request),
// or comes to Run's done as an error (Run's writers are goroutines no server recovers); the
// deliverers go on for the other streams.
func TestAPanicReadingTheLogIsTheStreamsWriters(t *testing.T) {
	forEachWriter(t, testAPanicReadingTheLogIsTheStreamsWriters)
}

func testAPanicReadingTheLogIsTheStreamsWriters(t *testing.T, w writer) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	broken := NewStream[entry](StreamOptions{})
	panicked := make(chan any, 1)
	if w.name == "Serve" {
		broken.Start(l.follow(0, panicky{}), d)
		go func() {
			defer func() { panicked <- recover() }()
			broken.Serve(context.Background(), newWire())
		}()
	} else {
		broken.Start(l.follow(0, panicky{}), d)
		broken.Run(context.Background(), newWire(), func(err error) {
			var p followPanic
			if errors.As(err, &p) {
				panicked <- p.value
			} else {
				panicked <- err
			}
		})
	}
	fine := newWire()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve(w, ctx, l, d, NewStream[entry](StreamOptions{}), l.follow(0, nil), fine)
	l.publish("first", "boom", "after")
	select {
	case p := <-panicked:
		if p != "boom" {
			t.Fatalf("the writer got %v, want the panic", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the writer was not told of the panic")
	}
	l.publish("later")
	if got := fine.waitFor(t, 4); strings.Join(got, ",") != "first,boom,after,later" {
		t.Fatalf("the other stream got %q", got)
	}
}

// TestARunStreamHoldsAGoroutineOnlyWhileItWrites: Run's streams have no goroutine while nothing
// is queued for them; each write starts one that ends with it, events still in order, and
// the client's going away ends an idle stream, with its context's error.
func TestARunStreamHoldsAGoroutineOnlyWhileItWrites(t *testing.T) {
	l := newTestLog(8192)
	d := NewDeliverers(l.hub)
	ctx, cancel := context.WithCancel(context.Background())
	const streams = 20
	var wires []*wire
	var ends []chan error
	for range streams {
		k := newWire()
		wires = append(wires, k)
		ends = append(ends, serve(writers[1], ctx, l, d, NewStream[entry](StreamOptions{}), l.follow(0, nil), k))
	}
	want := texts(nil, 50)
	for _, text := range want {
		l.publish(text)
	}
	for i, k := range wires {
		if got := k.waitFor(t, len(want)); !slices.Equal(got, want) {
			t.Fatalf("stream %d got %q, want %q", i, got, want)
		}
	}
	writing := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "fanout.(*Stream[...]).writeOut(")
	}
	for deadline := time.Now().Add(10 * time.Second); writing() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d writers still run for %d idle streams, want none", writing(), streams)
		}
	}
	cancel()
	for i, done := range ends {
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("stream %d ended with %v, want its context's end", i, err)
		}
	}
	if d.Streams() != 0 {
		t.Fatalf("the deliverers still have %d streams", d.Streams())
	}
}

// TestAWritersOwnEndIsNotAStop: a stream whose writer ended it (its client went away, its
// sink failed) was not stopped with that error; one stopped first keeps its cause.
func TestAWritersOwnEndIsNotAStop(t *testing.T) { forEachWriter(t, testAWritersOwnEndIsNotAStop) }

func testAWritersOwnEndIsNotAStop(t *testing.T, w writer) {
	l := newTestLog(64)
	d := NewDeliverers(l.hub)
	k := newWire()
	k.fail = errors.New("broken pipe")
	s := NewStream[entry](StreamOptions{})
	done := serve(w, context.Background(), l, d, s, l.follow(0, nil), k)
	l.publish("one")
	if err := <-done; err != k.fail || s.StoppedWith(err) {
		t.Fatalf("ended with %v, stopped with it: %v", err, s.StoppedWith(err))
	}
	cause := errors.New("gone")
	stopped := NewStream[entry](StreamOptions{})
	stopped.Stop(cause)
	done = serve(w, context.Background(), l, d, stopped, l.follow(int64(len(l.entries)), nil), newWire())
	if err := <-done; err != cause || !stopped.StoppedWith(cause) {
		t.Fatalf("a stopped stream ended with %v, stopped with it: %v", err, stopped.StoppedWith(cause))
	}
}
