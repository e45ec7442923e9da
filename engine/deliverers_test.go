package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// fakeSink is a Subscribe sink that sends without waiting as its script says, and records
// what reached its "wire": frames go there when flushed, as from an HTTP/2 response.
type fakeSink struct {
	// try gives the outcome of the n-th TrySend (counting from 0): taken, flushed.
	try func(n int) (taken, flushed bool)
	// block, when set, is waited on by every Send (a client that does not read).
	block chan struct{}

	mu      sync.Mutex
	tries   int
	pending []*Frame
	wire    []string // the texts of the messages created, in the order they went out
	sends   int      // messages sent by the stream's goroutine
	flushes int
	arrived chan struct{}
}

func newFakeSink(try func(int) (bool, bool)) *fakeSink {
	return &fakeSink{try: try, arrived: make(chan struct{}, 1)}
}

func (k *fakeSink) sink() Sink {
	return Sink{
		Send: func(f *Frame, more bool) error {
			if k.block != nil {
				<-k.block
			}
			k.mu.Lock()
			defer k.mu.Unlock()
			if f.Event.GetMessageCreated() != nil {
				k.sends++
			}
			k.pending = append(k.pending, f)
			if !more {
				k.flushLocked()
			}
			return nil
		},
		TrySend: func(f *Frame, more bool) (bool, bool, error) {
			k.mu.Lock()
			defer k.mu.Unlock()
			taken, flushed := k.try(k.tries)
			k.tries++
			if !taken {
				return false, false, nil
			}
			k.pending = append(k.pending, f)
			if !more && flushed {
				k.flushLocked()
			}
			return true, flushed, nil
		},
		Flush: func() error {
			k.mu.Lock()
			defer k.mu.Unlock()
			k.flushes++
			k.flushLocked()
			return nil
		},
	}
}

func (k *fakeSink) flushLocked() {
	for _, f := range k.pending {
		if m := f.Event.GetMessageCreated(); m != nil {
			k.wire = append(k.wire, m.GetText())
		}
	}
	k.pending = k.pending[:0]
	select {
	case k.arrived <- struct{}{}:
	default:
	}
}

// waitFor waits until the wire holds n messages, failing after 10 s.
func (k *fakeSink) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		k.mu.Lock()
		got := slices.Clone(k.wire)
		k.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-k.arrived:
		case <-deadline:
			t.Fatalf("waiting for %d messages, got %d: %q", n, len(got), got)
		}
	}
}

// subscribeTo opens a stream to sink, ended when the test ends.
func subscribeTo(t *testing.T, e *Engine, c Caller, sink Sink) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	after := e.Seq()
	go func() {
		defer close(done)
		e.SubscribeTo(ctx, c, after, sink)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// TestDeliverersSendEveryEventOnceInOrder: whatever the sink takes without waiting and
// whatever it leaves (not taken, taken but not flushed), every message reaches the wire
// once and in order, the rest sent by the stream's own goroutine.
func TestDeliverersSendEveryEventOnceInOrder(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	k := newFakeSink(func(n int) (bool, bool) {
		switch n % 5 {
		case 1:
			return false, false
		case 3:
			return true, false
		}
		return true, true
	})
	subscribeTo(t, c.e, owner, k.sink())
	var want []string
	for i := range 60 {
		want = append(want, "m"+itoa(i))
		c.send(owner, chID, want[i], "")
		if i%3 == 0 {
			// Some events go one by one, some several to a read.
			k.waitFor(t, i+1)
		}
	}
	if got := k.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the wire has %q, want %q", got, want)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tries == 0 || k.sends == 0 || k.flushes == 0 {
		t.Fatalf("tries %d, the goroutine's sends %d, flushes %d: want each path taken", k.tries, k.sends, k.flushes)
	}
}

// TestAStreamThatWouldWaitHoldsUpNoOther: a stream whose client reads nothing (its sink
// takes nothing without waiting, and its sends wait) holds up no other stream's deliveries;
// once its client reads again, it gets everything in order.
func TestAStreamThatWouldWaitHoldsUpNoOther(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	other := c.join("other")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	stuck := newFakeSink(func(int) (bool, bool) { return false, false })
	stuck.block = make(chan struct{})
	fine := newFakeSink(func(int) (bool, bool) { return true, true })
	subscribeTo(t, c.e, owner, stuck.sink())
	subscribeTo(t, c.e, other, fine.sink())
	var want []string
	for i := range 20 {
		want = append(want, "m"+itoa(i))
		c.send(owner, chID, want[i], "")
	}
	if got := fine.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the other stream got %q, want %q", got, want)
	}
	close(stuck.block)
	if got := stuck.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the stuck stream got %q, want %q", got, want)
	}
}

// TestDeliverersLeaveAStreamThatEnded: a stream whose client went away is no deliverer's
// any more, and the deliverers go on for the others.
func TestDeliverersLeaveAStreamThatEnded(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	gone := newFakeSink(func(int) (bool, bool) { return true, true })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	after := c.e.Seq()
	go func() {
		defer close(done)
		c.e.SubscribeTo(ctx, owner, after, gone.sink())
	}()
	c.send(owner, chID, "first", "")
	gone.waitFor(t, 1)
	cancel()
	<-done
	fine := newFakeSink(func(int) (bool, bool) { return true, true })
	subscribeTo(t, c.e, owner, fine.sink())
	c.send(owner, chID, "second", "")
	if got := fine.waitFor(t, 1); strings.Join(got, ",") != "second" {
		t.Fatalf("got %q", got)
	}
	gone.mu.Lock()
	defer gone.mu.Unlock()
	if strings.Join(gone.wire, ",") != "first" {
		t.Fatalf("the ended stream's wire has %q, want only the first", gone.wire)
	}
	n := 0
	for _, sh := range c.e.deliverers.shards {
		sh.mu.Lock()
		n += len(sh.streams)
		sh.mu.Unlock()
	}
	if n != 1 {
		t.Fatalf("the deliverers have %d streams, want 1", n)
	}
}

// TestAPanicInADeliverersSendIsTheStreams: a send that panics on a deliverer panics on the
// stream's own goroutine (where the server's handler ends that request), and the deliverers
// go on for the other streams.
func TestAPanicInADeliverersSendIsTheStreams(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	broken := newFakeSink(func(int) (bool, bool) { return true, true })
	sink := broken.sink()
	try, send := sink.TrySend, sink.Send
	sink.TrySend = func(f *Frame, more bool) (bool, bool, error) {
		if f.Event.GetMessageCreated().GetText() == "boom" {
			panic("boom")
		}
		return try(f, more)
	}
	// Should the stream's goroutine send it (it held the stream when the event came).
	sink.Send = func(f *Frame, more bool) error {
		if f.Event.GetMessageCreated().GetText() == "boom" {
			panic("boom")
		}
		return send(f, more)
	}
	panicked := make(chan any, 1)
	after := c.e.Seq()
	go func() {
		defer func() { panicked <- recover() }()
		c.e.SubscribeTo(context.Background(), owner, after, sink)
	}()
	fine := newFakeSink(func(int) (bool, bool) { return true, true })
	subscribeTo(t, c.e, owner, fine.sink())
	c.send(owner, chID, "first", "")
	broken.waitFor(t, 1)
	c.send(owner, chID, "boom", "")
	select {
	case p := <-panicked:
		if p != "boom" {
			t.Fatalf("the stream's goroutine recovered %v, want the send's panic", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's goroutine did not panic")
	}
	c.send(owner, chID, "after", "")
	if got := fine.waitFor(t, 3); strings.Join(got, ",") != "first,boom,after" {
		t.Fatalf("the other stream got %q", got)
	}
}

// TestAStreamTheEngineEndsIsOverAtOnce: a stream the engine ends (a member's streams ended,
// or the oldest over the cap) is over for the deliverers when end returns, before anything
// the caller publishes next, and its goroutine is rung to end with the cause.
func TestAStreamTheEngineEndsIsOverAtOnce(t *testing.T) {
	var set streamSet
	newStream := func() *stream { return &stream{alarm: make(chan struct{}, 1)} }
	s := newStream()
	set.track("m", s)
	defer set.untrack("m", s)
	set.end("m", ErrGone)
	if s.stopped.Load() == nil || len(s.alarm) != 1 || s.interrupted(context.Background()) != ErrGone {
		t.Fatalf("after end: over %v, rung %v, interrupted by %v", s.stopped.Load() != nil, len(s.alarm) == 1, s.interrupted(context.Background()))
	}
	oldest := newStream()
	set.track("n", oldest)
	defer set.untrack("n", oldest)
	for range MaxStreamsPerMember {
		o := newStream()
		set.track("n", o)
		defer set.untrack("n", o)
	}
	if oldest.stopped.Load() == nil || oldest.interrupted(context.Background()) != ErrTooManyStreams {
		t.Fatalf("the oldest stream over the cap, when the newest's track returns: over %v, interrupted by %v", oldest.stopped.Load() != nil, oldest.interrupted(context.Background()))
	}
	if set.untrack("n", oldest); len(set.members["n"]) != MaxStreamsPerMember {
		t.Fatalf("after the oldest's untrack, %d streams of n are tracked, want %d", len(set.members["n"]), MaxStreamsPerMember)
	}
	// A client that went away before the engine stopped its stream is what ended it.
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	away := newStream()
	set.track("o", away)
	defer set.untrack("o", away)
	set.end("o", ErrGone)
	if err := away.interrupted(gone); err != context.Canceled || away.stoppedWith(err) {
		t.Fatalf("a stream whose client left first is interrupted by %v", err)
	}
}
