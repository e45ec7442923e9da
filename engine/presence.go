package engine

import (
	"sync"
	"time"

	"hearth/engine/clock"
	svcv1 "hearth/proto/svc/v1"
)

// presence tracks who is online, in memory: ONLINE while at least one Subscribe stream of the
// member is open and they have not set AWAY, AWAY by SetPresence, OFFLINE a grace period after
// their last stream closes (a reconnect within it changes nothing, so clients do not flap).
// Changes go to every member as ephemeral events, published under the lock so that two changes
// of one member reach the hub in the order they happened.
//
// Changes close together are published together: the first after a quiet window at once, the
// ones that follow within presenceWindow of it in one go at the window's end. Every open stream
// wakes for each publish, so when n streams open at once (a restart, a load test) publishing
// each ONLINE on its own costs n²/2 deliveries; coalesced, each stream gets one presence_batch
// per window at most.
type presence struct {
	mu      sync.Mutex
	members map[string]*presenceState
	grace   time.Duration
	clock   clock.Clock
	// publish hands changes to the streams: one event, or several as one presence_batch.
	publish func(*svcv1.Event)
	// pending are the changes waiting for the window's end; flushAt is when it ends (zero when
	// no flush is scheduled); last is when changes were last published.
	pending []*svcv1.PresenceEvent
	flushAt time.Time
	last    time.Time
	pendAt  int64
	// onOpen, when set, hears of every stream opened (the status's active members).
	onOpen func(id string)
}

// presenceWindow is the shortest time between two presence publishes.
const presenceWindow = 50 * time.Millisecond

type presenceState struct {
	streams int
	away    bool
	current svcv1.Presence
	offline clock.Timer // pending OFFLINE after the last stream closed
}

func newPresence(grace time.Duration, c clock.Clock, publish func(*svcv1.Event)) *presence {
	return &presence{members: map[string]*presenceState{}, grace: grace, clock: c, publish: publish}
}

// emit publishes one change, at once or at the end of the current window. Called with p.mu
// held, so that changes reach the hub in the order they happened.
func (p *presence) emit(id string, pr svcv1.Presence) {
	p.pending = append(p.pending, &svcv1.PresenceEvent{MemberId: id, Presence: pr})
	now := p.clock.Now()
	p.pendAt = now.UnixMilli()
	if !p.flushAt.IsZero() {
		return
	}
	if wait := presenceWindow - now.Sub(p.last); wait > 0 {
		p.flushAt = now.Add(wait)
		p.clock.AfterFunc(wait, p.flushLater)
		return
	}
	p.flush()
}

// flush publishes the pending changes: a presence event for one, a presence_batch with the
// latest change per member for more. Called with p.mu held.
func (p *presence) flush() {
	ev := &svcv1.Event{AtMs: p.pendAt}
	if len(p.pending) == 1 {
		ev.Kind = &svcv1.Event_Presence{Presence: p.pending[0]}
	} else {
		ev.Kind = &svcv1.Event_PresenceBatch{PresenceBatch: &svcv1.PresenceBatch{Changes: latestPerMember(p.pending)}}
	}
	p.publish(ev)
	p.pending = nil
	p.last = p.clock.Now()
}

func (p *presence) flushLater() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushAt = time.Time{}
	if len(p.pending) > 0 {
		p.flush()
	}
}

// latestPerMember keeps each member's latest change, in the order of their first.
func latestPerMember(changes []*svcv1.PresenceEvent) []*svcv1.PresenceEvent {
	index := make(map[string]int, len(changes))
	out := make([]*svcv1.PresenceEvent, 0, len(changes))
	for _, c := range changes {
		if i, ok := index[c.GetMemberId()]; ok {
			out[i] = c
			continue
		}
		index[c.GetMemberId()] = len(out)
		out = append(out, c)
	}
	return out
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
	if p.onOpen != nil {
		p.onOpen(id)
	}
	if s.offline != nil {
		s.offline.Stop()
		s.offline = nil
	}
	if p.settle(s) {
		p.emit(id, s.current)
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
	s.offline = p.clock.AfterFunc(p.grace, func() { p.expire(id, s) })
}

// expire turns a member OFFLINE once the grace period passed without a new stream.
func (p *presence) expire(id string, s *presenceState) {
	p.mu.Lock()
	if p.members[id] != s || s.streams > 0 {
		p.mu.Unlock()
		return
	}
	delete(p.members, id)
	p.emit(id, svcv1.Presence_PRESENCE_OFFLINE)
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
		p.emit(id, s.current)
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
