//go:build unix

package h2c

import (
	"net"
	"syscall"
)

// socketOf is the descriptor of nc for writes that do not wait: only the net package's
// sockets, whose descriptors are non-blocking (writeFD counts on it). ok is false for
// anything else.
//
// The writes go to the bare descriptor, past the net package's bookkeeping for it (its
// reference count, lock and poll state: ~3% of the server's CPU in the standard run,
// docs/performance.md). That is safe because the connection closes its socket only under its
// write lock, having marked itself closed (conn.close, and the writes that fail), and every
// such write holds that lock and looks first: the descriptor's number cannot be closed, and
// taken by another file, under a write. Server.Close, which must not wait for a writer that
// waits, shuts the socket down instead, which frees no number.
func socketOf(nc net.Conn) (fd uintptr, ok bool) {
	var sc syscall.Conn
	switch nc := nc.(type) {
	case *net.TCPConn:
		sc = nc
	case *net.UnixConn:
		sc = nc
	default:
		return 0, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	if err := raw.Control(func(d uintptr) { fd = d }); err != nil {
		return 0, false
	}
	return fd, true
}

// writeNow writes what the socket takes of b at once: 0 when it takes nothing (its buffer is
// full); wmu held.
func (c *conn) writeNow(b []byte) (int, error) {
	if c.closed {
		return 0, errClientDisconnected
	}
	for {
		n, err := writeFD(c.fd, b)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		}
		return 0, err
	}
}

// shutdownSocket ends the connection's traffic both ways without closing the descriptor:
// the reader meets the end of its input and closes the connection, a writer waiting on a full
// socket fails at once.
func (c *conn) shutdownSocket() {
	raw, err := c.nc.(syscall.Conn).SyscallConn()
	var shutErr error
	if err == nil {
		err = raw.Control(func(fd uintptr) { shutErr = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
	}
	if err != nil || shutErr != nil {
		c.nc.Close()
	}
}
