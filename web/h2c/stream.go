package h2c

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"time"

	"golang.org/x/net/http2"
)

// stream is one request and its response.
type stream struct {
	c      *conn
	id     uint32
	ctx    context.Context
	cancel context.CancelCauseFunc
	body   *body // nil without a request body

	// The reader's own: the request body's declared length and what has come of it.
	declared int64
	received int64

	// Under c.mu.
	sendWindow   int64
	recvAvail    int64
	recvUnsent   int64
	remoteClosed bool  // the client ended its side (END_STREAM)
	localClosed  bool  // the response ended (END_STREAM sent)
	reset        bool  // RST_STREAM sent or received
	resetSent    bool  // RST_STREAM sent: the client's frames in flight are ignored (forgetLocked)
	resetErr     error // why writes fail after a reset
	writeTimer   *time.Timer
	countedOut   bool // no longer among the connection's running handlers
}

var errStreamClosed = errors.New("h2c: stream closed")

// writeErrLocked is why the stream takes no more writes, nil while it does; c.mu held.
func (st *stream) writeErrLocked() error {
	switch {
	case st.reset:
		return st.resetErr
	case st.localClosed:
		return errStreamClosed
	}
	return nil
}

// end resets the stream: its context ends with cause, its body fails, writes fail, and with
// send the client is told (RST_STREAM code). False when the stream had ended already (reset,
// or closed both ways), and nothing was done.
func (st *stream) end(code http2.ErrCode, cause error, send bool) bool {
	c := st.c
	c.mu.Lock()
	if st.reset || st.localClosed && st.remoteClosed {
		c.mu.Unlock()
		return false
	}
	st.reset, st.resetErr, st.resetSent = true, cause, send
	if st.writeTimer != nil {
		st.writeTimer.Stop()
	}
	c.forgetLocked(st)
	c.cond.Broadcast()
	c.mu.Unlock()
	st.cancel(canceled(cause))
	st.body.fail(cause)
	if send {
		c.writeFrames(func(o *outBuf) error { return o.fr.WriteRSTStream(st.id, code) })
	}
	return true
}

// wasReset reports whether the stream was reset (by end).
func (st *stream) wasReset() bool {
	st.c.mu.Lock()
	defer st.c.mu.Unlock()
	return st.reset
}

// canceled is the cause a request's context ends with: it wraps context.Canceled, as a
// client going away is told apart from other ends by that (the engine's streams do).
func canceled(cause error) error {
	return fmt.Errorf("%w (%w)", context.Canceled, cause)
}

// setWriteDeadline resets the stream once t passes, as net/http's HTTP/2 server does: writes
// then fail with an error wrapping os.ErrDeadlineExceeded.
func (st *stream) setWriteDeadline(t time.Time) {
	c := st.c
	c.mu.Lock()
	if st.writeTimer != nil {
		st.writeTimer.Stop()
	}
	if t.IsZero() || st.reset || st.localClosed {
		c.mu.Unlock()
		return
	}
	d := time.Until(t)
	if d > 0 {
		if st.writeTimer == nil {
			st.writeTimer = time.AfterFunc(d, st.writeTimeout)
		} else {
			st.writeTimer.Reset(d)
		}
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	st.writeTimeout()
}

func (st *stream) writeTimeout() {
	st.end(http2.ErrCodeInternal, errWriteTimeout, true)
}

// onHeaders opens a stream, or takes a request's trailers.
func (c *conn) onHeaders(f *http2.MetaHeadersFrame) error {
	id := f.StreamID
	if id%2 == 0 {
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	if f.HasPriority() && f.Priority.StreamDep == id {
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol}
	}
	c.mu.Lock()
	st := c.streams[id]
	if st != nil {
		remoteClosed := st.remoteClosed
		c.mu.Unlock()
		if remoteClosed {
			return http2.StreamError{StreamID: id, Code: http2.ErrCodeStreamClosed}
		}
		return c.onTrailers(st, f)
	}
	if id <= c.maxStreamID {
		closed, resetSent := c.closedLocked(id)
		c.mu.Unlock()
		switch {
		case resetSent:
			// Trailers the client sent before our RST_STREAM reached it (RFC 9113, 5.1: frames
			// on a stream the endpoint reset are ignored). Their block was decoded: the
			// connection's header table is as the client's. Counted as frames that carry
			// nothing: a client could mark an id so (a PRIORITY on itself) and send on it.
			return c.junkFrame()
		case closed:
			// HEADERS on a stream that was open and has closed (RFC 9113, 5.1, "closed"): the
			// same error whether the answer closed it before this frame was read or after.
			return http2.ConnectionError(http2.ErrCodeStreamClosed)
		}
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	if c.goingAway {
		// Streams after the GOAWAY's last are not served; the client may retry them. What
		// else it sends on them before it reads the GOAWAY is ignored (RFC 9113, 6.8).
		c.maxUnserved = max(c.maxUnserved, id)
		c.mu.Unlock()
		return nil
	}
	c.maxStreamID = id
	if c.handlers >= maxHandlers {
		c.mu.Unlock()
		if err := c.junkFrame(); err != nil {
			return err
		}
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeRefusedStream}
	}
	c.mu.Unlock()

	st = &stream{c: c, id: id, declared: -1}
	req, err := c.newRequest(st, f)
	if err != nil {
		return err
	}
	w := newResponseWriter(st, req)
	handler := c.handler.ServeHTTP
	if f.Truncated {
		handler = headersTooLarge
	}

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	st.sendWindow = c.peerWindow
	st.recvAvail = streamWindow
	st.remoteClosed = f.StreamEnded()
	c.streams[id] = st
	c.handlers++
	if c.handlers == 1 {
		if c.idleTimer != nil {
			c.idleTimer.Stop()
		}
		c.setState(http.StateActive)
	}
	c.mu.Unlock()
	go c.runHandler(st, w, req, handler)
	return nil
}

func headersTooLarge(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "431 Request Header Fields Too Large", http.StatusRequestHeaderFieldsTooLarge)
}

// onTrailers takes the trailers that end a request's body.
func (c *conn) onTrailers(st *stream, f *http2.MetaHeadersFrame) error {
	if !f.StreamEnded() || len(f.PseudoFields()) > 0 || f.Truncated {
		return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol}
	}
	if st.body != nil {
		if err := st.body.setTrailers(f.RegularFields()); err != nil {
			return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol}
		}
	}
	return c.endOfRequest(st)
}

// endOfRequest takes the client's END_STREAM.
func (c *conn) endOfRequest(st *stream) error {
	if st.declared >= 0 && st.received != st.declared {
		return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol}
	}
	c.mu.Lock()
	st.remoteClosed = true
	if st.localClosed {
		c.forgetLocked(st)
	}
	c.mu.Unlock()
	st.body.fail(io.EOF)
	return nil
}

func (c *conn) onData(f *http2.DataFrame) error {
	id := f.StreamID
	n := int64(f.Length)
	data := f.Data()
	c.mu.Lock()
	if id%2 == 0 || c.idleLocked(id) {
		c.mu.Unlock()
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	if n > c.recvAvail {
		c.mu.Unlock()
		return http2.ConnectionError(http2.ErrCodeFlowControl)
	}
	c.recvAvail -= n
	st := c.streams[id]
	if st == nil || st.remoteClosed || st.reset {
		_, resetSent := c.closedLocked(id)
		unserved := id > c.maxStreamID
		c.mu.Unlock()
		c.giveBack(nil, int(n))
		if st == nil && (resetSent || unserved) {
			// Sent before our RST_STREAM or GOAWAY reached the client: ignored (RFC 9113, 5.1
			// and 6.8), its length given back to the connection's window, and counted as a
			// frame that carries nothing (see onHeaders).
			return c.junkFrame()
		}
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeStreamClosed}
	}
	if n > st.recvAvail {
		c.mu.Unlock()
		c.giveBack(nil, int(n))
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeFlowControl}
	}
	st.recvAvail -= n
	c.mu.Unlock()

	st.received += int64(len(data))
	if st.declared >= 0 && st.received > st.declared {
		c.giveBack(nil, int(n))
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol}
	}
	// Padding counts against the windows; it is given back at once. Data the body no longer
	// takes (the handler closed it, or it failed) gives back the connection's window only:
	// the stream is not to send more.
	if pad := n - int64(len(data)); pad > 0 {
		c.giveBack(st, int(pad))
	}
	if len(data) > 0 && (st.body == nil || !st.body.write(data)) {
		c.giveBack(nil, len(data))
	}
	if len(data) == 0 && !f.StreamEnded() {
		if err := c.junkFrame(); err != nil {
			return err
		}
	}
	if f.StreamEnded() {
		return c.endOfRequest(st)
	}
	return nil
}

// runHandler runs the handler of a stream in the stream's own goroutine, then ends the
// response: what is buffered, trailers, END_STREAM.
func (c *conn) runHandler(st *stream, w *responseWriter, req *http.Request, handler func(http.ResponseWriter, *http.Request)) {
	panicked := true
	defer func() {
		if panicked {
			if e := recover(); e != nil && e != http.ErrAbortHandler {
				const size = 64 << 10
				buf := make([]byte, size)
				buf = buf[:runtime.Stack(buf, false)]
				c.logf("http2: panic serving %v: %v\n%s", c.remoteAddr, e, buf)
			}
			w.release()
			st.end(http2.ErrCodeInternal, fmt.Errorf("h2c: handler panicked"), true)
		} else {
			w.finish()
		}
		st.cancel(context.Canceled)
		c.handlerDone(st)
	}()
	handler(w, req)
	panicked = false
}

// countOut counts st's handler out of those running, once; c.mu held. The response's last
// write does it as soon as its frames went out, under the write lock (the client may close
// the connection as soon as it has them, and the connection is idle from then on);
// handlerDone when that write did not happen.
func (c *conn) countOut(st *stream) {
	if st.countedOut {
		return
	}
	st.countedOut = true
	c.handlers--
	if c.handlers == 0 {
		c.setState(http.StateIdle)
		c.armIdle()
	}
}

// handlerDone counts a handler out; the last one of a connection going away closes it.
func (c *conn) handlerDone(st *stream) {
	c.mu.Lock()
	if st.writeTimer != nil {
		st.writeTimer.Stop()
	}
	c.countOut(st)
	drain := c.handlers == 0 && c.goAwaySent
	c.mu.Unlock()
	if st.body != nil {
		// What the handler left unread gives its window back to the connection.
		st.body.Close()
	}
	if drain {
		c.startDrain()
	}
}

// forgetLocked takes a stream that ended out of c.streams, remembering it among the last
// closed; c.mu held.
func (c *conn) forgetLocked(st *stream) {
	delete(c.streams, st.id)
	c.rememberLocked(st.id, st.resetSent)
}

// resetMark marks an id in c.recent whose stream the server reset (stream ids have 31 bits).
const resetMark = 1 << 31

// rememberLocked puts stream id among the last closed, and whether the server sent it
// RST_STREAM: frames of such a stream that were in flight when the client got it are ignored
// for as long as it is among the last (RFC 9113, 5.1 lets that time be limited), errors after
// that. c.mu held.
func (c *conn) rememberLocked(id uint32, resetSent bool) {
	if resetSent {
		id |= resetMark
	}
	c.recent[c.recentNext%uint8(len(c.recent))] = id
	c.recentNext++
}

// idleLocked reports whether the client has not opened stream id (RFC 9113, 5.1, "idle"):
// it is past the last it opened, served or not; c.mu held.
func (c *conn) idleLocked(id uint32) bool {
	return id > c.maxStreamID && id > c.maxUnserved
}

// closedLocked reports whether stream id is among the last closed, and whether the server
// reset it; c.mu held.
func (c *conn) closedLocked(id uint32) (closed, resetSent bool) {
	for _, r := range c.recent {
		if r&^resetMark == id {
			closed = true
			resetSent = resetSent || r&resetMark != 0
		}
	}
	return closed, resetSent
}
