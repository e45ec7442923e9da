package web_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// TestReconnectReplaysExactlyWhatWasMissed: a client that misses 100 events and subscribes
// again from its last seq gets exactly those 100, in order, then live events.
func TestReconnectReplaysExactlyWhatWasMissed(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	st := bob.Subscribe(t, s.Engine.Seq())
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "before"})
	last := st.Next().GetSeq()
	st.Close()
	for i := range 100 {
		clock.Advance(200 * time.Millisecond)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint("missed ", i)})
	}
	st = bob.Subscribe(t, last)
	for i := range 100 {
		ev := st.Next()
		if ev.GetSeq() != last+1+int64(i) || ev.GetMessageCreated().GetText() != fmt.Sprint("missed ", i) {
			t.Fatalf("replayed event %d = seq %d %s, want seq %d missed %d", i, ev.GetSeq(), kind(ev), last+1+int64(i), i)
		}
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "live"})
	if ev := st.Next(); ev.GetSeq() != last+101 || ev.GetMessageCreated().GetText() != "live" {
		t.Fatalf("after the replay got seq %d %s, want the live message at %d", ev.GetSeq(), kind(ev), last+101)
	}
}

// TestResync: an after_seq older than the kept log, or newer than the server's seq, gets resync
// and the stream ends.
func TestResync(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs(), func(o *engine.Options) { o.ReplayEvents = 10; o.ReplayDays = 1 })
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	sendMany(t, alice, clock, ch.GetId(), "", 30)
	clock.Advance(25 * time.Hour)
	if err := s.Engine.PruneLog(); err != nil {
		t.Fatal(err)
	}
	seq := s.Engine.Seq()
	// The newest 10 events are kept: replay from seq-10 works, from seq-11 does not.
	st := alice.Subscribe(t, seq-10)
	if ev := st.Next(); ev.GetSeq() != seq-9 {
		t.Fatalf("replay from the oldest kept: %s seq %d, want seq %d", kind(ev), ev.GetSeq(), seq-9)
	}
	for _, after := range []int64{seq - 11, 0, seq + 1} {
		st := alice.Subscribe(t, after)
		if ev := st.Next(); !ev.GetResync() {
			t.Fatalf("after_seq %d (server at %d): %s, want resync", after, seq, kind(ev))
		}
		if err := st.Ended(); err != nil {
			t.Fatalf("after_seq %d: the stream ended with %v", after, err)
		}
	}
}

// TestSlowSubscriberGetsResync: a stream whose replay goes slower than the events come (its
// client reads slowly) falls further behind than the hub keeps: it gets resync after what it
// replayed, and ends; the other streams go on.
func TestSlowSubscriberGetsResync(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), func(o *engine.Options) { o.RingSize, o.StreamQueue = 16, 8 })
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for i := range 20 {
		clock.Advance(200 * time.Millisecond)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint("before ", i)})
	}
	// A subscriber that replays from the start and reads nothing for now: its writer waits.
	frames, ended := unreadStream(s, alice, 0)
	sendWhileOneReads(t, s, clock, alice, ch.GetId())
	// Now let the slow one read: 40 events came during its replay, on a ring of 16.
	if e, last := drain(t, frames, ended); e.err != nil || e.why != engine.StreamResync || !last.GetResync() {
		t.Fatalf("the slow stream ended with %v (%s) after %s, want resync", e.err, e.why, kind(last))
	}
}

// TestNeverReadingSubscriberIsEndedAsASlowConsumer: a live stream whose client reads nothing
// is ended once more events wait for it than its queue holds (slow_consumer), rather than held
// in memory; the other streams go on.
func TestNeverReadingSubscriberIsEndedAsASlowConsumer(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), func(o *engine.Options) { o.StreamQueue = 8 })
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	frames, ended := unreadStream(s, alice, s.Engine.Seq())
	sendWhileOneReads(t, s, clock, alice, ch.GetId())
	if e, _ := drain(t, frames, ended); e.why != engine.StreamSlowConsumer || e.err != engine.ErrSlowStream {
		t.Fatalf("the slow stream ended with %v (%s), want slow_consumer", e.err, e.why)
	}
}

type streamEnd struct {
	why engine.StreamEnd
	err error
}

// unreadStream opens a stream of c's member on the engine after afterSeq whose client reads
// a frame only when the test takes it from frames; its end comes on ended.
func unreadStream(s *webtest.Server, c *webtest.Client, afterSeq int64) (frames chan *engine.Frame, ended chan streamEnd) {
	frames, ended = make(chan *engine.Frame), make(chan streamEnd, 1)
	go func() {
		why, err := s.Engine.Subscribe(ctx, engine.Caller{ID: c.Member.GetId()}, afterSeq, engine.SendFunc(func(f *engine.Frame, _ bool) error {
			frames <- f
			return nil
		}))
		ended <- streamEnd{why, err}
	}()
	return frames, ended
}

// sendWhileOneReads sends 40 messages to channel, which a stream of c's reads as they come.
func sendWhileOneReads(t *testing.T, s *webtest.Server, clock *webtest.Clock, c *webtest.Client, channel string) {
	t.Helper()
	fast := c.Subscribe(t, s.Engine.Seq())
	for i := range 40 {
		clock.Advance(200 * time.Millisecond)
		mustSend(t, c, &svcv1.SendMessageRequest{ChannelId: channel, Text: fmt.Sprint(i)})
		if ev := fast.Next(); ev.GetMessageCreated().GetText() != fmt.Sprint(i) {
			t.Fatalf("the fast stream got %s, want message %d", kind(ev), i)
		}
	}
}

// drain reads a stream's frames until it ends, and returns its end and its last event.
func drain(t *testing.T, frames chan *engine.Frame, ended chan streamEnd) (streamEnd, *svcv1.Event) {
	t.Helper()
	var last *svcv1.Event
	for {
		select {
		case f := <-frames:
			last = f.Event
		case e := <-ended:
			return e, last
		case <-time.After(webtest.Wait):
			t.Fatal("the slow stream did not end")
		}
	}
}

// TestSeqsAreConsecutiveAcrossARestart.
func TestSeqsAreConsecutiveAcrossARestart(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	start := s.Engine.Seq()
	for i := range 5 {
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint("before ", i)})
	}
	s.Restart()
	for i := range 5 {
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint("after ", i)})
	}
	st := alice.Subscribe(t, start)
	for i := range 10 {
		ev := st.Next()
		want := fmt.Sprint("before ", i)
		if i >= 5 {
			want = fmt.Sprint("after ", i-5)
		}
		if ev.GetSeq() != start+1+int64(i) || ev.GetMessageCreated().GetText() != want {
			t.Fatalf("event %d: seq %d %s, want seq %d %q", i, ev.GetSeq(), kind(ev), start+1+int64(i), want)
		}
	}
}

// TestGetStateThenSubscribeMissesNothing: while messages are being sent, a client takes
// GetState and subscribes from its seq; the messages in the snapshot plus those on the stream
// are every message exactly once.
func TestGetStateThenSubscribeMissesNothing(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	const total = 200
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range total {
			clock.Advance(200 * time.Millisecond)
			mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint(i)})
		}
	}()
	state, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	st := bob.Subscribe(t, state.Msg.GetSeq())
	var lastInState int64
	for _, c := range state.Msg.GetChannels() {
		if c.GetId() == ch.GetId() {
			lastInState = c.GetLastMessageSeq()
		}
	}
	wg.Wait()
	seen := map[string]bool{}
	list, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId(), Limit: 200}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list.Msg.GetMessages() {
		if m.GetCreatedSeq() <= lastInState {
			seen[m.GetText()] = true
		}
	}
	fromState := len(seen)
	for len(seen) < total {
		ev := st.Next()
		m := ev.GetMessageCreated()
		if m == nil {
			continue
		}
		if ev.GetSeq() <= state.Msg.GetSeq() || seen[m.GetText()] {
			t.Fatalf("message %q (seq %d) arrived again after a snapshot at seq %d", m.GetText(), ev.GetSeq(), state.Msg.GetSeq())
		}
		seen[m.GetText()] = true
	}
	t.Logf("%d messages in the snapshot, %d on the stream", fromState, total-fromState)
}

func TestTypingIsEphemeralAndThrottled(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	root := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "a thread"})
	bobSt := bob.Subscribe(t, s.Engine.Seq())
	bobSt.Ephemeral = true
	aliceSt := alice.Subscribe(t, s.Engine.Seq())
	aliceSt.Ephemeral = true
	seq := s.Engine.Seq()
	for range 3 {
		if _, err := alice.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(3 * time.Second)
	if _, err := alice.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId(), ThreadRootId: root.GetId()})); err != nil {
		t.Fatal(err)
	}
	if s.Engine.Seq() != seq {
		t.Fatal("typing was logged")
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "done typing"})
	var typing []*svcv1.TypingEvent
	for _, ev := range bobSt.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated() != nil }) {
		if tp := ev.GetTyping(); tp != nil {
			if ev.GetSeq() != 0 {
				t.Fatalf("typing with seq %d", ev.GetSeq())
			}
			typing = append(typing, tp)
		}
	}
	if len(typing) != 2 || typing[0].GetMemberId() != alice.Member.GetId() || typing[1].GetThreadRootId() != root.GetId() {
		t.Fatalf("bob got typing %v, want two (throttled to one per 3 s)", typing)
	}
	for _, ev := range aliceSt.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated() != nil }) {
		if ev.GetTyping() != nil {
			t.Fatal("alice got her own typing")
		}
	}
}

func TestPresence(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t, func(o *engine.Options) { o.PresenceGrace = 20 * time.Millisecond })
	alice := s.Join("alice")
	bob := s.Join("bob")
	watch := alice.Subscribe(t, s.Engine.Seq())
	watch.Ephemeral = true
	presenceOf := func(id string) svcv1.Presence {
		t.Helper()
		for {
			ev := watch.Next()
			if p := ev.GetPresence(); p != nil && p.GetMemberId() == id {
				return p.GetPresence()
			}
			for _, p := range ev.GetPresenceBatch().GetChanges() {
				if p.GetMemberId() == id {
					return p.GetPresence()
				}
			}
		}
	}
	bobSt := bob.Subscribe(t, s.Engine.Seq())
	if p := presenceOf(bob.Member.GetId()); p != svcv1.Presence_PRESENCE_ONLINE {
		t.Fatalf("bob opened a stream: %v", p)
	}
	if _, err := bob.Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY})); err != nil {
		t.Fatal(err)
	}
	if p := presenceOf(bob.Member.GetId()); p != svcv1.Presence_PRESENCE_AWAY {
		t.Fatalf("bob set away: %v", p)
	}
	state, _ := alice.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	for _, m := range state.Msg.GetMembers() {
		if m.GetId() == bob.Member.GetId() && m.GetPresence() != svcv1.Presence_PRESENCE_AWAY {
			t.Fatalf("GetState shows bob %v", m.GetPresence())
		}
	}
	bobSt.Close()
	if p := presenceOf(bob.Member.GetId()); p != svcv1.Presence_PRESENCE_OFFLINE {
		t.Fatalf("bob closed his stream: %v", p)
	}
	_, err := bob.Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_OFFLINE}))
	if codeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("SetPresence OFFLINE: %v", err)
	}
}

// TestPresenceBatch: changes waiting for a stream arrive as one presence_batch with the latest
// change per member.
func TestPresenceBatch(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	frames := make(chan *engine.Frame, 100)
	release := make(chan struct{})
	go s.Engine.Subscribe(ctx, engine.Caller{ID: alice.Member.GetId()}, s.Engine.Seq(), engine.SendFunc(func(f *engine.Frame, _ bool) error {
		if f.Event.GetPresence() != nil && f.Event.GetPresence().GetMemberId() == alice.Member.GetId() {
			<-release // hold the stream while others change
		}
		frames <- f
		return nil
	}))
	// Alice's stream is open (and her ONLINE published on its own, the first change of a quiet
	// window) once its first heartbeat came: joins before that could put her change in a batch
	// with theirs, which would not hold the stream.
	select {
	case f := <-frames:
		if !f.Event.GetHeartbeat() {
			t.Fatalf("alice's stream opened with %v, want a heartbeat", f.Event)
		}
	case <-time.After(webtest.Wait):
		t.Fatal("no heartbeat on alice's stream")
	}
	var others []*webtest.Client
	var watch *webtest.Stream
	for i := range 3 {
		c := s.Join(fmt.Sprint("m", i))
		others = append(others, c)
		watch = c.Subscribe(t, s.Engine.Seq())
	}
	if _, err := others[0].Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY})); err != nil {
		t.Fatal(err)
	}
	// Until the away has been published (the engine sends presence changes at most once a
	// window), the held stream could be let go with some changes still to come: on a loaded
	// machine the joins outlast a window and the batch then held only the first of them.
	watch.Ephemeral = true
	watch.Until(func(ev *svcv1.Event) bool {
		changes := ev.GetPresenceBatch().GetChanges()
		if p := ev.GetPresence(); p != nil {
			changes = append(changes, p)
		}
		for _, c := range changes {
			if c.GetMemberId() == others[0].Member.GetId() && c.GetPresence() == svcv1.Presence_PRESENCE_AWAY {
				return true
			}
		}
		return false
	})
	mustChannel(t, alice, "after", svcv1.ChannelKind_CHANNEL_KIND_TEXT) // a logged event to end the wait
	close(release)
	var batch *svcv1.PresenceBatch
	for batch == nil {
		select {
		case f := <-frames:
			batch = f.Event.GetPresenceBatch()
		case <-time.After(webtest.Wait):
			t.Fatal("no presence_batch")
		}
	}
	want := map[string]svcv1.Presence{
		others[0].Member.GetId(): svcv1.Presence_PRESENCE_AWAY,
		others[1].Member.GetId(): svcv1.Presence_PRESENCE_ONLINE,
		others[2].Member.GetId(): svcv1.Presence_PRESENCE_ONLINE,
	}
	got := map[string]svcv1.Presence{}
	for _, c := range batch.GetChanges() {
		if _, dup := got[c.GetMemberId()]; dup {
			t.Fatalf("member %s twice in one batch", c.GetMemberId())
		}
		got[c.GetMemberId()] = c.GetPresence()
	}
	for id, p := range want {
		if got[id] != p {
			t.Fatalf("batch %v, want %v", got, want)
		}
	}
}

// TestHeartbeat: a stream gets a heartbeat (seq 0) when it opens and then every 25 s on the
// engine's clock, whatever it delivered meanwhile, and none before it is due: a message sent
// a second before the next heartbeat arrives with no heartbeat ahead of it.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs())
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	st := alice.Subscribe(t, s.Engine.Seq())
	st.Ephemeral = true
	next := func() *svcv1.Event { return nextNotPresence(st) }
	heartbeat := func(when string) {
		t.Helper()
		if ev := next(); !ev.GetHeartbeat() || ev.GetSeq() != 0 {
			t.Fatalf("%s: got seq %d %s, want a heartbeat with seq 0", when, ev.GetSeq(), kind(ev))
		}
	}
	heartbeat("at the stream's opening")
	for i := range 3 {
		clock.Advance(24 * time.Second)
		text := fmt.Sprint("a second before heartbeat ", i+1)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
		if ev := next(); ev.GetMessageCreated().GetText() != text {
			t.Fatalf("after %d s: got seq %d %s, want the message %q", 25*i+24, ev.GetSeq(), kind(ev), text)
		}
		clock.Advance(time.Second)
		heartbeat(fmt.Sprintf("after %d s", 25*(i+1)))
	}
}

// nextNotPresence is the stream's next event that is not presence, which a stream's own
// opening may bring at any point. The stream shows ephemeral events (st.Ephemeral).
func nextNotPresence(st *webtest.Stream) *svcv1.Event {
	for {
		if ev := st.Next(); ev.GetPresence() == nil && ev.GetPresenceBatch() == nil {
			return ev
		}
	}
}
