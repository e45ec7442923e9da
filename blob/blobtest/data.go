package blobtest

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"runtime"
)

// patternLen is prime, so the pattern never lines up with power-of-two buffers and a
// byte read from the wrong offset shows.
const patternLen = 65521

// pattern is a reader of n bytes of a repeating random block: large objects without
// holding them in memory, and with every byte at a known place.
type pattern struct {
	block []byte
	off   int64
	n     int64
}

func newPattern(n int64) *pattern {
	block := make([]byte, patternLen)
	if _, err := rand.Read(block); err != nil {
		panic(err)
	}
	return &pattern{block: block, n: n}
}

// Read implements io.Reader.
func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if rest := p.n - p.off; int64(len(b)) > rest {
		b = b[:rest]
	}
	total := 0
	for len(b) > 0 {
		c := copy(b, p.block[p.off%patternLen:])
		b = b[c:]
		p.off += int64(c)
		total += c
	}
	return total, nil
}

// all returns the whole content, for small objects.
func (p *pattern) all() []byte {
	b, err := io.ReadAll(&pattern{block: p.block, n: p.n})
	if err != nil {
		panic(err)
	}
	return b
}

// fresh returns a reader of the same content from the start.
func (p *pattern) fresh() io.Reader { return &pattern{block: p.block, n: p.n} }

// errReader is what failingReader fails with.
var errReader = errors.New("the client went away")

// failingReader gives n bytes of r and then fails, as an upload cut off midway.
func failingReader(r io.Reader, n int64) io.Reader {
	return io.MultiReader(io.LimitReader(r, n), errorReader{})
}

type errorReader struct{}

func (errorReader) Read([]byte) (int, error) { return 0, errReader }

// cancellingReader gives n bytes of r and then cancels the upload's context, as a
// request whose client disconnected; it then blocks reading until the context is done.
type cancellingReader struct {
	r      io.Reader
	n      int64
	ctx    context.Context
	cancel context.CancelFunc
}

func (c *cancellingReader) Read(b []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
		<-c.ctx.Done()
		return 0, c.ctx.Err()
	}
	if int64(len(b)) > c.n {
		b = b[:c.n]
	}
	k, err := c.r.Read(b)
	c.n -= int64(k)
	return k, err
}

// Allocated runs f and returns how many bytes the process allocated meanwhile: an upper
// bound on how far the heap can have grown, and, unlike a sampled peak, not at the mercy
// of when the collector runs. Something that streams allocates the same whatever the
// size of what it streams. Nothing else in the process should be busy meanwhile.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
