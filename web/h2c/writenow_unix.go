//go:build unix

package h2c

import (
	"errors"
	"os"
	"syscall"
)

const canWriteNow = true

// writeNow writes what the socket takes of b at once: 0 when it takes nothing (its buffer is
// full) or when the connection's write deadline has passed (the next write that may wait
// moves it).
func (c *conn) writeNow(b []byte) (int, error) {
	var n int
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	})
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
