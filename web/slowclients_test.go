package web_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// Regression tests for the clients that do not read (issue 42): every stream and answer is
// bounded in time and memory, on every transport. The write timeout is 30 s in production; the
// tests shorten it (Config.WriteTimeout) rather than wait.

// loggedConfig keeps the server's log, down to info, and shortens its write timeout.
func loggedConfig(t *testing.T, writeTimeout time.Duration) (*syncBuffer, func(*web.Config)) {
	buf := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(buf.String())
		}
	})
	return buf, func(c *web.Config) {
		c.WriteTimeout = writeTimeout
		c.Log = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
}

// TestZeroWindowStreamIsEndedWithin30s: a client that opens a Subscribe stream and gives the
// server no HTTP/2 window held the stream and its handler forever (and, over our own h2c
// server, the event ring's entries with it). Now the stream's first write that cannot go is
// cut off when the write timeout is up: the stream is reset, and ends as slow_consumer. Over
// h2c and over TLS. A stream whose client reads, idle for longer than the timeout, stays open.
func TestZeroWindowStreamIsEndedWithin30s(t *testing.T) {
	t.Parallel()
	for _, overTLS := range []bool{false, true} {
		name := "h2c"
		if overTLS {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			log, config := loggedConfig(t, timeout)
			var s *webtest.Server
			if overTLS {
				s = webtest.StartTLS(t, config)
			} else {
				s = webtest.StartConfig(t, config)
			}
			alice, bob := s.Join("alice"), s.Join("bob")
			ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
			reading := bob.Subscribe(t, s.Engine.Seq())
			// The places held in the ring: the reading stream's, and the followers' of the
			// server itself (the notifier, the plugins).
			held := len(s.Engine.Stats().StreamLags)

			var raw *h2Client
			if overTLS {
				raw = dialH2(t, s, s.TLSConfig("h2"), 0)
			} else {
				raw = dialH2(t, s, nil, 0)
			}
			id := raw.subscribe(alice.Token)
			if how := raw.waitEnded(id, webtest.Wait); how != "INTERNAL_ERROR" {
				t.Fatalf("the stream without a window ended with %s, want a reset", how)
			}
			log.waitLine(t, `msg="stream closed"`, "ended=slow_consumer", "member="+alice.Member.GetId())
			waitFor(t, "the stream to let go of everything", func() bool {
				st := s.Engine.Stats()
				return st.Streams == 1 && len(st.StreamLags) == held
			})

			// The reading stream was idle for longer than the write timeout, and is open.
			time.Sleep(2 * timeout)
			mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "still here?"})
			if ev := reading.Next(); ev.GetMessageCreated().GetText() != "still here?" {
				t.Fatalf("the reading stream got %s", kind(ev))
			}
		})
	}
}

// TestNeverReadingClientCannotPinEvents: a client that sends a Subscribe request over HTTP/1.1
// and never reads its answer: once the socket is full, the stream's writer waits, its events
// queue up, and the stream is ended as slow_consumer, by its queue's bound or its write's
// deadline, whichever comes first. It holds no place in the event ring afterwards, and a
// member who reads gets everything meanwhile and after, over HTTP/1.1 too, however long their
// stream was idle before.
func TestNeverReadingClientCannotPinEvents(t *testing.T) {
	t.Parallel()
	// Long enough for the reading client, in a goroutine of a busy test process, to take a
	// flood of events in time.
	const timeout = time.Second
	clock := webtest.NewClock()
	log, config := loggedConfig(t, timeout)
	s := webtest.StartConfig(t, config, webtest.WithClock(clock), func(o *engine.Options) { o.StreamQueue = 16 })
	alice, bob := s.Join("alice"), s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	http1 := &webtest.Client{Chat: svcv1connect.NewChatServiceClient(http.DefaultClient, s.URL, connect.WithInterceptors(auth.WithBearer(bob.Token)))}
	reading := http1.Subscribe(t, s.Engine.Seq())

	raw := dialRaw(t, s)
	raw.head("/svc.v1.ChatService/Subscribe", 7, "Content-Type: application/connect+json", "Authorization: Bearer "+alice.Token)
	if err := raw.send([]byte("\x00\x00\x00\x00\x02{}")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stream to open", func() bool { return s.Engine.Stats().Streams == 2 })
	// The places held in the ring: the two streams', and the followers' of the server itself
	// (the notifier, the plugins).
	held := len(s.Engine.Stats().StreamLags)
	time.Sleep(2 * timeout) // the reading stream idles for longer than the write timeout
	text := strings.Repeat("x", 3990)
	sent := 0
	// Until the stream lets go of its place in the ring: at once when its queue overflows.
	for ; len(s.Engine.Stats().StreamLags) == held; sent++ {
		if sent == 2000 {
			t.Fatal("the stream of a client that reads nothing holds its place after 2,000 messages of 4 KB")
		}
		clock.Advance(200 * time.Millisecond)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
		// The reading member takes each message before the next is sent: on a busy machine its
		// goroutine could fall 16 behind a burst and be ended itself, which this test is not about.
		if ev := reading.Next(); ev.GetMessageCreated().GetText() != text {
			t.Fatalf("the reading stream's message %d: %s", sent, kind(ev))
		}
	}
	// Its writer, stuck in a write, is cut off when the write timeout is up.
	log.waitLine(t, `msg="stream closed"`, "ended=slow_consumer", "member="+alice.Member.GetId())
	if st := s.Engine.Stats(); st.Streams != 1 || len(st.StreamLags) != held-1 {
		t.Fatalf("%d streams open, %d followers hold a place in the ring: want the reading stream's and the server's own (%d)", st.Streams, len(st.StreamLags), held-1)
	}
	// And after: the reading member still gets what is sent.
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
	if ev := reading.Next(); ev.GetMessageCreated().GetText() != text {
		t.Fatalf("the reading stream's message after: %s", kind(ev))
	}
}

// TestStalledStreamsDoNotLockAnAddressOut: 64 answers that a client stalls (an HTTP/2
// connection that gives the server no window, asking for the client's bundle) held every one
// of its address's 64 places before authentication until their writes ended, and the address
// was refused everything meanwhile. Now a request waiting on its client for a while does not
// count once the address has no place left, and the stalled answers are cut off when their
// write timeout is up.
func TestStalledStreamsDoNotLockAnAddressOut(t *testing.T) {
	t.Parallel()
	const timeout = 3 * time.Second
	s := webtest.StartConfig(t, func(c *web.Config) {
		c.WriteTimeout = timeout
		c.StalledAfter = 100 * time.Millisecond
	})
	raw := dialH2(t, s, nil, 0)
	var ids []uint32
	for range 64 {
		ids = append(ids, raw.open("GET", "/app/app.js", nil))
	}
	start := time.Now()
	waitFor(t, "the answers to stall", func() bool {
		raw.mu.Lock()
		defer raw.mu.Unlock()
		return len(raw.headers) == len(ids)
	})
	waitFor(t, "a request from the same address to be answered", func() bool {
		res, err := http.Get(s.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	if waited := time.Since(start); waited >= timeout {
		t.Fatalf("the address was locked out for %s, as long as the stalled answers lasted", waited)
	}
	for _, id := range ids {
		if how := raw.waitEnded(id, webtest.Wait); how != "INTERNAL_ERROR" {
			t.Fatalf("a stalled answer ended with %s, want a reset", how)
		}
	}
}

// TestAKeepAliveConnectionIdleForLongerThanTheWriteTimeoutIsAnswered: the write deadline an
// HTTP/1.1 answer leaves on its connection (its last bytes go out after the handler, and are
// bounded too) must not fail the next request's answer, however long the connection idled: a
// CORS preflight, answered before the intake, included (net/http clears a connection's write
// deadline after each answer).
func TestAKeepAliveConnectionIdleForLongerThanTheWriteTimeoutIsAnswered(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	_, config := loggedConfig(t, timeout)
	s := webtest.StartConfig(t, config)
	c := dialRaw(t, s)
	for i, req := range []string{
		"GET /healthz HTTP/1.1\r\nHost: hearth.test\r\n\r\n",
		"OPTIONS /svc.v1.ServerService/GetMe HTTP/1.1\r\nHost: hearth.test\r\nOrigin: https://elsewhere.example\r\nAccess-Control-Request-Method: POST\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nHost: hearth.test\r\n\r\n",
	} {
		if i > 0 {
			time.Sleep(2 * timeout)
		}
		if err := c.send([]byte(req)); err != nil {
			t.Fatal(err)
		}
		res, _ := c.answer()
		if res.StatusCode >= 300 {
			t.Fatalf("request %d: status %d", i, res.StatusCode)
		}
	}
}
