package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hearth/engine"
	"hearth/engine/ratelimit"
)

// The intake is what every request passes before a handler reads its body (docs/decisions.md,
// "Hardening"): its client address is settled, it takes a place among the requests in flight
// from that address until it is authenticated, its body gets a deadline, and every write of its
// answer one too. Together with authentication before the body (the Connect gate and the plain
// endpoints check the token first), nobody without a token can make the server hold memory or
// goroutines for long, and nobody at all can hold an answer by not reading it.

const (
	// maxUnauthenticated is how many requests one client address may have in flight before
	// they are authenticated: calls that need no token count for as long as they run, unless
	// they stall (stalledAfter).
	maxUnauthenticated = 64
	// stalledAfter: a request that has waited this long on its client (a read of its body, a
	// write of its answer, that does not return) no longer counts among its address's
	// requests in flight once the address has no place left: it holds up only itself, until
	// its own deadline ends it.
	stalledAfter = 5 * time.Second
	// writeTimeout bounds every write to a client: each write of an answer, each batch of a
	// stream. A client that does not take it in time is cut off.
	writeTimeout = 30 * time.Second
	// callBodyTime: the body of a Connect call must arrive within it.
	callBodyTime = 10 * time.Second
	// An upload's body must keep moving: uploadProgress bytes in every uploadWindow.
	uploadProgress = 32 << 10
	uploadWindow   = 10 * time.Second
	// publicBodyMax bounds the body of a call that needs no token (GetServerInfo's is empty):
	// it is read before anyone is known.
	publicBodyMax = 4 << 10
	// toolCallTime bounds a call of gRPC's own services (reflection, health), which need no
	// token: a reflection stream is a conversation at the client's pace, which grpcurl, buf
	// curl and Postman hold for a moment; without a bound, anyone could hold one open forever.
	toolCallTime = time.Minute
)

var (
	errTooManyInFlight = &engine.Error{
		Code:       engine.CodeResourceExhausted,
		Msg:        "too many requests in flight from your address before authentication (64 at most); retry in 1s",
		RetryAfter: time.Second,
	}
	errSlowCallBody = &engine.Error{Code: engine.CodeTooSlow, Msg: "the request body did not arrive within 10 s"}
	errSlowUpload   = &engine.Error{Code: engine.CodeTooSlow, Msg: "the body stalled: less than 32 KB arrived in 10 s"}
)

// intake wraps the server's handler; see above.
type intake struct {
	proxies proxies
	slots   addrSlots
	running running
	// toolTime is toolCallTime (tests shorten it).
	toolTime time.Duration
	// writeTimeout is the deadline of each write to a client (Config.WriteTimeout).
	writeTimeout time.Duration
	writes       writeWatch
}

// isCall reports whether r is a call of our Connect services (their paths are
// /svc.v1.<Service>/<Method>).
func isCall(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/svc.v1.") }

func (in *intake) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.running.enter()
		defer in.running.leave()
		// What the intake learns goes in the request's state, which the request log put in
		// its context (one made here without it, for an intake on its own).
		st := requestStateOf(r.Context())
		if st == nil {
			st = &requestState{}
			r = withRequestState(r, st)
		}
		is := &st.intake
		is.served = true
		is.writes = &in.writes
		st.addr = in.proxies.clientAddrOf(r)
		is.aw = answerWriter{ResponseWriter: w, http1: r.ProtoMajor == 1, rc: http.NewResponseController(w), timeout: in.writeTimeout}
		aw := &is.aw
		// Counted as every per-address limit counts (an IPv6 /64 is one host).
		p, ok := in.slots.take(ratelimit.AddrKey(st.addr), time.Now())
		if ok {
			is.place, is.slots, aw.place = p, &in.slots, p
			defer func() {
				if is.place != nil {
					in.slots.release(is.place)
				}
			}()
		} else {
			is.refusal = errTooManyInFlight
		}
		// The answer's last bytes go out after the handler returns (net/http flushes them):
		// within a deadline too.
		defer aw.finish()
		if isToolCall(r) {
			// Reads and writes both: a client that sends nothing, or reads nothing, is cut off
			// alike. The deadlines go with the request (over HTTP/1 they are the connection's).
			deadline := time.Now().Add(in.toolCallTime())
			aw.rc.SetReadDeadline(deadline)
			aw.rc.SetWriteDeadline(deadline)
			aw.fixed = true
			defer func() {
				aw.rc.SetReadDeadline(time.Time{})
				aw.rc.SetWriteDeadline(time.Time{})
			}()
			if p != nil && hasBody(r) {
				r.Body = &watchedBody{ReadCloser: r.Body, place: p}
			}
		} else if hasBody(r) {
			if tb := in.timeBody(w, r, p); tb != nil {
				r.Body, aw.body = tb, tb
			}
		}
		if !ok && !isCall(r) {
			// Calls are refused by the gate, in their own protocol.
			writeError(aw, errTooManyInFlight)
			return
		}
		next.ServeHTTP(aw, r)
	})
}

// hasBody reports whether r may carry a body (an HTTP/2 request without a length may).
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// isToolCall reports whether r is a call of gRPC's own services (reflection, health).
func isToolCall(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/grpc.") }

func (in *intake) toolCallTime() time.Duration {
	if in.toolTime > 0 {
		return in.toolTime
	}
	return toolCallTime
}

// timeBody puts a deadline on r's body: a call's must arrive within callBodyTime, and one
// that needs no token is also capped at publicBodyMax; a plain endpoint's (an upload) must
// keep moving. gRPC's own services (reflection, health) have a deadline of their own (wrap):
// their streams carry small messages at the client's pace, and they count in flight for as
// long as they run, at most toolCallTime.
func (in *intake) timeBody(w http.ResponseWriter, r *http.Request, p *place) *timedBody {
	tb := &timedBody{src: r.Body, rc: http.NewResponseController(w), place: p}
	if isCall(r) {
		tb.window, tb.slow = callBodyTime, toConnect(errSlowCallBody)
		if callAccess[r.URL.Path] == public {
			tb.src = http.MaxBytesReader(w, r.Body, publicBodyMax)
		}
	} else {
		tb.window, tb.progress, tb.slow = uploadWindow, uploadProgress, errSlowUpload
	}
	tb.start()
	return tb
}

// timedBody is a request body with a read deadline: the whole body within window, or, with
// progress set, progress bytes in every window. A body that misses it fails with slow (the
// read deadline also stops a read blocked on a silent client). Its end clears the deadline,
// so that the connection's own reads (net/http watches for the client going away) go on.
//
// With progress set, a window counts only the time the server waits for the client: the
// time the handler spends between two reads (an upload's head with the sandbox, which may
// first have to start, or wait for its turn, seconds on a busy machine) moves the deadline on
// by as much. Otherwise a client that sent all along got 408 "the body stalled" for the
// server's own pause: the deadline had passed by the next read, with the bytes waiting.
type timedBody struct {
	src      io.ReadCloser
	rc       *http.ResponseController
	window   time.Duration
	progress int
	slow     error
	// place is the request's place among those in flight (nil: none): a read that waits on
	// the client marks it waiting.
	place *place
	moved int // bytes since the deadline was last moved
	ended atomic.Bool
	err   error
	// With progress: the read deadline, when the last read returned, and the time spent
	// away from reading since the deadline was last set (added to it before the next read
	// once it passes awaySlack, so that short gaps cost no deadline change each).
	deadline time.Time
	returned time.Time
	away     time.Duration
}

// awaySlack is how much time away from reading a body's deadline absorbs before it is moved.
const awaySlack = 50 * time.Millisecond

func (b *timedBody) start() {
	// A writer that cannot take a deadline (a test's recorder) leaves the body unbounded.
	now := time.Now()
	b.deadline, b.returned = now.Add(b.window), now
	b.rc.SetReadDeadline(b.deadline)
}

func (b *timedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.progress > 0 {
		if b.away += time.Since(b.returned); b.away > awaySlack {
			b.deadline = b.deadline.Add(b.away)
			b.away = 0
			b.rc.SetReadDeadline(b.deadline)
		}
	}
	b.place.wait(time.Now())
	n, err := b.src.Read(p)
	b.place.waited()
	if b.progress > 0 {
		b.returned = time.Now()
		if b.moved += n; b.moved >= b.progress {
			b.moved, b.away = 0, 0
			b.deadline = b.returned.Add(b.window)
			b.rc.SetReadDeadline(b.deadline)
		}
	}
	switch {
	case err == io.EOF:
		b.ended.Store(true)
		b.rc.SetReadDeadline(time.Time{})
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.err = b.slow
		return n, b.err
	}
	return n, err
}

// Close before the body's end (a call answered without its body: Connect closes the body
// before its answer goes out) would have net/http read what is left, up to 256 KiB at the
// client's pace, to keep the connection: the deadline is moved to now first, so that the
// answer leaves at once and the connection closes after it (answerWriter).
func (b *timedBody) Close() error {
	if !b.ended.Load() {
		b.rc.SetReadDeadline(time.Now())
	}
	return b.src.Close()
}

// answerWriter is the answer as the intake sees it.
//
// Every write to the client has a deadline (writeTimeout): set before a write when the one set
// is less than half of it away, so that a handler writing a large answer in pieces moves it on
// now and then rather than at every write. A client that does not read (a full socket over
// HTTP/1, a shut window over HTTP/2) is cut off within it: net/http's WriteTimeout, a deadline
// for the whole answer, would cut off a large download or the answer to a long upload, and a
// stream's whole life. A stream's writes (streaming) are watched by writeWatch instead.
//
// It closes an HTTP/1 connection after an answer given before the body was read to its end,
// instead of letting net/http read what is left of it (up to 256 KiB, at the client's pace) to
// reuse the connection: an answer must never wait for a body nobody needs.
//
// It lets a stream hold flushes back (holdFlushes): Connect flushes after every message it
// sends, and each flush is a write to the socket (over HTTP/2, also a hand-off to the
// connection's goroutine); a stream with several events waiting writes them with one.
type answerWriter struct {
	http.ResponseWriter
	http1 bool
	body  *timedBody
	wrote bool
	// hold: flushes wait for the next one that is not held.
	hold bool

	rc      *http.ResponseController
	timeout time.Duration
	// deadline is the write deadline set (zero: none); fixed, once the intake set one for
	// the whole request (gRPC's own services), which the writes leave alone.
	deadline time.Time
	fixed    bool
	// stream: a stream's writes are bounded by its writer (writeWatch).
	stream bool
	// place is the request's place among those in flight before authentication (nil: none):
	// a write that waits on the client marks it waiting.
	place *place
}

// bound moves the write deadline to now+timeout before a write, when the one set is nearer
// than half of that.
func (w *answerWriter) bound(now time.Time) {
	if w.timeout <= 0 || w.stream || w.fixed || w.rc == nil {
		return
	}
	if w.deadline.IsZero() || w.deadline.Sub(now) < w.timeout/2 {
		w.setDeadline(now.Add(w.timeout))
	}
}

func (w *answerWriter) setDeadline(t time.Time) {
	w.deadline = t
	// A writer that cannot take a deadline (a test's recorder) leaves the answer unbounded.
	w.rc.SetWriteDeadline(t)
}

// finish bounds what net/http writes once the handler returned: the rest of the answer.
func (w *answerWriter) finish() {
	if !w.fixed {
		w.stream = false
		w.bound(time.Now())
	}
}

// streaming says that a stream's writes are watched (on), or that the stream ended and its
// last writes are bounded as any answer's (off).
func (w *answerWriter) streaming(on bool) {
	w.stream = on
	if on {
		// A deadline set by a write before would end the stream, written to or not, once it
		// passed.
		if !w.deadline.IsZero() {
			w.setDeadline(time.Time{})
		}
		return
	}
	w.hold = false
	w.bound(time.Now())
}

// intakeState is what the intake tells the handlers inside about a request (in its
// requestState; the client address is the request log's addr).
type intakeState struct {
	// served: the request passed the intake (the rest is set).
	served bool
	// place is the request's place among those in flight before authentication, taken from
	// slots; nil when it got none (refusal is set).
	place   *place
	slots   *addrSlots
	refusal error
	aw      answerWriter
	// writes watches the writes of streams.
	writes *writeWatch
}

// intakeOf is what the intake said about the request, nil outside the intake.
func intakeOf(ctx context.Context) *intakeState {
	if st := requestStateOf(ctx); st != nil && st.intake.served {
		return &st.intake
	}
	return nil
}

// holdFlushes makes the flushes that follow no-ops (hold) or real again. What is written
// meanwhile stays in the response's buffer, which still writes itself out when full. The one
// goroutine writing the response at a time calls it.
func (w *answerWriter) holdFlushes(hold bool) { w.hold = hold }

func (w *answerWriter) answer() {
	if !w.wrote {
		w.wrote = true
		if w.http1 && w.body != nil && !w.body.ended.Load() {
			w.Header().Set("Connection", "close")
		}
	}
}

func (w *answerWriter) WriteHeader(code int) {
	w.answer()
	w.bound(time.Now())
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.answer()
	if w.stream && w.place == nil {
		// A stream's event: its writer set the deadline.
		return w.ResponseWriter.Write(b)
	}
	now := time.Now()
	w.bound(now)
	w.place.wait(now)
	defer w.place.waited()
	return w.ResponseWriter.Write(b)
}

// Flush keeps streams streaming through the wrapper.
func (w *answerWriter) Flush() {
	w.answer()
	if w.hold {
		return
	}
	f, ok := w.ResponseWriter.(http.Flusher)
	if !ok {
		return
	}
	if w.stream && w.place == nil {
		f.Flush()
		return
	}
	now := time.Now()
	w.bound(now)
	w.place.wait(now)
	defer w.place.waited()
	f.Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hijacked tells the intake that the handler took the connection over from net/http (a
// WebSocket): the answer is no longer the intake's to bound, and a stream that outlives its
// request keeps nothing of net/http's through the request's state (the response, and with it
// the connection's buffers).
func hijacked(ctx context.Context) {
	if is := intakeOf(ctx); is != nil {
		is.aw = answerWriter{}
	}
}

// authenticated gives back the request's place among those in flight before authentication,
// once its caller is known.
func authenticated(ctx context.Context) {
	if is := intakeOf(ctx); is != nil && is.place != nil {
		is.slots.release(is.place)
		is.place, is.aw.place = nil, nil
		if is.aw.body != nil {
			is.aw.body.place = nil
		}
	}
}

// refusal is why the intake refused a request it let through to be answered in its own
// protocol (a Connect call): nil when it did not.
func refusal(ctx context.Context) error {
	if is := intakeOf(ctx); is != nil {
		return is.refusal
	}
	return nil
}

// addrSlots counts the requests in flight per client address (as ratelimit.AddrKey counts it)
// that are not authenticated yet.
type addrSlots struct {
	mu     sync.Mutex
	places map[string][]*place
	// stalledAfter is stalledAfter (tests shorten it).
	stalledAfter time.Duration
}

// place is one request's place among its address's requests in flight.
type place struct {
	addr string
	// waiting is when the request began to wait on its client (Unix nanoseconds), 0 while it
	// does not.
	waiting atomic.Int64
	// given: the place was given back, or taken back from a stalled request.
	given bool
}

// wait marks the request waiting on its client from now until waited. Nothing for a request
// without a place (nil).
func (p *place) wait(now time.Time) {
	if p != nil {
		p.waiting.Store(now.UnixNano())
	}
}

func (p *place) waited() {
	if p != nil {
		p.waiting.Store(0)
	}
}

// take takes a place for addr, or fails when it has maxUnauthenticated that are not stalled:
// the places of requests that have waited on their client for stalledAfter are taken back
// first (their requests go on, counted no more). release gives the place back.
func (s *addrSlots) take(addr string, now time.Time) (*place, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.places == nil {
		s.places = map[string][]*place{}
	}
	list := s.places[addr]
	if len(list) >= maxUnauthenticated {
		stalled := s.stalledAfter
		if stalled <= 0 {
			stalled = stalledAfter
		}
		kept := list[:0]
		for _, p := range list {
			if w := p.waiting.Load(); w != 0 && now.UnixNano()-w >= int64(stalled) {
				p.given = true
				continue
			}
			kept = append(kept, p)
		}
		clear(list[len(kept):])
		list = kept
	}
	if len(list) >= maxUnauthenticated {
		s.places[addr] = list
		return nil, false
	}
	p := &place{addr: addr}
	s.places[addr] = append(list, p)
	return p, true
}

// release gives p back; again, or after it was taken back, does nothing.
func (s *addrSlots) release(p *place) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.given {
		return
	}
	p.given = true
	list := s.places[p.addr]
	for i, q := range list {
		if q == p {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.places, p.addr)
	} else {
		s.places[p.addr] = list
	}
}

// watchedBody marks its request waiting while a read of it waits on the client (see place):
// the body of a call of gRPC's own services, which has a deadline of its own.
type watchedBody struct {
	io.ReadCloser
	place *place
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.place.wait(time.Now())
	defer b.place.waited()
	return b.ReadCloser.Read(p)
}

// running counts the handlers running, so that a server shutting down can wait for them.
type running struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0, if someone waits
}

func (r *running) enter() {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
}

func (r *running) leave() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n--; r.n == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

// wait returns when no handler runs, or with ctx's error.
func (r *running) wait(ctx context.Context) error {
	r.mu.Lock()
	if r.n == 0 {
		r.mu.Unlock()
		return nil
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
