package h2c

import "io"

// Writing without waiting. A server that delivers one event to thousands of streams can write
// for all of them from a few goroutines, rather than wake each stream's own, as long as no
// write waits: one that would (the client's window is shut, its socket is full, another
// write holds the connection) is left to the stream's goroutine, so that a slow client still
// holds up no one else. HoldWrites, Buffered and TryFlush are that, for the handler that
// finds them behind its ResponseWriter (through Unwrap).

// NowWriter is what a handler finds behind its ResponseWriter (through Unwrap) on an h2c
// connection, to write without waiting: the response itself.
type NowWriter interface {
	io.Writer
	WritesNow() bool
	HoldWrites(on bool)
	Buffered() int
	TryFlush() (bool, error)
	FlushError() error
}

// WritesNow reports whether TryFlush can write: the connection is a socket that can be
// written to without waiting.
func (w *responseWriter) WritesNow() bool { return w.c.raw != nil }

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
	if w.handlerDone {
		return false, errStreamClosed
	}
	if w.err != nil {
		return false, w.err
	}
	n := w.Buffered()
	if n == 0 {
		return true, nil
	}
	c, st := w.c, w.st
	if c.raw == nil || !w.sentHeader || w.isHead || !w.bodyAllowed || n > maxWriteChunk {
		return false, nil
	}
	got, err := c.reserve(st, n, true)
	if err != nil {
		w.err = err
		return false, err
	}
	if got < n {
		if got > 0 {
			c.unreserve(st, got)
		}
		return false, nil
	}
	if !c.wmu.TryLock() {
		c.unreserve(st, n)
		return false, nil
	}
	wrote, err := c.tryWriteDataLocked(st, *w.buf)
	if wrote == notBegun {
		c.unreserve(st, n)
	} else {
		w.release()
	}
	if err != nil {
		w.err = err
		return false, err
	}
	return wrote == wroteAll, nil
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
	o := getOut()
	defer putOut(o)
	for len(p) > 0 {
		chunk := min(len(p), max)
		if err := o.fr.WriteData(st.id, false, p[:chunk]); err != nil {
			return notBegun, err
		}
		p = p[chunk:]
	}
	// No deadline to move: this write never waits. Once the deadline the last write that may
	// wait set has passed, the socket takes nothing here, and the stream's goroutine flushes
	// with a write that moves it (once per writeStall at most for a connection only written
	// this way), where reading the clock here cost a few percent of each delivery.
	n, err := c.writeNow(o.b)
	switch {
	case err != nil:
		c.werr = err
		c.nc.Close()
		return notBegun, err
	case n == 0:
		return notBegun, nil
	case n < len(o.b):
		c.unsent = append([]byte(nil), o.b[n:]...)
		c.hasUnsent.Store(true)
		return wrotePart, nil
	}
	return wroteAll, nil
}

// writeState is the client's frame size, and why st takes no more writes (nil while it does).
func (c *conn) writeState(st *stream) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerMaxFrame, st.writeErrLocked()
}
