package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/proto/svc/v1/svcv1connect"
)

// GET /events is the browser's live event stream over a WebSocket (docs/decisions.md,
// "Live events for browsers: Subscribe or WebSocket"): the events of Subscribe, in the same
// two codecs, with the same replay, resync, token expiry and limits, through the same fan-out
// (engine.Subscribe with a sink of its own). Subscribe stays for every API client.
//
//   - The client offers the codec as a subprotocol, hearth.v1.proto (binary messages, each a
//     protobuf Event) or hearth.v1.json (text messages, each an Event in JSON), and its access
//     token as another, hearth.v1.bearer.<token>: never in the URL, which logs and proxies keep.
//     The server answers with the codec's subprotocol alone.
//   - after_seq, in the query, is Subscribe's after_seq.
//   - The token is checked before the upgrade, as Subscribe's; a refusal is told after it, as the
//     close code 4000 + the Connect code (4016 unauthenticated, 4007 permission_denied, 4008
//     resource_exhausted, 4014 unavailable for a slow consumer) with the message as its reason,
//     which a browser can read (it sees nothing of an HTTP answer to a failed upgrade). A stream
//     that ends without an error closes with 1000 (1001 when the server shuts down).
//   - Everything else is bounded as Subscribe is: the stream's queue and its slow-consumer
//     rule, a write deadline on every write (Config.WriteTimeout), the connection cap per
//     client address (a hijacked connection still counts), and a client that answers no ping
//     is ended as a slow consumer: each heartbeat goes with a ping, whose pong must come
//     within the write timeout. The client sends nothing else; a message over wsReadLimit
//     closes the connection (1009).
//   - A page of another origin may connect only where CORS lets it call (-cors-origin).

// eventsRoute names GET /events to the request log.
const eventsRoute = "GET /events"

// The subprotocols of GET /events.
const (
	wsProto  = "hearth.v1.proto"
	wsJSON   = "hearth.v1.json"
	wsBearer = "hearth.v1.bearer."
)

// wsReadLimit bounds a message from the client, which has none to send.
const wsReadLimit = 1 << 10

// Close codes beyond the protocol's own: 4000 + a Connect code.
const wsCloseCodeBase = 4000

// events serves GET /events.
type events struct {
	eng     *engine.Engine
	auth    *authenticator
	origins []string
	conns   *connLimit
	// running counts the streams among the handlers running (intake.running).
	running *running
	timeout time.Duration
	proto   codec
	json    codec
}

func badEvents(msg string) error { return &engine.Error{Code: engine.CodeInvalidArgument, Msg: msg} }

// errNoPong ends a stream whose client did not answer a ping in time: a slow consumer, as one
// that does not take a write within the write timeout (a client that reads nothing answers no
// ping either, and is usually found by this first).
var errNoPong = fmt.Errorf("%w: the client answered no ping within the write timeout", engine.ErrSlowConsumer)

func (e *events) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		writeError(w, badEvents("GET /events is a WebSocket: send Connection: Upgrade and Upgrade: websocket, over HTTP/1.1"))
		return
	}
	sub, token := wsSubprotocols(r.Header)
	if sub == "" {
		writeError(w, badEvents("offer the subprotocol "+wsProto+" (binary) or "+wsJSON+" (text) in Sec-WebSocket-Protocol"))
		return
	}
	if !e.originAllowed(r) {
		writeError(w, &engine.Error{Code: engine.CodePermissionDenied, Msg: "this server takes no event streams from pages of " + strconv.Quote(r.Header.Get("Origin")) + " (see -cors-origin)"})
		return
	}
	var afterSeq int64
	if v := r.URL.Query().Get("after_seq"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, badEvents("after_seq must be a whole number, 0 or more"))
			return
		}
		afterSeq = n
	}

	// Subscribe's rules, on a fresh stack (see authenticator.gate).
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	ctx := r.Context()
	authErr := engine.RunOnFreshStack(func() (err error) {
		ctx, err = e.auth.authenticate(r.Context(), svcv1connect.ChatServiceSubscribeProcedure, h)
		return err
	})
	if authErr != nil {
		ctx = r.Context()
	}

	live := &wsLive{timeout: e.timeout}
	var released func(net.Conn)
	if e.conns != nil {
		released = e.conns.release
	}
	held, br, err := hijackHeld(w, e.timeout, released)
	if err != nil {
		writeError(w, badEvents("GET /events is a WebSocket over HTTP/1.1: this connection cannot be taken over ("+err.Error()+")"))
		return
	}
	hijacked(r.Context())
	conn, err := acceptWS(held, br, r, sub, live.pong)
	if err != nil {
		// The library answered the request (a handshake it refuses) and closed the connection.
		return
	}
	l := requestLogOf(ctx)
	if l != nil {
		l.logged = true
	}
	if authErr != nil {
		authErr = toConnect(authErr)
		if l != nil {
			l.logCall(ctx, eventsRoute, authErr)
		}
		conn.close(wsCloseCode(authErr))
		return
	}

	// The connection is the stream's alone now, and the stream goes on without the request's
	// goroutine: once the handler returns, net/http lets go of what it kept for the connection
	// (its reader and writer, the request, the response, and that goroutine's stack, grown by
	// the TLS handshake: docs/performance.md, "The browser's stream holds less"). It is counted
	// among the running handlers still, so that a server shutting down waits for it.
	e.running.enter()
	var reader *wsReader
	defer func() {
		if reader == nil {
			// Opening the stream panicked (net/http recovers it): the connection, hijacked,
			// is ours to close, and a shutdown must not wait for it.
			held.Close()
			e.running.leave()
		}
	}()
	reader = e.stream(context.WithoutCancel(ctx), conn, held, live, sub == wsJSON, afterSeq)
	// The connection's reader is a goroutine of its own, whose stack grows only as deep as
	// reading needs: this one's was grown by the TLS handshake and the stream's opening.
	go reader.read()
}

// stream opens the stream of the events after afterSeq on an accepted connection, in JSON or
// protobuf, and returns the connection's reader, whose read runs on a goroutine of its own
// until the stream and the connection end; the stream ends with the connection, and closes it
// with its end's code. ctx is the request's, with the caller.
//
// The reader is the connection's one goroutine for as long as the stream lasts: it reads the
// client's frames (the pongs, its close, a message too large), whose end is the stream's, and
// so is a ping left unanswered. The stream's writer is a goroutine started only while there is
// something to write (engine.SubscribeAsync): an idle stream holds one goroutine, not two.
func (e *events) stream(ctx context.Context, conn wsConn, held *heldConn, live *wsLive, json bool, afterSeq int64) *wsReader {
	ctx, cancel := context.WithCancelCause(ctx)
	live.noPong = func() { cancel(errNoPong) }

	l := requestLogOf(ctx)
	l.streamOpened(ctx, eventsRoute)
	sink := &wsSink{conn: conn, held: held, live: live, timeout: e.timeout, codec: e.proto, binary: true}
	if json {
		sink.codec, sink.binary = e.json, false
	}
	ended := make(chan struct{})
	e.eng.SubscribeAsync(ctx, callerOf(ctx), afterSeq, sink, func(end engine.StreamEnd, err error) {
		defer close(ended)
		live.stop()
		// What an internal error was (a panic reading the log, among others) goes to the log.
		noteCause(ctx, err)
		err = toConnect(err)
		if l != nil {
			l.end = end
			l.logStreamEnd(ctx, eventsRoute, err)
		}
		code, reason := wsCloseCode(err)
		if end == engine.StreamShutdown {
			code = 1001
		}
		if !sink.stuck {
			// A connection whose write missed its deadline takes no close frame either.
			conn.close(code, reason)
		}
		// Closing the connection ends the reader's read.
		held.Close()
		cancel(nil)
	})
	return &wsReader{conn: conn, cancel: cancel, ended: ended, running: e.running}
}

// wsReader is a /events connection's reader (events.stream).
type wsReader struct {
	conn    wsConn
	cancel  context.CancelCauseFunc
	ended   chan struct{}
	running *running
}

// read reads the client's frames until the connection ends, which ends the stream, and
// returns once the stream has ended.
func (r *wsReader) read() {
	defer r.running.leave()
	r.cancel(r.conn.read())
	<-r.ended
}

// wsCloseCode is the close code and reason that tell the client how its stream ended: 1000
// for no error, else 4000 + the Connect code with the message (at most 123 bytes, cut at a
// character).
func wsCloseCode(err error) (int, string) {
	if err == nil {
		return 1000, ""
	}
	var ce *connect.Error
	msg := err.Error()
	if errors.As(err, &ce) {
		msg = ce.Message()
	}
	for len(msg) > 123 {
		_, size := utf8.DecodeLastRuneInString(msg)
		msg = msg[:len(msg)-size]
	}
	return wsCloseCodeBase + int(connect.CodeOf(err)), msg
}

// originAllowed lets a browser page connect from its own origin, or from one CORS lets call
// (any, unless -cors-origin names some); a client that is no page sends no Origin.
func (e *events) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(e.origins) == 0 || slices.Contains(e.origins, "*") || slices.Contains(e.origins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// wsSubprotocols finds the codec and the token among the subprotocols the client offers.
func wsSubprotocols(h http.Header) (codec, token string) {
	for _, v := range h.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			p = strings.TrimSpace(p)
			switch {
			case (p == wsProto || p == wsJSON) && codec == "":
				codec = p
			case strings.HasPrefix(p, wsBearer):
				token = p[len(wsBearer):]
			}
		}
	}
	return codec, token
}

// headerHas reports whether h's field name lists token (case aside).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// wsLive is a connection's liveness: each heartbeat goes with a ping, and the client must
// answer within the write timeout, or noPong ends the stream. A timer, not a read deadline:
// a library whose read fails on a deadline closes the connection itself, with a close code
// of its choosing.
type wsLive struct {
	timeout time.Duration
	noPong  func()

	mu      sync.Mutex
	timer   *time.Timer
	waiting bool
	stopped bool
}

// pinged starts the wait for a pong, unless one is waited for already.
func (l *wsLive) pinged() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting || l.stopped {
		return
	}
	l.waiting = true
	if l.timer == nil {
		l.timer = time.AfterFunc(l.timeout, l.noPong)
	} else {
		l.timer.Reset(l.timeout)
	}
}

// pong ends the wait.
func (l *wsLive) pong([]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting {
		l.waiting = false
		l.timer.Stop()
	}
}

// stop ends the watch with the stream.
func (l *wsLive) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
}

// wsSink is a /events stream's sink (engine.Sink): the stream's one writer hands it everything
// queued, and it writes each event as one WebSocket message, all held and written to the socket
// as one write (heldConn), within the write deadline. A heartbeat goes with a ping.
type wsSink struct {
	conn    wsConn
	held    *heldConn
	live    *wsLive
	timeout time.Duration
	codec   codec
	binary  bool
	// stuck: a write missed its deadline.
	stuck bool
}

func (k *wsSink) Write(frames []*engine.Frame) error {
	k.held.holdWrites()
	var err error
	beat := false
	for _, f := range frames {
		var b []byte
		if b, err = f.Encoded(k.codec.format(), k.codec.marshalEvent); err != nil {
			break
		}
		if err = k.conn.write(k.binary, b); err != nil {
			break
		}
		beat = beat || f.Event.GetHeartbeat()
	}
	if err == nil && beat {
		// The ping goes in the same write.
		k.live.pinged()
		err = k.conn.ping()
	}
	if rerr := k.held.release(); err == nil {
		err = rerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		k.stuck = true
		return fmt.Errorf("%w: the client did not take a write within %s (%v)", engine.ErrSlowConsumer, k.timeout, err)
	}
	return err
}
