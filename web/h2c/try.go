package h2c

import (
	"io"

	"golang.org/x/net/http2"
)

// Writing without waiting. A server that delivers one event to thousands of streams can write
// for all of them from a few goroutines, rather than wake each stream's own, as long as no
// write waits: one that would (the client's window is shut, its socket is full, another
// write holds the connection) is left to the stream's goroutine, so that a slow client still
// holds up no one else. HoldWrites, Buffered, TryFlush and TryWrite are that, for the handler
// that finds them behind its ResponseWriter (through Unwrap).

// NowWriter is what a handler finds behind its ResponseWriter (through Unwrap) on an h2c
// connection, to write without waiting: the response itself.
type NowWriter interface {
	io.Writer
	WritesNow() bool
	HoldWrites(on bool)
	Buffered() int
	TryFlush() (bool, error)
	TryWrite(p []byte) (taken, flushed bool, err error)
	FlushError() error
}

// WritesNow reports whether TryFlush and TryWrite can write: the connection is a socket that
// can be written to without waiting.
func (w *responseWriter) WritesNow() bool { return w.c.hasFD }

// HoldWrites makes the writes that follow (on) only gather in the response's buffer,
// whatever its size, until TryFlush or a Flush sends them; off, a write past the buffer's
// size writes at once again. The caller bounds what it gathers with Buffered.
func (w *responseWriter) HoldWrites(on bool) { w.holdWrites = on }

// Buffered is how many bytes of body the response holds, not yet written.
func (w *responseWriter) Buffered() int {
	if w.buf == nil {
		return 0
	}
	return len(*w.buf)
}

// TryFlush writes what the response holds if that can be done without waiting: the
// response's header went out already, the stream's and the connection's send windows have
// room for all of it, no other write holds the connection and nothing of an earlier one
// waits. It reports whether all of it reached the socket. When not, either nothing was
// written (it stays in the response) or the socket took the frames in part and the
// connection keeps their rest, which its next write sends first: a Flush, which waits,
// writes both.
func (w *responseWriter) TryFlush() (bool, error) {
	var p []byte
	if w.buf != nil {
		p = *w.buf
	}
	wrote, err := w.tryWrite(p)
	if wrote != notBegun {
		w.release()
	}
	return wrote == wroteAll, err
}

// TryWrite is a Write and a TryFlush in one, for a response that holds nothing: p goes to the
// socket as TryFlush would send it, without being copied to the response's buffer first.
// taken reports whether it went (all of it, or in part as TryFlush's frames do); when not,
// nothing of p was written, and the caller writes it as any other write.
func (w *responseWriter) TryWrite(p []byte) (taken, flushed bool, err error) {
	if w.Buffered() > 0 || (w.declaredLen >= 0 && w.wrote+int64(len(p)) > w.declaredLen) {
		return false, false, nil
	}
	wrote, err := w.tryWrite(p)
	if wrote == notBegun {
		return false, false, err
	}
	w.wrote += int64(len(p))
	return true, wrote == wroteAll, err
}

// tryWrite writes p as the body's next DATA frames in one write that does not wait, or not
// at all (notBegun).
func (w *responseWriter) tryWrite(p []byte) (tryOutcome, error) {
	if w.handlerDone {
		return notBegun, errStreamClosed
	}
	if w.err != nil {
		return notBegun, w.err
	}
	n := len(p)
	if n == 0 {
		return wroteAll, nil
	}
	c, st := w.c, w.st
	if !c.hasFD || !w.sentHeader || w.isHead || !w.bodyAllowed || n > maxWriteChunk {
		return notBegun, nil
	}
	got, err := c.reserve(st, n, true)
	if err != nil {
		w.err = err
		return notBegun, err
	}
	if got < n {
		if got > 0 {
			c.unreserve(st, got)
		}
		return notBegun, nil
	}
	if !c.wmu.TryLock() {
		c.unreserve(st, n)
		return notBegun, nil
	}
	wrote, err := c.tryWriteDataLocked(st, p)
	if wrote == notBegun {
		c.unreserve(st, n)
	}
	if err != nil {
		w.err = err
	}
	return wrote, err
}

type tryOutcome int

const (
	notBegun tryOutcome = iota
	wrotePart
	wroteAll
)

// tryWriteDataLocked writes p as DATA frames of st in one write that does not wait, and
// lets go of wmu, which the caller took. What the socket did not take of them waits in
// c.unsent.
func (c *conn) tryWriteDataLocked(st *stream, p []byte) (tryOutcome, error) {
	defer c.wmu.Unlock()
	if c.werr != nil {
		return notBegun, c.werr
	}
	if len(c.unsent) > 0 {
		return notBegun, nil
	}
	max, err := c.writeState(st)
	if err != nil {
		return notBegun, err
	}
	// A delivery's frame is put together on the stack; a larger write's in a pooled buffer.
	var small [512]byte
	var b []byte
	if len(p)+frameHeaderLen <= len(small) {
		b = appendData(small[:0], st.id, p, max)
	} else {
		o := getOut()
		defer putOut(o)
		o.b = appendData(o.b, st.id, p, max)
		b = o.b
	}
	// No deadline: this write never waits. The socket's write deadline is the writes' that
	// may wait (writeLocked moves it), and a client that stops reading meets it there, once
	// its socket is full and this write took nothing.
	n, err := c.writeNow(b)
	switch {
	case err != nil:
		c.werr = err
		c.nc.Close()
		return notBegun, err
	case n == 0:
		return notBegun, nil
	case n < len(b):
		c.unsent = append([]byte(nil), b[n:]...)
		c.hasUnsent.Store(true)
		return wrotePart, nil
	}
	return wroteAll, nil
}

// frameHeaderLen is the length of an HTTP/2 frame's header (RFC 9113, section 4.1).
const frameHeaderLen = 9

// appendData appends p to b as DATA frames of stream id, none longer than max, without flags
// or padding (RFC 9113, sections 4.1 and 6.1): what http2.Framer's WriteData writes, without
// the Framer and its buffer, which a write that does not wait has no other use for.
func appendData(b []byte, id uint32, p []byte, max int) []byte {
	for len(p) > 0 {
		n := min(len(p), max)
		b = append(b, byte(n>>16), byte(n>>8), byte(n), byte(http2.FrameData), 0,
			byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
		b = append(b, p[:n]...)
		p = p[n:]
	}
	return b
}

// writeState is the client's frame size, and why st takes no more writes (nil while it does).
func (c *conn) writeState(st *stream) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerMaxFrame, st.writeErrLocked()
}
