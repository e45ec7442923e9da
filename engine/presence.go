package engine

import (
	"sync"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// presence tracks who is online, in memory: ONLINE while at least one Subscribe stream of the
// member is open and they have not set AWAY, AWAY by SetPresence, OFFLINE a grace period after
// their last stream closes (a reconnect within it changes nothing, so clients do not flap).
// Changes go to every member as ephemeral events, published under the lock so that two changes
// of one member reach the hub in the order they happened.
type presence struct {
	mu      sync.Mutex
	members map[string]*presenceState
	grace   time.Duration
	publish func(memberID string, p svcv1.Presence)
}

type presenceState struct {
	streams int
	away    bool
	current svcv1.Presence
	offline *time.Timer // pending OFFLINE after the last stream closed
}

func newPresence(grace time.Duration, publish func(string, svcv1.Presence)) *presence {
	return &presence{members: map[string]*presenceState{}, grace: grace, publish: publish}
}

// get is a member's presence; OFFLINE for anyone without a stream.
func (p *presence) get(id string) svcv1.Presence {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.members[id]; s != nil {
		return s.current
	}
	return svcv1.Presence_PRESENCE_OFFLINE
}

// opened counts a new stream.
func (p *presence) opened(id string) {
	p.mu.Lock()
	s := p.members[id]
	if s == nil {
		s = &presenceState{current: svcv1.Presence_PRESENCE_OFFLINE}
		p.members[id] = s
	}
	s.streams++
	if s.offline != nil {
		s.offline.Stop()
		s.offline = nil
	}
	if p.settle(s) {
		p.publish(id, s.current)
	}
	p.mu.Unlock()
}

// closed uncounts a stream; the last one starts the grace period.
func (p *presence) closed(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.members[id]
	if s == nil {
		return
	}
	s.streams--
	if s.streams > 0 {
		return
	}
	s.offline = time.AfterFunc(p.grace, func() { p.expire(id, s) })
}

// expire turns a member OFFLINE once the grace period passed without a new stream.
func (p *presence) expire(id string, s *presenceState) {
	p.mu.Lock()
	if p.members[id] != s || s.streams > 0 {
		p.mu.Unlock()
		return
	}
	delete(p.members, id)
	p.publish(id, svcv1.Presence_PRESENCE_OFFLINE)
	p.mu.Unlock()
}

// set applies SetPresence: AWAY or back to ONLINE. Without an open stream the member stays
// OFFLINE; the choice holds for their next stream.
func (p *presence) set(id string, away bool) {
	p.mu.Lock()
	s := p.members[id]
	if s == nil {
		s = &presenceState{current: svcv1.Presence_PRESENCE_OFFLINE}
		p.members[id] = s
	}
	s.away = away
	if p.settle(s) {
		p.publish(id, s.current)
	}
	p.mu.Unlock()
}

// forget drops a member who left the community; their streams end by themselves.
func (p *presence) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.members[id]; s != nil && s.offline != nil {
		s.offline.Stop()
	}
	delete(p.members, id)
}

// settle recomputes a member's presence from its streams and away flag.
func (p *presence) settle(s *presenceState) bool {
	next := svcv1.Presence_PRESENCE_OFFLINE
	if s.streams > 0 {
		next = svcv1.Presence_PRESENCE_ONLINE
		if s.away {
			next = svcv1.Presence_PRESENCE_AWAY
		}
	}
	if next == s.current {
		return false
	}
	s.current = next
	return true
}
