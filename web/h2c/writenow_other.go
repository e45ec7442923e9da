//go:build !unix

package h2c

import (
	"net"
	"syscall"
)

// Without a descriptor to write to without waiting, TryFlush never writes (conn.raw is nil).
func socketOf(net.Conn) syscall.RawConn { return nil }

type nowWrite struct{}

func (c *conn) writeNow(b []byte) (int, error) { return 0, nil }
