//go:build !unix

package h2c

// Without a descriptor to write to without waiting, TryFlush never writes (conn.raw is nil).
const canWriteNow = false

type nowWrite struct{}

func (c *conn) writeNow(b []byte) (int, error) { return 0, nil }
