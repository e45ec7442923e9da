//go:build unix

package h2c

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// socketOf is the descriptor of nc for writes that do not wait: only the net package's
// sockets, whose descriptors are non-blocking (writeFD counts on it). nil for anything else.
func socketOf(nc net.Conn) syscall.RawConn {
	var sc syscall.Conn
	switch nc := nc.(type) {
	case *net.TCPConn:
		sc = nc
	case *net.UnixConn:
		sc = nc
	default:
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// nowWrite is writeNow's write, in the connection so that the function the descriptor is
// written from is made once, not once per write (a closure over b per write was an
// allocation per delivery); wmu held.
type nowWrite struct {
	fn  func(fd uintptr) bool
	b   []byte
	n   int
	err error
}

// writeNow writes what the socket takes of b at once: 0 when it takes nothing (its buffer is
// full) or when the connection's write deadline has passed (the next write that may wait
// moves it).
func (c *conn) writeNow(b []byte) (int, error) {
	w := &c.now
	if w.fn == nil {
		w.fn = w.write
	}
	w.b = b
	err := c.raw.Write(w.fn)
	n, werr := w.n, w.err
	w.b, w.n, w.err = nil, 0, nil
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, err
	case werr == syscall.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return n, nil
}

func (w *nowWrite) write(fd uintptr) bool {
	for {
		w.n, w.err = writeFD(fd, w.b)
		if w.err != syscall.EINTR {
			return true
		}
	}
}
