//go:build !unix

package h2c

import "net"

// Without a descriptor to write to without waiting, TryFlush never writes (conn.hasFD is
// false).
func socketOf(net.Conn) (uintptr, bool) { return 0, false }

func (c *conn) writeNow(b []byte) (int, error) { return 0, nil }

func (c *conn) shutdownSocket() { c.nc.Close() }
