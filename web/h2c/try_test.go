package h2c_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"hearth/web/h2c"
)

// tryResult is what a handler saw of its TryFlushes.
type tryResult struct {
	beforeHeader bool // TryFlush's answer before the header went out
	sent         int  // chunks TryFlush sent whole
	buffered     int  // what the response held after the TryFlush that did not send all
	err          error
}

// body reads the DATA of stream 1 until END_STREAM, or until it has want bytes (want > 0).
func (c *rawClient) body(want int) []byte {
	c.t.Helper()
	var got []byte
	c.readUntil("DATA", func(f http2.Frame) bool {
		d, ok := f.(*http2.DataFrame)
		if !ok || d.StreamID != 1 {
			return false
		}
		got = append(got, d.Data()...)
		return d.StreamEnded() || (want > 0 && len(got) >= want)
	})
	return got
}

// tryUntilHeld writes chunk(i) and TryFlushes it, for i from 0, until a TryFlush does not send
// all (or fails, or max chunks went): res has what it saw.
func tryUntilHeld(w http.ResponseWriter, res *tryResult, max int, chunk func(i int) []byte) {
	nw := w.(h2c.NowWriter)
	for i := 0; ; i++ {
		w.Write(chunk(i))
		ok, err := nw.TryFlush()
		if err != nil || !ok || i > max {
			res.err = err
			break
		}
		res.sent++
	}
	res.buffered = nw.Buffered()
}

// flushThenEnd sends what the response holds, waiting, then "end".
func flushThenEnd(w http.ResponseWriter) {
	nw := w.(h2c.NowWriter)
	nw.HoldWrites(false)
	if err := nw.FlushError(); err != nil {
		return
	}
	io.WriteString(w, "end")
}

// TestTryFlushLeavesWhatWouldWaitForTheWindow: TryFlush writes nothing before the header
// went out, then writes while the client's window has room for all it holds; what would wait
// for the window stays in the response, and the Flush after it sends it once the client opens
// the window: every byte once, in order.
func TestTryFlushLeavesWhatWouldWaitForTheWindow(t *testing.T) {
	results := make(chan tryResult, 1)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nw := w.(h2c.NowWriter)
		var res tryResult
		if !nw.WritesNow() {
			res.err = errors.New("the response cannot write without waiting")
			results <- res
			return
		}
		nw.HoldWrites(true)
		io.WriteString(w, "h")
		res.beforeHeader, _ = nw.TryFlush()
		if res.err = nw.FlushError(); res.err != nil {
			results <- res
			return
		}
		tryUntilHeld(w, &res, 100, func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 1024) })
		results <- res
		flushThenEnd(w)
	}), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, true, "GET", "/")
	res := <-results
	// The default windows are 65,535 bytes: "h" and 63 chunks fit, the 64th does not.
	if res.beforeHeader || res.err != nil || res.sent != 63 || res.buffered != 1024 {
		t.Fatalf("before the header %v, sent %d chunks, %d bytes held, %v: want false, 63, 1024, nil", res.beforeHeader, res.sent, res.buffered, res.err)
	}
	got := c.body(1 + 63*1024)
	c.fr.WriteWindowUpdate(0, 1<<20)
	c.fr.WriteWindowUpdate(1, 1<<20)
	got = append(got, c.body(0)...)
	var want strings.Builder
	want.WriteString("h")
	for i := range 64 {
		want.Write(bytes.Repeat([]byte{byte('a' + i%26)}, 1024))
	}
	want.WriteString("end")
	if string(got) != want.String() {
		t.Fatalf("the client read %d bytes, not the %d written in order", len(got), want.Len())
	}
}

// TestTryFlushOnAFullSocket: TryFlush writes what the socket takes at once; when it is full,
// what it did not take (a whole write, or the rest of one) waits for the Flush after, and
// the client that reads again gets every byte once, in order, in well-formed frames.
func TestTryFlushOnAFullSocket(t *testing.T) {
	const chunk = 32 << 10
	results := make(chan tryResult, 1)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nw := w.(h2c.NowWriter)
		var res tryResult
		if res.err = nw.FlushError(); res.err != nil {
			results <- res
			return
		}
		nw.HoldWrites(true)
		tryUntilHeld(w, &res, 10_000, func(i int) []byte { return bytes.Repeat([]byte{byte(i % 251)}, chunk) })
		results <- res
		flushThenEnd(w)
	}), nil)
	// Windows larger than any socket buffer, and no reads until the handler is done trying.
	c := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	c.fr.WriteWindowUpdate(0, 1<<31-1-65535)
	c.settle()
	c.headers(1, true, "GET", "/")
	res := <-results
	if res.err != nil || res.sent > 10_000 || (res.buffered != 0 && res.buffered != chunk) {
		t.Fatalf("sent %d chunks, %d bytes held, %v: want a full socket, a chunk held or none", res.sent, res.buffered, res.err)
	}
	t.Logf("the socket took %d chunks; the last went in part: %v", res.sent, res.buffered == 0)
	got := c.body(0)
	if len(got) != (res.sent+1)*chunk+len("end") || string(got[len(got)-3:]) != "end" {
		t.Fatalf("the client read %d bytes, want %d", len(got), (res.sent+1)*chunk+3)
	}
	for i := 0; i <= res.sent; i++ {
		if !bytes.Equal(got[i*chunk:(i+1)*chunk], bytes.Repeat([]byte{byte(i % 251)}, chunk)) {
			t.Fatalf("chunk %d is not as written", i)
		}
	}
}

// TestTryFlushAfterTheWriteDeadline: TryFlush never waits, so the socket's write deadline,
// which the last write that may wait set, is not its own: once that has passed, TryFlush
// still writes, and so do the Flush after it (moving the deadline) and a TryFlush after that.
// The client reads every byte once, in order.
func TestTryFlushAfterTheWriteDeadline(t *testing.T) {
	const stall = 1200 * time.Millisecond // moveDeadline moves it when less than a second of it is left
	defer h2c.SetWriteStall(stall)()
	type outcome struct {
		beforeDeadline, afterIt, afterTheFlush bool
		err                                    error
	}
	results := make(chan outcome, 1)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nw := w.(h2c.NowWriter)
		var o outcome
		defer func() { results <- o }()
		nw.HoldWrites(true)
		io.WriteString(w, "a")
		if o.err = nw.FlushError(); o.err != nil { // the header and "a", the deadline set
			return
		}
		io.WriteString(w, "b")
		if o.beforeDeadline, o.err = nw.TryFlush(); o.err != nil {
			return
		}
		time.Sleep(stall + 100*time.Millisecond)
		io.WriteString(w, "c")
		if o.afterIt, o.err = nw.TryFlush(); o.err != nil {
			return
		}
		if o.err = nw.FlushError(); o.err != nil {
			return
		}
		io.WriteString(w, "d")
		o.afterTheFlush, o.err = nw.TryFlush()
		flushThenEnd(w)
	}), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, true, "GET", "/")
	o := <-results
	if !o.beforeDeadline || !o.afterIt || !o.afterTheFlush || o.err != nil {
		t.Fatalf("TryFlush wrote before the deadline %v, after it %v, after the Flush %v (%v): want true each time",
			o.beforeDeadline, o.afterIt, o.afterTheFlush, o.err)
	}
	if got := string(c.body(0)); got != "abcdend" {
		t.Fatalf("the client read %q, want abcdend", got)
	}
}

// TestTryWrite: TryWrite sends what it is given at once when the response holds nothing
// and the windows have room, as DATA frames no longer than the client's frame size; it takes
// nothing when the response holds something (which must go first) or when the window has no
// room for all of it, and what is then written the usual way follows in order.
func TestTryWrite(t *testing.T) {
	type step struct {
		taken, flushed bool
		err            error
	}
	big := bytes.Repeat([]byte("b"), 40_000)    // past the 16,384-byte frame
	tooBig := bytes.Repeat([]byte("t"), 30_000) // past what is left of the 65,535-byte window
	results := make(chan []step, 1)
	_, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nw := w.(h2c.NowWriter)
		var steps []step
		try := func(p []byte) bool {
			var s step
			s.taken, s.flushed, s.err = nw.TryWrite(p)
			steps = append(steps, s)
			return s.taken
		}
		nw.HoldWrites(true)
		io.WriteString(w, "h")
		if err := nw.FlushError(); err != nil {
			steps = append(steps, step{err: err})
			results <- steps
			return
		}
		try([]byte("x"))
		io.WriteString(w, "y")
		if !try([]byte("z")) { // "y" is held: "z" must follow it
			io.WriteString(w, "z")
		}
		nw.FlushError()
		try(big)
		if !try(tooBig) {
			w.Write(tooBig)
		}
		results <- steps
		flushThenEnd(w)
	}), nil)
	c := dialRaw(t, addr)
	c.settle()
	c.headers(1, true, "GET", "/")
	steps := <-results
	want := []step{{true, true, nil}, {false, false, nil}, {true, true, nil}, {false, false, nil}}
	if len(steps) != len(want) {
		t.Fatalf("TryWrite's answers: %+v, want %+v", steps, want)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Fatalf("TryWrite's answers: %+v, want %+v", steps, want)
		}
	}
	var got []byte
	var sizes []int
	before := len("hxyz")
	c.readUntil("DATA", func(f http2.Frame) bool {
		d, ok := f.(*http2.DataFrame)
		if !ok || d.StreamID != 1 {
			return false
		}
		if len(got) >= before && len(got) < before+len(big) {
			sizes = append(sizes, len(d.Data()))
		}
		got = append(got, d.Data()...)
		return len(got) >= before+len(big)
	})
	if want := []int{16384, 16384, 7232}; !slices.Equal(sizes, want) {
		t.Fatalf("the 40,000 bytes came in frames of %v, want %v", sizes, want)
	}
	c.fr.WriteWindowUpdate(0, 1<<20)
	c.fr.WriteWindowUpdate(1, 1<<20)
	got = append(got, c.body(0)...)
	if wantBody := "hxyz" + string(big) + string(tooBig) + "end"; string(got) != wantBody {
		t.Fatalf("the client read %d bytes, not the %d written in order", len(got), len(wantBody))
	}
}

// TestCloseEndsAWriterWaitingOnAFullSocket: Server.Close ends a connection whose handler
// waits to write to a socket its client does not read (holding the connection's write lock),
// at once rather than after writeStall, and the client's connection ends.
func TestCloseEndsAWriterWaitingOnAFullSocket(t *testing.T) {
	ended := make(chan error, 1)
	s, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("w"), 64<<10)
		for {
			_, err := w.Write(chunk)
			if err == nil {
				err = w.(h2c.NowWriter).FlushError()
			}
			if err != nil {
				ended <- err
				return
			}
		}
	}), nil)
	c := dialRaw(t, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	c.fr.WriteWindowUpdate(0, 1<<31-1-65535)
	c.settle()
	c.headers(1, true, "GET", "/")
	// The handler fills the socket's buffers (a few MB on loopback) and waits to write more.
	time.Sleep(500 * time.Millisecond)
	select {
	case err := <-ended:
		t.Fatalf("the handler's write failed before the server closed: %v", err)
	default:
	}
	closed := time.Now()
	s.Close()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still waits to write 10 s after Close")
	}
	t.Logf("the write failed %v after Close", time.Since(closed))
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, c.conn); err != nil {
		t.Fatalf("the client's connection did not end: %v", err)
	}
}
