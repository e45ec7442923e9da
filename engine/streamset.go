package engine

import (
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

// streamSet knows every open Subscribe stream by member, oldest first, so that a change can end
// a member's streams at once (DeleteBot, and RotateBotToken: a stream opened with the old token
// must not outlive it), and so that a member's streams are capped (MaxStreamsPerMember).
//
// It ends a stream by stopping it (fanout.Stream.Stop): nothing more is queued for it once
// that returns, before whatever the caller publishes next (a bot's new token).
type streamSet struct {
	mu      sync.Mutex
	members map[string][]*stream
}

// track registers s as a stream of member: it is stopped with a cause when end is called for
// the member, or with ErrTooManyStreams when it is the member's oldest of more than
// MaxStreamsPerMember. Call untrack when the stream ends.
func (set *streamSet) track(member string, s *stream) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.members == nil {
		set.members = map[string][]*stream{}
	}
	list := append(set.members[member], s)
	if len(list) > MaxStreamsPerMember {
		list[0].Stop(ErrTooManyStreams)
		list = slices.Delete(list, 0, 1)
	}
	set.members[member] = list
}

// untrack forgets s, a stream of member that ended.
func (set *streamSet) untrack(member string, s *stream) {
	set.mu.Lock()
	defer set.mu.Unlock()
	list := set.members[member]
	if i := slices.Index(list, s); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(set.members, member)
	} else {
		set.members[member] = list
	}
}

// end stops every open stream of member with cause.
func (set *streamSet) end(member string, cause error) {
	set.mu.Lock()
	defer set.mu.Unlock()
	for _, s := range set.members[member] {
		s.Stop(cause)
	}
}
