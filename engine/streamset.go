package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// MaxStreamsPerMember is how many Subscribe streams one member may have open at once. A client
// needs one (a few, with several tabs or devices); each open stream holds a goroutine, a place
// in the hub and buffers, so one token must not hold thousands.
const MaxStreamsPerMember = 16

// ErrTooManyStreams ends a member's oldest stream when they open one more than
// MaxStreamsPerMember: the newest is the one a client is using; the oldest is most likely a tab
// or device left behind, or a client that did not close what it replaced.
var ErrTooManyStreams = &Error{Code: CodeResourceExhausted, Msg: "too many open streams: a member may have 16 open at once, and this one, the oldest, was closed for a newer one"}

// streamSet knows every open Subscribe stream by member, oldest first, so that a change can end
// a member's streams at once (DeleteBot, and RotateBotToken: a stream opened with the old token
// must not outlive it), and so that a member's streams are capped (MaxStreamsPerMember).
type streamSet struct {
	mu      sync.Mutex
	members map[string][]*openStream
}

type openStream struct {
	cancel context.CancelCauseFunc
	over   *atomic.Bool
}

// end ends the stream with cause. over is set first, on the caller's goroutine: the
// deliverers read it, and must stop writing for a stream the engine ended (a bot's token
// rotated) before the next publish, not once the context's AfterFunc gets to run.
func (o *openStream) end(cause error) {
	o.over.Store(true)
	o.cancel(cause)
}

// track registers a stream of member; the context it returns ends with a cause when end is
// called for the member, or with ErrTooManyStreams when it is the member's oldest of more than
// MaxStreamsPerMember, and over is set before it does. Call untrack when the stream ends.
func (s *streamSet) track(ctx context.Context, member string, over *atomic.Bool) (_ context.Context, untrack func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	o := &openStream{cancel: cancel, over: over}
	s.mu.Lock()
	if s.members == nil {
		s.members = map[string][]*openStream{}
	}
	list := append(s.members[member], o)
	if len(list) > MaxStreamsPerMember {
		list[0].end(ErrTooManyStreams)
		list = slices.Delete(list, 0, 1)
	}
	s.members[member] = list
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		list := s.members[member]
		if i := slices.Index(list, o); i >= 0 {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(s.members, member)
		} else {
			s.members[member] = list
		}
		s.mu.Unlock()
		cancel(nil)
	}
}

// end ends every open stream of member with cause.
func (s *streamSet) end(member string, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.members[member] {
		o.end(cause)
	}
}
