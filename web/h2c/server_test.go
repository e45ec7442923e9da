package h2c_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"golang.org/x/net/http2"
)

// smallWindowClient is an h2c client that advertises 64 KiB windows, the least it may.
func smallWindowClient() *http.Client {
	c := h2cClient(nil)
	c.Transport.(*http.Transport).HTTP2 = &http.HTTP2Config{MaxReceiveBufferPerConnection: 64 << 10, MaxReceiveBufferPerStream: 64 << 10}
	return c
}

// A large upload and a large download go through windows many times smaller than
// themselves, both ways, byte for byte.
func TestLargeBodiesThroughSmallWindows(t *testing.T) {
	const size = 9<<20 + 12345
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			h := sha256.New()
			n, err := io.Copy(h, r.Body)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Header().Set("Trailer", "X-Sum")
			io.WriteString(w, "got")
			w.Header().Set("X-Sum", hex.EncodeToString(h.Sum(nil)))
			w.Header().Set(http.TrailerPrefix+"X-Length", strings.Repeat("n", int(n%7)))
			return
		}
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			w.Write(chunk[:min(len(chunk), size-sent)])
		}
	}), nil)
	c := smallWindowClient()
	body := make([]byte, size)
	for i := range body {
		body[i] = byte(i * 7)
	}
	res, err := c.Post("http://"+addr+"/", "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	want := sha256.Sum256(body)
	if string(got) != "got" || res.Trailer.Get("X-Sum") != hex.EncodeToString(want[:]) || res.Trailer.Get("X-Length") != strings.Repeat("n", size%7) {
		t.Fatalf("upload: %d %q, trailers %q", res.StatusCode, got, res.Trailer)
	}
	res, err = c.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(h, res.Body)
	res.Body.Close()
	if err != nil || n != size {
		t.Fatalf("download: %d bytes, %v", n, err)
	}
}

// A client that reads nothing while its stream is being written to costs other connections
// nothing: their requests are answered while its handler waits.
func TestAClientThatStopsReadingBlocksNoOtherConnection(t *testing.T) {
	writing := make(chan struct{})
	var once sync.Once
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/flood" {
			chunk := make([]byte, 32<<10)
			for {
				once.Do(func() { close(writing) })
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
		io.WriteString(w, "answered")
	}), nil)
	// A huge window, so the server writes until the socket is full, and no reads.
	stuck := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	stuck.fr.WriteWindowUpdate(0, 1<<31-1-65535)
	stuck.headers(1, true, "GET", "/flood")
	<-writing
	c := h2cClient(nil)
	for range 3 {
		if got := get(t, c, "http://"+addr+"/"); got != "answered" {
			t.Fatalf("got %q", got)
		}
	}
}

// Trailers reach a gRPC client: gRPC reflection, called with Connect's gRPC protocol,
// reads its status from the trailers.
func TestTrailersReachAGRPCClient(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(grpcreflect.NewHandlerV1(grpcreflect.NewStaticReflector("hearth.test.v1.Nothing")))
	_, addr := serve(t, mux, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream := grpcreflect.NewClient(h2cClient(nil), "http://"+addr, connect.WithGRPC()).NewStream(ctx)
	defer stream.Close()
	names, err := stream.ListServices()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "hearth.test.v1.Nothing" {
		t.Fatalf("services %v", names)
	}
	// An unknown file is an error the server puts in the trailers (NOT_FOUND).
	if _, err := stream.FileByFilename("nothing.proto"); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("an unknown file: %v", err)
	}
}

// A client's reset cancels the handler's context.
func TestResetCancelsTheHandlersContext(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		ended <- context.Cause(r.Context())
	}), nil)
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/")
	<-started
	c.fr.WriteRSTStream(1, http2.ErrCodeCancel)
	select {
	case err := <-ended:
		if err == nil || !strings.Contains(err.Error(), "CANCEL") {
			t.Fatalf("the handler's context ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context did not end after the reset")
	}
}

// A connection that ends (here the client goes away) cancels the context of every handler
// still running on it, with a cause that wraps context.Canceled.
func TestAConnectionThatEndsCancelsItsHandlersContexts(t *testing.T) {
	started := make(chan struct{}, 2)
	ended := make(chan error, 2)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
		ended <- context.Cause(r.Context())
	}), nil)
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/")
	c.headers(3, false, "POST", "/")
	<-started
	<-started
	c.conn.Close()
	for range 2 {
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("a handler's context ended with %v, want a cause wrapping context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a handler's context did not end after the client went away")
		}
	}
}

// Opening and resetting streams in a loop (CVE-2023-44487) cannot run more handlers at once
// than SETTINGS_MAX_CONCURRENT_STREAMS: a reset stream's handler still counts until it
// returns, and the streams past the limit are refused.
func TestRapidResetIsBoundedByRunningHandlers(t *testing.T) {
	release := make(chan struct{})
	var running, most atomic.Int32
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release // ignores its context, as a slow handler would
		running.Add(-1)
	}), nil)
	defer close(release)
	c := dialRaw(t, addr)
	const streams = 400
	for i := range streams {
		id := uint32(2*i + 1)
		c.headers(id, true, "GET", "/")
		c.fr.WriteRSTStream(id, http2.ErrCodeCancel)
	}
	// The last stream was refused: the server answers it with REFUSED_STREAM.
	if code := c.reset(2*streams - 1); code != http2.ErrCodeRefusedStream {
		t.Fatalf("the last stream was reset with %v", code)
	}
	if m := most.Load(); m > 250 {
		t.Fatalf("%d handlers ran at once", m)
	}
}

// Frames that carry nothing, in a flood, end the connection with ENHANCE_YOUR_CALM.
func TestPingFloodIsCalmedDown(t *testing.T) {
	_, addr := serve(t, http.NotFoundHandler(), nil)
	c := dialRaw(t, addr)
	for i := range 2000 {
		if c.fr.WritePing(false, [8]byte{byte(i)}) != nil {
			break
		}
	}
	if code := c.goAway(); code != http2.ErrCodeEnhanceYourCalm {
		t.Fatalf("GOAWAY %v", code)
	}
}

// A connection with no request for the idle timeout gets GOAWAY and is closed.
func TestIdleConnectionIsClosed(t *testing.T) {
	_, addr := serve(t, protoHandler(), func(s *http.Server) { s.IdleTimeout = 100 * time.Millisecond })
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/")
	c.readUntil("the answer", func(f http2.Frame) bool { d, ok := f.(*http2.DataFrame); return ok && d.StreamEnded() })
	if code := c.goAway(); code != http2.ErrCodeNo {
		t.Fatalf("GOAWAY %v", code)
	}
	c.fr.WriteGoAway(0, http2.ErrCodeNo, nil)
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, c.conn); err != nil {
		t.Fatalf("after GOAWAY: %v, want the server to close", err)
	}
}

// A connection that sends the preface but not its SETTINGS is closed after the header timeout.
func TestAConnectionWithoutSettingsIsClosed(t *testing.T) {
	_, addr := serve(t, protoHandler(), func(s *http.Server) { s.ReadHeaderTimeout = 100 * time.Millisecond })
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Fatalf("%v, want the server to close", err)
	}
}

// A malformed request (an upper-case header name) is a stream error, PROTOCOL_ERROR, and
// the connection goes on; an undecodable header block is a connection error,
// COMPRESSION_ERROR.
func TestMalformedHeaderBlocks(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/", "X-Upper", "1")
	if code := c.reset(1); code != http2.ErrCodeProtocol {
		t.Fatalf("an upper-case name: RST_STREAM %v", code)
	}
	c.headers(3, true, "GET", "/", "te", "gzip")
	if code := c.reset(3); code != http2.ErrCodeProtocol {
		t.Fatalf("te: gzip: RST_STREAM %v", code)
	}
	c.headers(5, true, "GET", "/")
	c.readUntil("the answer", func(f http2.Frame) bool { d, ok := f.(*http2.DataFrame); return ok && d.StreamEnded() })
	// An index past the tables.
	c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 7, BlockFragment: []byte{0xff, 0x7f}, EndStream: true, EndHeaders: true})
	if code := c.goAway(); code != http2.ErrCodeCompression {
		t.Fatalf("an undecodable block: GOAWAY %v", code)
	}
}

// http.ResponseController's deadlines work on a stream: a read past its deadline fails with
// os.ErrDeadlineExceeded, and so does a write, the stream reset.
func TestResponseControllerDeadlines(t *testing.T) {
	results := make(chan error, 2)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.URL.Path == "/read" {
			if err := rc.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
				results <- err
				return
			}
			_, err := io.ReadAll(r.Body)
			results <- err
			return
		}
		if err := rc.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
			results <- err
			return
		}
		_, err := w.Write([]byte("late"))
		if err == nil {
			err = rc.Flush()
		}
		results <- err
	}), nil)
	c := dialRaw(t, addr)
	c.headers(1, false, "POST", "/read") // and no body ever
	if err := <-results; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past the deadline: %v", err)
	}
	c.headers(3, true, "GET", "/write")
	if code := c.reset(3); code != http2.ErrCodeInternal {
		t.Fatalf("a write past the deadline: RST_STREAM %v", code)
	}
	if err := <-results; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write past the deadline: %v", err)
	}
}

// A handler that panics resets its stream with INTERNAL_ERROR and is logged as net/http logs
// it; http.ErrAbortHandler is not logged.
func TestHandlerPanic(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
		panic("the handler's bug")
	}), func(s *http.Server) {
		s.ErrorLog = log.New(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return logged.Write(p)
		}), "", 0)
	})
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/abort")
	if code := c.reset(1); code != http2.ErrCodeInternal {
		t.Fatalf("abort: RST_STREAM %v", code)
	}
	c.headers(3, true, "GET", "/bug")
	if code := c.reset(3); code != http2.ErrCodeInternal {
		t.Fatalf("panic: RST_STREAM %v", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if s := logged.String(); strings.Count(s, "panic serving") != 1 || !strings.Contains(s, "the handler's bug") {
		t.Fatalf("logged %q", s)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A handler that writes nothing answers 200 with END_STREAM on its headers; a small answer
// gets its Content-Length and a sniffed Content-Type, as from net/http.
func TestEmptyAndSmallAnswers(t *testing.T) {
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			io.WriteString(w, "<html>hi</html>")
		}
	}), nil)
	c := dialRaw(t, addr)
	c.headers(1, true, "GET", "/empty")
	f := c.readUntil("HEADERS", func(f http2.Frame) bool { _, ok := f.(*http2.MetaHeadersFrame); return ok }).(*http2.MetaHeadersFrame)
	if !f.StreamEnded() || f.PseudoValue("status") != "200" {
		t.Fatalf("empty: end %v, status %q", f.StreamEnded(), f.PseudoValue("status"))
	}
	res, err := h2cClient(nil).Get("http://" + addr + "/small")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ContentLength != 15 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Date") == "" {
		t.Fatalf("small: length %d, header %v", res.ContentLength, res.Header)
	}
}

// The handler sees the request net/http's own h2c server would give it: the same fields,
// header, body, trailers and context values, request for request.
func TestRequestsAreNetHTTPs(t *testing.T) {
	dump := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var keys []string
		for k, v := range r.Header {
			keys = append(keys, k+"="+strings.Join(v, "|"))
		}
		slices.Sort(keys)
		_, hasServer := r.Context().Value(http.ServerContextKey).(*http.Server)
		_, hasLocal := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		fmt.Fprintf(w, "%s %q %q host=%s %s %d.%d uri=%s len=%d body=%q err=%v trailer=%v header=%v ctx=%v,%v,%v remote=%v",
			r.Method, r.URL.String(), r.URL.Path, r.Host, r.Proto, r.ProtoMajor, r.ProtoMinor, r.RequestURI,
			r.ContentLength, b, err, r.Trailer, keys, hasServer, hasLocal, r.Context().Value(ctxKey{}), r.RemoteAddr != "")
	})
	base := func(ln net.Listener) context.Context {
		return context.WithValue(context.Background(), ctxKey{}, "base")
	}
	_, ours := serve(t, dump, func(s *http.Server) { s.BaseContext = base })
	theirs := &http.Server{Handler: dump, BaseContext: base, Protocols: new(http.Protocols)}
	theirs.Protocols.SetHTTP1(true)
	theirs.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go theirs.Serve(ln)
	defer theirs.Close()

	requests := []func(addr string) *http.Request{
		func(addr string) *http.Request {
			r, _ := http.NewRequest("GET", "http://"+addr+"/a/b%20c?x=1&y=%2F", nil)
			r.Header.Add("Cookie", "a=1")
			r.Header.Add("Cookie", "b=2")
			r.Header.Set("X-Several", "one")
			r.Header.Add("X-Several", "two")
			return r
		},
		func(addr string) *http.Request {
			r, _ := http.NewRequest("POST", "http://"+addr+"/upload", strings.NewReader("a body"))
			r.Header.Set("Content-Type", "text/plain")
			return r
		},
		func(addr string) *http.Request {
			// No length: the body is streamed, with trailers.
			r, _ := http.NewRequest("PUT", "http://"+addr+"/stream", io.MultiReader(strings.NewReader("part one, "), strings.NewReader("part two")))
			r.Trailer = http.Header{"X-Checksum": {"abc"}}
			return r
		},
		func(addr string) *http.Request {
			r, _ := http.NewRequest("HEAD", "http://"+addr+"/", nil)
			return r
		},
	}
	c := h2cClient(nil)
	for i, mk := range requests {
		var got [2]string
		for j, addr := range []string{ours, ln.Addr().String()} {
			res, err := c.Do(mk(addr))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			got[j] = strings.ReplaceAll(fmt.Sprintf("%d %s", res.StatusCode, b), addr, "ADDR")
			if res.Request.Method == "HEAD" {
				got[j] += fmt.Sprintf(" length=%d type=%q", res.ContentLength, res.Header.Get("Content-Type"))
			}
		}
		if got[0] != got[1] {
			t.Errorf("request %d:\nours:     %s\nnet/http: %s", i, got[0], got[1])
		}
	}
}

type ctxKey struct{}

// TestDataAfterTheClientsEndIsStreamClosed: DATA on a stream the client ended (HEADERS with
// END_STREAM) is answered with RST_STREAM STREAM_CLOSED whenever it comes: while the handler
// runs, as its answer's last frame goes out, or after. Streams one after another, each
// answered at once, meet the DATA at every point of the answer.
func TestDataAfterTheClientsEndIsStreamClosed(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	c := dialRaw(t, addr)
	for id := uint32(1); id < 400; id += 2 {
		c.headers(id, true, "GET", "/")
		if err := c.fr.WriteData(id, true, []byte("late")); err != nil {
			t.Fatal(err)
		}
		if code := c.reset(id); code != http2.ErrCodeStreamClosed {
			t.Fatalf("stream %d: RST_STREAM %v, want STREAM_CLOSED", id, code)
		}
	}
}

// TestTheSettingsAckGoesBeforeTheDataItLetsThrough: an answer waiting for a zero window goes
// on when the client's SETTINGS opens it, after that SETTINGS' acknowledgement, the point
// from which the client counts the new window.
func TestTheSettingsAckGoesBeforeTheDataItLetsThrough(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	for range 20 {
		c := dialRaw(t, addr)
		c.settle()
		c.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
		c.settle()
		c.headers(1, true, "GET", "/")
		c.readUntil("the answer's HEADERS", func(f http2.Frame) bool { _, ok := f.(*http2.MetaHeadersFrame); return ok })
		c.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1})
		var seen []string
		c.readUntil("DATA", func(f http2.Frame) bool {
			seen = append(seen, f.Header().Type.String())
			_, ok := f.(*http2.DataFrame)
			return ok
		})
		if len(seen) != 2 || seen[0] != "SETTINGS" {
			t.Fatalf("after the SETTINGS that opened the window: %v, want SETTINGS (its ACK) then DATA", seen)
		}
		c.conn.Close()
	}
}

// TestFramesInFlightOnAStreamTheServerResetAreIgnored: once the server reset a stream (here,
// for a body longer than its content-length), what the client sent on it before it heard
// (more DATA, its trailers) is ignored, as RFC 9113, 5.1 asks: no second RST_STREAM, no
// connection error, and the connection goes on.
func TestFramesInFlightOnAStreamTheServerResetAreIgnored(t *testing.T) {
	// The handler reads the body, so the stream is open when the DATA over its length comes
	// (one that answered at once would end it first, with RST_STREAM NO_ERROR).
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "read")
	}), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, false, "POST", "/", "content-length", "4")
	if err := c.fr.WriteData(1, false, []byte("too long")); err != nil {
		t.Fatal(err)
	}
	if code := c.reset(1); code != http2.ErrCodeProtocol {
		t.Fatalf("RST_STREAM %v for a body over its length, want PROTOCOL_ERROR", code)
	}
	c.restOfTheRequest(1, "more")
	pingAnsweredAlone(t, c)
	c.headers(3, true, "GET", "/")
	c.readUntil("the next stream's answer", func(f http2.Frame) bool {
		d, ok := f.(*http2.DataFrame)
		return ok && d.StreamID == 3 && d.StreamEnded()
	})
}

// TestFramesInFlightAfterAnAnswerThatEndedTheStreamAreIgnored: an answer that goes out before
// the request's body ended closes the stream with RST_STREAM NO_ERROR (RFC 9113, 8.1); the
// body and trailers the client sent before it read that are ignored, not answered with a
// second reset or a connection error.
func TestFramesInFlightAfterAnAnswerThatEndedTheStreamAreIgnored(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, false, "POST", "/")
	if code := c.reset(1); code != http2.ErrCodeNo {
		t.Fatalf("RST_STREAM %v after the answer, want NO_ERROR", code)
	}
	c.restOfTheRequest(1, "the body")
	pingAnsweredAlone(t, c)
}

// TestFramesOnStreamsOpenedAfterGoAwayAreIgnored: streams a client opens before it reads the
// server's GOAWAY are not served, and what it sends on them next (DATA, RST_STREAM, a window
// update) is ignored (RFC 9113, 6.8), while the stream the GOAWAY let finish still finishes.
func TestFramesOnStreamsOpenedAfterGoAwayAreIgnored(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "finished")
	}), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, true, "GET", "/")
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	if f := c.readUntil("GOAWAY", func(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok }); f.(*http2.GoAwayFrame).LastStreamID != 1 {
		t.Fatalf("GOAWAY's last stream %d, want 1", f.(*http2.GoAwayFrame).LastStreamID)
	}
	c.headers(3, false, "POST", "/")
	if err := c.fr.WriteData(3, false, []byte("a body")); err != nil {
		t.Fatal(err)
	}
	if err := c.fr.WriteWindowUpdate(3, 100); err != nil {
		t.Fatal(err)
	}
	if err := c.fr.WriteRSTStream(3, http2.ErrCodeCancel); err != nil {
		t.Fatal(err)
	}
	pingAnsweredAlone(t, c)
	close(release)
	c.readUntil("stream 1's answer", func(f http2.Frame) bool {
		d, ok := f.(*http2.DataFrame)
		return ok && d.StreamID == 1 && d.StreamEnded()
	})
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// pingAnsweredAlone sends a PING and reads until its ACK, failing on any RST_STREAM or GOAWAY
// on the way: the frames sent before it were ignored.
func pingAnsweredAlone(t *testing.T, c *rawClient) {
	t.Helper()
	if err := c.fr.WritePing(false, [8]byte{7}); err != nil {
		t.Fatal(err)
	}
	c.readUntil("the PING's ACK", func(f http2.Frame) bool {
		switch f := f.(type) {
		case *http2.RSTStreamFrame, *http2.GoAwayFrame:
			t.Fatalf("frames that were to be ignored were answered: %v", f)
		case *http2.PingFrame:
			return f.IsAck()
		}
		return false
	})
}
