package h2c

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2/hpack"
)

var errBodyClosed = errors.New("h2c: body closed by handler")

// errReadTimeout is what a body's reads return once its read deadline has passed.
var errReadTimeout = &deadlineError{"h2c: read deadline exceeded"}

// body is a request's body: what the client sent that the handler has not read yet, at most
// the stream's receive window. Its buffer is let go once read, so an idle stream keeps none.
type body struct {
	st     *stream
	mu     sync.Mutex
	cond   sync.Cond
	data   []byte
	r      int
	err    error // io.EOF at the end of the stream, or why it failed; after data
	closed bool  // the handler closed it
	timer  *time.Timer
	// trailer is the request's Trailer: the names it declared, filled in by the trailers
	// before the body ends.
	trailer http.Header
}

func newBody(st *stream) *body {
	b := &body{st: st}
	b.cond.L = &b.mu
	return b
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errBodyClosed
	}
	for b.r == len(b.data) && b.err == nil {
		b.cond.Wait()
		if b.closed {
			b.mu.Unlock()
			return 0, errBodyClosed
		}
	}
	if b.r < len(b.data) {
		n := copy(p, b.data[b.r:])
		b.r += n
		if b.r == len(b.data) {
			b.r = 0
			if b.err != nil {
				b.data = nil
			} else {
				b.data = b.data[:0]
			}
		}
		b.mu.Unlock()
		b.st.c.giveBack(b.st, n)
		return n, nil
	}
	err := b.err
	b.data = nil
	b.mu.Unlock()
	return 0, err
}

// Close drops what is buffered; what the client still sends is dropped as it comes.
func (b *body) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	dropped := len(b.data) - b.r
	b.data, b.r = nil, 0
	if b.timer != nil {
		b.timer.Stop()
	}
	b.cond.Broadcast()
	b.mu.Unlock()
	b.st.c.giveBack(nil, dropped)
	return nil
}

// write appends data the client sent; false when the body takes no more (closed or failed),
// and the caller gives the window back.
func (b *body) write(data []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.err != nil {
		return false
	}
	if b.r > 0 && b.r >= len(b.data)/2 {
		n := copy(b.data, b.data[b.r:])
		b.data, b.r = b.data[:n], 0
	}
	b.data = append(b.data, data...)
	b.cond.Broadcast()
	return true
}

// fail ends the body with err after what is buffered; an ended body keeps its first end.
func (b *body) fail(err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	b.cond.Broadcast()
	b.mu.Unlock()
}

// setDeadline makes reads fail with an error wrapping os.ErrDeadlineExceeded once t passes
// (as net/http's HTTP/2 server does); the zero time removes the deadline.
func (b *body) setDeadline(t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	if t.IsZero() || b.err != nil || b.closed {
		return
	}
	d := time.Until(t)
	if d <= 0 {
		b.err = errReadTimeout
		b.cond.Broadcast()
		return
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(d, func() { b.fail(errReadTimeout) })
		return
	}
	b.timer.Reset(d)
}

// setTrailers fills the request's declared Trailer from the trailers that end its body, as
// net/http's HTTP/2 server does (a request that declared none keeps none).
func (b *body) setTrailers(fields []hpack.HeaderField) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.trailer == nil {
		return nil
	}
	for _, hf := range fields {
		key := http.CanonicalHeaderKey(hf.Name)
		if !httpguts.ValidTrailerHeader(key) {
			return errors.New("h2c: invalid trailer " + key)
		}
		b.trailer[key] = append(b.trailer[key], hf.Value)
	}
	return nil
}

var _ io.ReadCloser = (*body)(nil)
