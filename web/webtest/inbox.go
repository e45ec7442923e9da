package webtest

import (
	"errors"
	"sync"
	"time"
)

// Inbox holds what a stream's reader received until the test takes it: a list that grows with
// what a test lets pile up, where a channel would be buffered for the most that any test needs
// (100,000 events were 800 KB a stream, allocated as it opened, and kept after its test ended
// by the testing package's hold on every parallel test's cleanups: over a gigabyte in web's
// tests, which every collection of the test process went through again).
type Inbox[T any] struct {
	mu       sync.Mutex
	received []T
	arrived  chan struct{} // has a value after something is put
}

// NewInbox returns an empty inbox.
func NewInbox[T any]() *Inbox[T] {
	return &Inbox[T]{arrived: make(chan struct{}, 1)}
}

// Put adds v, for the reader.
func (b *Inbox[T]) Put(v T) {
	b.mu.Lock()
	b.received = append(b.received, v)
	b.mu.Unlock()
	select {
	case b.arrived <- struct{}{}:
	default:
	}
}

// Take returns the first thing received that no one took yet, if any.
func (b *Inbox[T]) Take() (T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var zero T
	if len(b.received) == 0 {
		return zero, false
	}
	v := b.received[0]
	b.received[0] = zero
	b.received = b.received[1:]
	return v, true
}

// ErrEnded and ErrNoneInTime are Wait's failures.
var (
	ErrEnded      = errors.New("the stream ended")
	ErrNoneInTime = errors.New("nothing in time")
)

// Wait returns the next thing received, waiting until deadline at most. Once ended is closed,
// what came before is still returned, then ErrEnded.
func (b *Inbox[T]) Wait(ended <-chan struct{}, deadline time.Time) (T, error) {
	timeout := time.NewTimer(time.Until(deadline))
	defer timeout.Stop()
	for {
		if v, ok := b.Take(); ok {
			return v, nil
		}
		select {
		case <-b.arrived:
		case <-ended:
			if v, ok := b.Take(); ok {
				return v, nil
			}
			var zero T
			return zero, ErrEnded
		case <-timeout.C:
			var zero T
			return zero, ErrNoneInTime
		}
	}
}
