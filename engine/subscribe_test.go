package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/engine/fanout"
	svcv1 "hearth/proto/svc/v1"
)

// testSink is a Subscribe sink that records the texts of the messages it writes, and waits on
// block (when set) before each write, as a client that does not read.
type testSink struct {
	block chan struct{}

	mu      sync.Mutex
	wire    []string
	writes  int
	arrived chan struct{}
}

func newTestSink() *testSink { return &testSink{arrived: make(chan struct{}, 1)} }

func (k *testSink) Write(frames []*Frame) error {
	if k.block != nil {
		<-k.block
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writes++
	for _, f := range frames {
		if m := f.Event.GetMessageCreated(); m != nil {
			k.wire = append(k.wire, m.GetText())
		}
	}
	select {
	case k.arrived <- struct{}{}:
	default:
	}
	return nil
}

// waitFor waits until the wire holds n messages, failing after 10 s.
func (k *testSink) waitFor(t *testing.T, n int) []string {
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

type streamResult struct {
	end StreamEnd
	err error
}

// subscribeTo opens a stream to sink, ended when the test ends; its end comes on the channel.
func subscribeTo(t *testing.T, e *Engine, c Caller, sink Sink) chan streamResult {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan streamResult, 1)
	after := e.Seq()
	go func() {
		end, err := e.Subscribe(ctx, c, after, sink)
		done <- streamResult{end, err}
	}()
	t.Cleanup(cancel)
	return done
}

// TestSubscribeSendsEveryEventOnceInOrder: whether the client reads at once or in bursts,
// every message reaches it once and in order, several to a write when they waited together.
func TestSubscribeSendsEveryEventOnceInOrder(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	k := newTestSink()
	k.block = make(chan struct{})
	subscribeTo(t, c.e, owner, k)
	stop, stopped := make(chan struct{}), make(chan struct{})
	defer func() {
		close(stop)
		<-stopped
		close(k.block) // the client reads again: the stream's writer is not left waiting
	}()
	go func() {
		defer close(stopped)
		// The client reads a write now and then.
		for {
			select {
			case k.block <- struct{}{}:
			case <-stop:
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var want []string
	for i := range 60 {
		want = append(want, "m"+itoa(i))
		c.send(owner, chID, want[i], "")
		if i%7 == 0 {
			k.waitFor(t, i+1)
		}
	}
	if got := k.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the wire has %q, want %q", got, want)
	}
}

// TestAClientThatDoesNotReadIsEndedAsASlowConsumer: a stream whose client reads nothing is
// ended once more events wait for it than its queue holds, with slow_consumer, and lets go of
// its place in the ring at once; the other streams get everything meanwhile.
func TestAClientThatDoesNotReadIsEndedAsASlowConsumer(t *testing.T) {
	c := openTestCommunity(t)
	c.options = func(o *Options) { o.StreamQueue = 8 }
	c.restart()
	owner := c.join("owner")
	other := c.join("other")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	stuck := newTestSink()
	stuck.block = make(chan struct{})
	fine := newTestSink()
	stuckDone := subscribeTo(t, c.e, owner, stuck)
	subscribeTo(t, c.e, other, fine)
	var want []string
	for i := range 20 {
		want = append(want, "m"+itoa(i))
		c.send(owner, chID, want[i], "")
		fine.waitFor(t, i+1)
	}
	if got := fine.waitFor(t, len(want)); !slices.Equal(got, want) {
		t.Fatalf("the other stream got %q, want %q", got, want)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(c.e.Stats().StreamLags) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the stuck stream still holds its place in the ring: %d places", len(c.e.Stats().StreamLags))
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stuck.block)
	select {
	case r := <-stuckDone:
		if r.end != StreamSlowConsumer || r.err != ErrSlowStream {
			t.Fatalf("the stuck stream ended %s with %v", r.end, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck stream did not end")
	}
}

// TestAStreamTheEngineEndsIsOverAtOnce: a stream the engine ends (a member's streams ended, or
// the oldest over the cap) takes nothing more once end returns, before anything the caller
// publishes next, with the cause.
func TestAStreamTheEngineEndsIsOverAtOnce(t *testing.T) {
	var set streamSet
	newStream := func() *stream { return fanout.NewStream[Delivery](fanout.StreamOptions{}) }
	ended := func(s *stream, cause error) bool { return s.StoppedWith(cause) && !s.Send(newFrame(&svcv1.Event{})) }
	s := newStream()
	set.track("m", s)
	defer set.untrack("m", s)
	set.end("m", ErrGone)
	if !ended(s, ErrGone) {
		t.Fatal("a stream ended with ErrGone still takes frames, or has another cause")
	}
	oldest := newStream()
	set.track("n", oldest)
	defer set.untrack("n", oldest)
	for range MaxStreamsPerMember {
		o := newStream()
		set.track("n", o)
		defer set.untrack("n", o)
	}
	if !ended(oldest, ErrTooManyStreams) {
		t.Fatal("the oldest stream over the cap is not over when the newest's track returns")
	}
	if set.untrack("n", oldest); len(set.members["n"]) != MaxStreamsPerMember {
		t.Fatalf("after the oldest's untrack, %d streams of n are tracked, want %d", len(set.members["n"]), MaxStreamsPerMember)
	}
}

// TestPresenceChangesOfABatchGoAsOne: several presence changes written together go as one
// presence_batch with each member's latest change, in the place of the last one.
func TestPresenceChangesOfABatchGoAsOne(t *testing.T) {
	presence := func(id string, p svcv1.Presence) *Frame {
		return newFrame(&svcv1.Event{Kind: &svcv1.Event_Presence{Presence: &svcv1.PresenceEvent{MemberId: id, Presence: p}}})
	}
	msg := newFrame(&svcv1.Event{Seq: 7, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: "hi"}}})
	got := foldPresence([]*Frame{presence("a", svcv1.Presence_PRESENCE_ONLINE), msg, presence("b", svcv1.Presence_PRESENCE_ONLINE), presence("a", svcv1.Presence_PRESENCE_AWAY)})
	if len(got) != 2 || got[0] != msg {
		t.Fatalf("folded into %d frames", len(got))
	}
	var changes []string
	for _, ch := range got[1].Event.GetPresenceBatch().GetChanges() {
		changes = append(changes, ch.GetMemberId()+" "+ch.GetPresence().String())
	}
	if strings.Join(changes, ",") != "a PRESENCE_AWAY,b PRESENCE_ONLINE" {
		t.Fatalf("the batch holds %q", changes)
	}
	one := []*Frame{msg, presence("a", svcv1.Presence_PRESENCE_ONLINE)}
	if got := foldPresence(slices.Clone(one)); !slices.Equal(got, one) {
		t.Fatal("a single presence change was folded")
	}
}

// TestATokenThatExpiresEndsItsStream: a stream ends when the token it was opened with expires,
// on the engine's clock, with nothing sent after.
func TestATokenThatExpiresEndsItsStream(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	k := newTestSink()
	caller := owner
	caller.Expires = c.clock.Now().Add(90 * time.Second)
	done := subscribeTo(t, c.e, caller, k)
	c.send(owner, chID, "before", "")
	k.waitFor(t, 1)
	c.clock.Advance(90 * time.Second)
	select {
	case r := <-done:
		if r.end != StreamTokenExpired || !errors.Is(r.err, ErrTokenExpired) {
			t.Fatalf("ended %s with %v", r.end, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived its token")
	}
	c.send(owner, chID, "after", "")
	if got := k.waitFor(t, 1); strings.Join(got, ",") != "before" {
		t.Fatalf("the wire has %q", got)
	}
}

// heartbeatSink counts the heartbeats written; while hold is set, a write waits for it to
// close, as a client that reads nothing for a while.
type heartbeatSink struct {
	mu    sync.Mutex
	beats int
	hold  chan struct{}
	wrote chan struct{}
}

func (k *heartbeatSink) Write(frames []*Frame) error {
	k.mu.Lock()
	hold := k.hold
	k.mu.Unlock()
	if hold != nil {
		<-hold
	}
	k.mu.Lock()
	for _, f := range frames {
		if f.Event.GetHeartbeat() {
			k.beats++
		}
	}
	k.mu.Unlock()
	select {
	case k.wrote <- struct{}{}:
	default:
	}
	return nil
}

func (k *heartbeatSink) waitBeats(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		k.mu.Lock()
		got := k.beats
		k.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-k.wrote:
		case <-deadline:
			t.Fatalf("%d heartbeats written, want %d", got, n)
		}
	}
}

// TestHeartbeatsComeEvery25sAndNeverPileUp: a stream gets a heartbeat at once and one every
// 25 s after the last was written; a heartbeat not written yet is the last queued: a clock
// moved on by a year while the client reads nothing brings one, not one per 25 s of it (1.26
// million, which filled the stream's queue and ended it).
func TestHeartbeatsComeEvery25sAndNeverPileUp(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	k := &heartbeatSink{wrote: make(chan struct{}, 1)}
	done := subscribeTo(t, c.e, owner, k)
	count := func() int {
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.beats
	}
	k.waitBeats(t, 1)
	// The next heartbeat's timer is set once the last was written: 25 s on, it comes (the
	// clock is moved again in case the timer was set after it moved).
	next := func() {
		t.Helper()
		want := count() + 1
		for range 100 {
			c.clock.Advance(25 * time.Second)
			select {
			case <-k.wrote:
			case <-time.After(50 * time.Millisecond):
			}
			if got := count(); got >= want {
				if got > want {
					t.Fatalf("%d heartbeats for 25 s, want 1", got-want+1)
				}
				return
			}
		}
		t.Fatal("no heartbeat 25 s after the last")
	}
	next()
	next()
	hold := make(chan struct{})
	k.mu.Lock()
	k.hold = hold
	k.mu.Unlock()
	before := count()
	c.clock.Advance(365 * 24 * time.Hour)
	k.mu.Lock()
	k.hold = nil
	k.mu.Unlock()
	close(hold)
	// The heartbeat queued during the year goes now; had the last one's write not set the
	// timer before the clock moved, none was, and one comes 25 s on.
	select {
	case <-k.wrote:
	case <-time.After(200 * time.Millisecond):
	}
	if count() == before {
		next()
	}
	time.Sleep(50 * time.Millisecond)
	if got := count(); got != before+1 {
		t.Fatalf("%d heartbeats for a year the client read nothing in, want 1", got-before)
	}
	next()
	select {
	case r := <-done:
		t.Fatalf("the stream ended %s: %v", r.end, r.err)
	default:
	}
}
