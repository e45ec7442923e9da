package web_test

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// wsStream is a GET /events stream read in the background, as webtest.Stream reads Subscribe.
type wsStream struct {
	t      testing.TB
	c      *gws.Conn
	events *webtest.Inbox[*svcv1.Event]
	done   chan struct{}
	err    error
}

type wsOptions struct {
	json     bool
	afterSeq int64
	origin   string
	// noPong: the client answers no ping.
	noPong bool
	// noRead: nothing reads the connection (the test may write to it).
	noRead bool
	// from is the local address the client connects from (nil: any).
	from net.IP
}

// wsReader reads a wsStream's messages, on the connection's reading goroutine (ReadLoop).
type wsReader struct {
	gws.BuiltinEventHandler
	st   *wsStream
	o    wsOptions
	fail error
}

func (h *wsReader) OnPing(c *gws.Conn, p []byte) {
	if !h.o.noPong {
		c.WritePong(p)
	}
}

func (h *wsReader) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	if h.fail != nil {
		return
	}
	ev := &svcv1.Event{}
	var err error
	switch {
	case h.o.json && m.Opcode == gws.OpcodeText:
		err = protojson.Unmarshal(m.Bytes(), ev)
	case !h.o.json && m.Opcode == gws.OpcodeBinary:
		err = proto.Unmarshal(m.Bytes(), ev)
	default:
		err = fmt.Errorf("a message with opcode %d", m.Opcode)
	}
	if err != nil {
		h.fail = err
		c.NetConn().Close()
		return
	}
	h.st.events.Put(ev)
}

func (h *wsReader) OnClose(_ *gws.Conn, err error) {
	h.st.err = cmp.Or(h.fail, err)
	close(h.st.done)
}

// dialEvents opens GET /events on s as the holder of token; its connection is closed when the
// test ends.
func dialEvents(t testing.TB, s *webtest.Server, token string, o wsOptions) (*wsStream, error) {
	t.Helper()
	sub := "hearth.v1.proto"
	if o.json {
		sub = "hearth.v1.json"
	}
	protos := sub
	if token != "" {
		protos += ", hearth.v1.bearer." + token
	}
	d := &net.Dialer{Timeout: webtest.Wait}
	if o.from != nil {
		d.LocalAddr = &net.TCPAddr{IP: o.from}
	}
	h := http.Header{"Sec-Websocket-Protocol": {protos}}
	if o.origin != "" {
		h.Set("Origin", o.origin)
	}
	opts := &gws.ClientOption{
		Addr:               strings.Replace(s.URL, "http", "ws", 1) + fmt.Sprintf("/events?after_seq=%d", o.afterSeq),
		RequestHeader:      h,
		HandshakeTimeout:   webtest.Wait,
		NewDialer:          func() (gws.Dialer, error) { return d, nil },
		ReadMaxPayloadSize: 1 << 20,
	}
	if strings.HasPrefix(s.URL, "https:") {
		opts.TlsConfig = s.TLSConfig("http/1.1")
	}
	st := &wsStream{t: t, events: webtest.NewInbox[*svcv1.Event](), done: make(chan struct{})}
	c, res, err := gws.NewClient(&wsReader{st: st, o: o}, opts)
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("status %d: %w", res.StatusCode, err)
		}
		return nil, err
	}
	st.c = c
	t.Cleanup(func() { c.NetConn().Close() })
	if got := res.Header.Get("Sec-WebSocket-Protocol"); got != sub {
		t.Fatalf("the server chose the subprotocol %q, want %q", got, sub)
	}
	if !o.noRead {
		go c.ReadLoop()
	}
	return st, nil
}

func mustDialEvents(t testing.TB, s *webtest.Server, token string, o wsOptions) *wsStream {
	t.Helper()
	st, err := dialEvents(t, s, token, o)
	if err != nil {
		t.Fatalf("GET /events: %v", err)
	}
	return st
}

// next is the next event (heartbeats, presence and typing included).
func (s *wsStream) next() *svcv1.Event {
	s.t.Helper()
	ev, err := s.events.Wait(s.done, time.Now().Add(webtest.Wait))
	switch {
	case errors.Is(err, webtest.ErrEnded):
		s.t.Fatalf("the stream ended (%v) while an event was expected", s.err)
	case err != nil:
		s.t.Fatalf("no event within %s", webtest.Wait)
	}
	return ev
}

// logged is the next logged event (or resync), past heartbeats, presence and typing.
func (s *wsStream) logged() *svcv1.Event {
	s.t.Helper()
	for {
		if ev := s.next(); ev.GetSeq() != 0 || ev.GetResync() {
			return ev
		}
	}
}

// ended waits for the stream's end: its close code and reason (-1 and the error when the
// connection ended without a close frame).
func (s *wsStream) ended() (int, string) {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(webtest.Wait):
		s.t.Fatalf("the stream did not end within %s", webtest.Wait)
	}
	var ce *gws.CloseError
	if errors.As(s.err, &ce) {
		return int(ce.Code), string(ce.Reason)
	}
	return -1, fmt.Sprint(s.err)
}

func wantClose(t *testing.T, what string, st *wsStream, code int, reason string) {
	t.Helper()
	if got, why := st.ended(); got != code || !strings.Contains(why, reason) {
		t.Fatalf("%s: closed with %d %q, want %d %q", what, got, why, code, reason)
	}
}

// TestEventsOverAWebSocket: GET /events carries what Subscribe carries, in both codecs and
// over TLS too: a heartbeat first, the replay after after_seq, live events in order, and resync
// for a position outside the log (then a normal close).
func TestEventsOverAWebSocket(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tls, json bool
	}{{"proto", false, false}, {"json", false, true}, {"tls", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			var s *webtest.Server
			if tc.tls {
				s = webtest.StartTLS(t, nil)
			} else {
				s = webtest.Start(t)
			}
			alice := s.Join("alice")
			ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
			before := s.Engine.Seq()
			first := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "before"})

			sub := alice.Subscribe(t, before)
			ws := mustDialEvents(t, s, alice.Token, wsOptions{json: tc.json, afterSeq: before})
			if ev := ws.next(); !ev.GetHeartbeat() {
				t.Fatalf("the first event is %s, want a heartbeat", kind(ev))
			}
			mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "live"})
			for _, want := range []string{"before", "live"} {
				got, same := ws.logged(), sub.Next()
				if got.GetMessageCreated().GetText() != want || !proto.Equal(got, same) {
					t.Fatalf("over the WebSocket: seq %d %s, over Subscribe: seq %d %s; want the same message %q", got.GetSeq(), kind(got), same.GetSeq(), kind(same), want)
				}
			}
			if first.GetId() == "" {
				t.Fatal("no message id")
			}

			gone := mustDialEvents(t, s, alice.Token, wsOptions{json: tc.json, afterSeq: s.Engine.Seq() + 5})
			if ev := gone.logged(); !ev.GetResync() {
				t.Fatalf("after a seq the server has not reached: %s, want resync", kind(ev))
			}
			wantClose(t, "after resync", gone, 1000, "")
		})
	}
}

// TestEventsRefuseWhatSubscribeRefuses: no token, a bad token, someone who is no member: the
// upgrade goes through and the stream closes at once with 4000 + the Connect code and the
// message, which a browser can read.
func TestEventsRefuseWhatSubscribeRefuses(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("alice")
	for _, tc := range []struct {
		name, token string
		code        int
		reason      string
	}{
		{"no token", "", 4016, "no Authorization header"},
		{"a bad token", "eyJhbGciOi.not.a-token", 4016, ""},
		{"no member", s.Token("stranger"), 4007, "you are not a member"},
	} {
		st := mustDialEvents(t, s, tc.token, wsOptions{})
		wantClose(t, tc.name, st, tc.code, tc.reason)
	}
}

// TestEventsFromAPageOfAnotherOriginAreRefused: a page of an origin that CORS does not let
// call may not open the stream either (cross-site WebSocket hijacking needs no preflight); its
// own origin, and a client that is no page, may.
func TestEventsFromAPageOfAnotherOriginAreRefused(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	s.SetCORSOrigins("https://chat.example")
	if _, err := dialEvents(t, s, alice.Token, wsOptions{origin: "https://evil.example"}); err == nil || !strings.Contains(err.Error(), "status 403") {
		t.Fatalf("from another origin: %v, want 403", err)
	}
	for _, origin := range []string{"https://chat.example", s.URL, ""} {
		st := mustDialEvents(t, s, alice.Token, wsOptions{origin: origin})
		if ev := st.next(); !ev.GetHeartbeat() {
			t.Fatalf("from %q: %s", origin, kind(ev))
		}
	}
}

// TestAWebSocketClientThatNeverReadsIsEndedAsASlowConsumer: a client that opens the stream and
// reads nothing: once the socket is full its writer waits, its events queue up, and it is ended
// as slow_consumer by its queue's bound or its write's deadline, letting go of its place in the
// event ring; a client that reads gets everything meanwhile.
func TestAWebSocketClientThatNeverReadsIsEndedAsASlowConsumer(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	clock := webtest.NewClock()
	log, config := loggedConfig(t, timeout)
	s := webtest.StartConfig(t, config, webtest.WithClock(clock), func(o *engine.Options) { o.StreamQueue = 16 })
	alice, bob := s.Join("alice"), s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	reading := mustDialEvents(t, s, bob.Token, wsOptions{afterSeq: s.Engine.Seq()})
	mustDialEvents(t, s, alice.Token, wsOptions{afterSeq: s.Engine.Seq(), noRead: true})
	waitFor(t, "the streams to open", func() bool { return s.Engine.Stats().Streams == 2 })
	held := len(s.Engine.Stats().StreamLags)
	text := strings.Repeat("x", 3990)
	sent := 0
	for ; len(s.Engine.Stats().StreamLags) == held; sent++ {
		if sent == 2000 {
			t.Fatal("the stream of a client that reads nothing holds its place after 2,000 messages of 4 KB")
		}
		clock.Advance(200 * time.Millisecond)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
	}
	log.waitLine(t, `msg="stream closed"`, `method="GET /events"`, "ended=slow_consumer", "member="+alice.Member.GetId())
	waitFor(t, "the slow stream to end", func() bool { return s.Engine.Stats().Streams == 1 })
	for i := 0; i < sent; {
		if ev := reading.next(); ev.GetMessageCreated() != nil {
			if ev.GetMessageCreated().GetText() != text {
				t.Fatalf("the reading stream's message %d: %s", i, kind(ev))
			}
			i++
		}
	}
}

// TestAWebSocketClientThatAnswersNoPingIsCutOff: a client that reads its events but answers
// no ping (a peer gone without a word, a proxy that holds the connection) is cut off as a slow
// consumer (4014) within the write timeout of the ping that went with a heartbeat; one that
// answers stays.
func TestAWebSocketClientThatAnswersNoPingIsCutOff(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	clock := webtest.NewClock()
	log, config := loggedConfig(t, timeout)
	s := webtest.StartConfig(t, config, webtest.WithClock(clock))
	alice, bob := s.Join("alice"), s.Join("bob")
	answering := mustDialEvents(t, s, bob.Token, wsOptions{afterSeq: s.Engine.Seq()})
	silent := mustDialEvents(t, s, alice.Token, wsOptions{afterSeq: s.Engine.Seq(), noPong: true})
	for _, st := range []*wsStream{answering, silent} {
		if ev := st.next(); !ev.GetHeartbeat() {
			t.Fatalf("first: %s", kind(ev))
		}
	}
	// The first heartbeat's ping: the silent client's is unanswered.
	log.waitLine(t, `msg="stream closed"`, `method="GET /events"`, "ended=slow_consumer", "member="+alice.Member.GetId())
	wantClose(t, "no pong", silent, 4014, "not read in time")
	time.Sleep(2 * timeout)
	clock.Advance(25 * time.Second)
	for ev := answering.next(); !ev.GetHeartbeat(); ev = answering.next() {
	}
	if st := s.Engine.Stats(); st.Streams != 1 {
		t.Fatalf("%d streams open, want the answering client's", st.Streams)
	}
}

// TestAWebSocketMessageTooLargeFromTheClientIsRefused: the client has nothing to send; a
// message over the read limit closes the connection with 1009 instead of being read into
// memory.
func TestAWebSocketMessageTooLargeFromTheClientIsRefused(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	st := mustDialEvents(t, s, alice.Token, wsOptions{})
	if ev := st.next(); !ev.GetHeartbeat() {
		t.Fatalf("first: %s", kind(ev))
	}
	// Small ones are dropped.
	if err := st.c.WriteMessage(gws.OpcodeText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := st.c.WriteMessage(gws.OpcodeBinary, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	// The server closes at once, with what the client sent still unread: the client may see
	// the reset before the close frame.
	if code, why := st.ended(); code != 1009 && !strings.Contains(why, "connection reset") {
		t.Fatalf("after 64 KB from the client: closed with %d %q, want 1009", code, why)
	}
	waitFor(t, "the stream to end", func() bool { return s.Engine.Stats().Streams == 0 })
}

// TestAWebSocketStreamEndsWhenItsTokenExpires: as Subscribe's, a stream lasts no longer than
// the access token it was opened with: it closes with 4016 and the message, and a new stream
// with a new token from the last seq brings what came meanwhile.
func TestAWebSocketStreamEndsWhenItsTokenExpires(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClockAt(time.Now())
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs())
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	short, exp := joinWithShortToken(t, s, "bob", 2*time.Minute)
	st := mustDialEvents(t, s, short, wsOptions{afterSeq: s.Engine.Seq()})
	clock.Set(exp.Add(-time.Second))
	first := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "a second before"})
	if ev := st.logged(); ev.GetMessageCreated().GetText() != "a second before" {
		t.Fatalf("a second before the exp: %s", kind(ev))
	}
	clock.Set(exp)
	wantClose(t, "at the token's exp", st, 4016, expired)
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "while bob was away"})
	again := mustDialEvents(t, s, s.Token("bob"), wantAfter(first.GetSeq()))
	if ev := again.logged(); ev.GetMessageCreated().GetText() != "while bob was away" {
		t.Fatalf("again: %s", kind(ev))
	}
}

func wantAfter(seq int64) wsOptions { return wsOptions{afterSeq: seq} }

// TestAnOpenEventStreamKeepsNothingOfItsRequest: once GET /events is upgraded, the stream goes
// on without the request's goroutine, holds nothing net/http kept for the connection (its
// 4 KiB reader and writer, the request and the response), and an idle stream holds one
// goroutine, its connection's reader (its writer is started only while there is something to
// write): an open stream holds at most 10 KiB, heap and goroutine stacks, counted over 48
// streams with their clients' side (a bare connection each): 3-5 KiB here, with the race
// detector or without. With a writer's goroutine waiting for each stream it held 16 KiB; with
// the request's goroutine and net/http's buffers kept too, 28 KiB. The request's goroutine is also
// looked for, and must be gone.
func TestAnOpenEventStreamKeepsNothingOfItsRequest(t *testing.T) {
	// Not in parallel: it counts the process's memory and goroutines.
	s := webtest.Start(t)
	const members, each = 8, 12
	tokens := make([]string, members)
	for i := range tokens {
		tokens[i] = s.Join(fmt.Sprintf("m%d", i)).Token
	}
	open := func(token string) {
		c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: hearth\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"+
			"Sec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==\r\nSec-WebSocket-Protocol: hearth.v1.proto, hearth.v1.bearer.%s\r\n\r\n", token)
		res, err := http.ReadResponse(bufio.NewReaderSize(c, 512), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("GET /events: %s", res.Status)
		}
	}
	// streams counts the streams' goroutines (each connection's, reading), and those still
	// serving an upgrade.
	streams := func() (writing, requests int) {
		buf := make([]byte, 8<<20)
		for g := range strings.SplitSeq(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "hearth/web.(*wsReader).read(") {
				writing++
			}
			if strings.Contains(g, "hearth/web.(*events).ServeHTTP(") {
				requests++
			}
		}
		return writing, requests
	}
	// Half the streams first, so that what the server makes once is made; then the other half,
	// measured.
	const half = members * each / 2
	for i := range half {
		open(tokens[i%members])
	}
	waitFor(t, "the first half of the streams to open", func() bool { w, _ := streams(); return w == half })
	before := settledHeapAndStacks()
	for i := range half {
		open(tokens[i%members])
	}
	waitFor(t, "every stream to open, and its request to return", func() bool {
		w, r := streams()
		return w == 2*half && r == 0
	})
	per := (int64(settledHeapAndStacks()) - int64(before)) / half
	t.Logf("an open stream holds %d bytes, with its client's side", per)
	if per > 10<<10 {
		t.Fatalf("an open stream holds %d bytes, with its client's side; want at most %d", per, 10<<10)
	}
}

// settledHeapAndStacks is the heap and the goroutine stacks in use, after a collection, once
// two readings 50 ms apart differ by less than 64 KiB (what the test's server does in the
// background, settled).
func settledHeapAndStacks() uint64 {
	last := web.HeapAndStacks()
	for range 20 {
		time.Sleep(50 * time.Millisecond)
		now := web.HeapAndStacks()
		if max(now, last)-min(now, last) < 64<<10 {
			return now
		}
		last = now
	}
	return last
}
