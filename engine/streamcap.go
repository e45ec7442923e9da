package engine

import (
	"context"
	"slices"
	"sync"
)

// MaxStreamsPerMember is how many Subscribe streams one member may have open at once. A client
// needs one (a few, with several tabs or devices); each open stream holds a goroutine, a place
// in the hub and buffers, so one token must not hold thousands.
const MaxStreamsPerMember = 16

// ErrTooManyStreams ends a member's oldest stream when they open one more than
// MaxStreamsPerMember: the newest is the one a client is using; the oldest is most likely a tab
// or device left behind, or a client that did not close what it replaced.
var ErrTooManyStreams = &Error{Code: CodeResourceExhausted, Msg: "too many open streams: a member may have 16 open at once, and this one, the oldest, was closed for a newer one"}

// openStreams are the open Subscribe streams per member, oldest first.
type openStreams struct {
	mu       sync.Mutex
	byMember map[string][]*openStream
}

type openStream struct {
	end context.CancelCauseFunc
}

// open registers a stream of member, which end stops; when the member has more than
// MaxStreamsPerMember open, their oldest is ended with ErrTooManyStreams.
func (o *openStreams) open(member string, end context.CancelCauseFunc) *openStream {
	s := &openStream{end: end}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byMember == nil {
		o.byMember = map[string][]*openStream{}
	}
	list := append(o.byMember[member], s)
	if len(list) > MaxStreamsPerMember {
		list[0].end(ErrTooManyStreams)
		list = slices.Delete(list, 0, 1)
	}
	o.byMember[member] = list
	return s
}

// close lets go of a stream (it may have been let go of already, when it was the oldest).
func (o *openStreams) close(member string, s *openStream) {
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.byMember[member]
	if i := slices.Index(list, s); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(o.byMember, member)
	} else {
		o.byMember[member] = list
	}
}
