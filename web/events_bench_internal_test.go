package web

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"hearth/engine"
	"hearth/engine/fanout"
	svcv1 "hearth/proto/svc/v1"
)

// The WebSocket library of GET /events was chosen with these benchmarks (docs/decisions.md,
// "Live events for browsers: Subscribe or WebSocket"): the library's share of a delivery (its
// framing and writes, through the endpoint's sink) and what an open connection holds, run
// once with each candidate in its place.

// wsBenchServer accepts WebSocket connections as GET /events does (the sink's heldConn, a
// goroutine reading the client's frames) and hands over each one's sink.
func wsBenchServer(tb testing.TB) (*httptest.Server, chan *wsSink) {
	sinks := make(chan *wsSink, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held, br, err := hijackHeld(w, 10*time.Second, nil)
		if err != nil {
			return
		}
		live := &wsLive{timeout: 10 * time.Second, noPong: func() {}}
		conn, err := acceptWS(held, br, r, wsProto, live.pong)
		if err != nil {
			return
		}
		go conn.read()
		sinks <- &wsSink{conn: conn, held: held, live: live, timeout: 10 * time.Second, codec: codec{name: "proto"}, binary: true}
	}))
	tb.Cleanup(srv.Close)
	return srv, sinks
}

// wsBenchDial opens a WebSocket to srv and returns its connection, past the handshake.
func wsBenchDial(tb testing.TB, srv *httptest.Server) (net.Conn, *bufio.Reader) {
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))
	fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
		srv.Listener.Addr(), key, wsProto)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		tb.Fatalf("handshake: %s", res.Status)
	}
	return c, br
}

// benchFrames are n message events as the fan-out hands them over: shared, each encoded once.
func benchFrames(n int) []*engine.Frame {
	frames := make([]*engine.Frame, n)
	for i := range frames {
		frames[i] = fanout.NewFrame(&svcv1.Event{Seq: int64(1000 + i), AtMs: time.Now().UnixMilli(), Kind: &svcv1.Event_MessageCreated{
			MessageCreated: &svcv1.Message{Id: "01a2504f-2431-7975-8b0b-3e8e0b2b622e", ChannelId: "01a2504f-2457-7dc3-9b3a-f2b5a6b4e2ff",
				AuthorId: "01a2504f-2431-7975-8b0b-3e8e0b2b6230", Text: "hl run 12345 1765100000000000000 hello to everyone in here"},
		}})
		if _, err := frames[i].Encoded("proto", codec{name: "proto"}.marshalEvent); err != nil {
			panic(err)
		}
	}
	return frames
}

// BenchmarkWebSocketSink is the library's share of a delivery: a batch of events written as
// WebSocket messages through the sink (one write to the socket per batch), to a client on
// loopback that reads and drops the bytes. Per op: one batch.
func BenchmarkWebSocketSink(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			srv, sinks := wsBenchServer(b)
			c, br := wsBenchDial(b, srv)
			sink := <-sinks
			defer sink.held.Close()
			go io.Copy(io.Discard, br)
			_ = c
			frames := benchFrames(n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := sink.Write(frames); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
		})
	}
}

// BenchmarkWebSocketIdleConn is what one open, idle connection holds on the server once
// upgraded (its buffers, the library's state, the reading goroutine's stack): heap and stacks
// in use, per connection, over 500 of them.
func BenchmarkWebSocketIdleConn(b *testing.B) {
	const conns = 500
	for range b.N {
		srv, sinks := wsBenchServer(b)
		// A first connection, so the server's and the library's one-time state is made.
		wsBenchDial(b, srv)
		first := <-sinks
		before := inUse()
		held := make([]*wsSink, 0, conns)
		for range conns {
			wsBenchDial(b, srv)
			held = append(held, <-sinks)
		}
		after := inUse()
		b.ReportMetric(float64(after-before)/conns, "bytes/conn")
		for _, k := range append(held, first) {
			k.held.Close()
		}
		srv.Close()
	}
}

// inUse is the heap and the goroutine stacks in use, after a collection.
func inUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
