package engine

import (
	"context"
	"sync"
)

// streamSet knows every open Subscribe stream by member, so that a change can end a member's
// streams at once: DeleteBot, and RotateBotToken (a stream opened with the old token must not
// outlive it).
type streamSet struct {
	mu      sync.Mutex
	members map[string]map[*openStream]struct{}
}

type openStream struct{ cancel context.CancelCauseFunc }

// track registers a stream of member; the context it returns ends with cause when end is
// called for the member. Call untrack when the stream ends.
func (s *streamSet) track(ctx context.Context, member string) (_ context.Context, untrack func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	o := &openStream{cancel: cancel}
	s.mu.Lock()
	if s.members == nil {
		s.members = map[string]map[*openStream]struct{}{}
	}
	set := s.members[member]
	if set == nil {
		set = map[*openStream]struct{}{}
		s.members[member] = set
	}
	set[o] = struct{}{}
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		// The set holding o is never dropped while o is in it.
		cur := s.members[member]
		delete(cur, o)
		if len(cur) == 0 {
			delete(s.members, member)
		}
		s.mu.Unlock()
		cancel(nil)
	}
}

// end ends every open stream of member with cause.
func (s *streamSet) end(member string, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for o := range s.members[member] {
		o.cancel(cause)
	}
}
