package fanout

import (
	"sync"
	"sync/atomic"

	svcv1 "hearth/proto/svc/v1"
)

// Frame is one event as the streams send it. Every stream that receives the event shares the
// same Frame, so each wire format is encoded once, by whichever stream needs it first.
type Frame struct {
	Event *svcv1.Event

	// enc is read without a lock: every stream's writer reads it for each event it sends, and a
	// mutex there would be one line of memory written by all of them in turn. mu orders the
	// encodings, each stored as a new slice.
	enc atomic.Pointer[[]encoding]
	mu  sync.Mutex
}

type encoding struct {
	format string
	bytes  []byte
}

// NewFrame makes the Frame of ev, which must not change from now on.
func NewFrame(ev *svcv1.Event) *Frame { return &Frame{Event: ev} }

// Encoded returns the event encoded in format, encoding it with marshal the first time. The
// bytes are shared: callers must not change them.
func (f *Frame) Encoded(format string, marshal func(*svcv1.Event) ([]byte, error)) ([]byte, error) {
	if b, ok := f.cached(format); ok {
		return b, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.cached(format); ok {
		return b, nil
	}
	b, err := marshal(f.Event)
	if err != nil {
		return nil, err
	}
	var encs []encoding
	if p := f.enc.Load(); p != nil {
		encs = *p
	}
	encs = append(encs[:len(encs):len(encs)], encoding{format, b})
	f.enc.Store(&encs)
	return b, nil
}

func (f *Frame) cached(format string) ([]byte, bool) {
	if p := f.enc.Load(); p != nil {
		for _, e := range *p {
			if e.format == format {
				return e.bytes, true
			}
		}
	}
	return nil, false
}
