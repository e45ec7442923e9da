package engine

import (
	"sync"

	"hearth/engine/fanout"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Committed events (and ephemeral ones: typing, presence) reach the open streams through
// package fanout: the hub's ring, the followers, the deliverers and each stream's queue. The
// engine keeps what fanout leaves to it: what an event is (Delivery), who may see it (the
// follower's audience, follower.go), and the order of publishes against the Snapshot each is
// judged by (publisher).

// Frame is one event as the streams send it, its wire encodings computed once for all of them.
type Frame = fanout.Frame

func newFrame(ev *svcv1.Event) *Frame { return fanout.NewFrame(ev) }

// Delivery is one event as the hub and the followers hand it over.
type Delivery struct {
	// Frame is the event, with its wire encodings computed once for every stream.
	Frame *Frame
	// Audience is who may receive it.
	Audience *storepb.Audience
	// Reaction is set on the message_updated of React: the reaction that changed (for the
	// plugins' reaction hook; clients get the message only).
	Reaction *storepb.ReactionChange
	// Snapshot is the community to judge the event against: as of the event's batch for a live
	// event, as it is now for a replayed one (see DECISIONS: recipients are decided at delivery).
	Snapshot *Snapshot
	// channel is the Audience's channel in Snapshot, for a live event to a channel's members
	// or viewers: looked up once as it is published, not once per stream.
	channel *storepb.ChannelRecord
}

// Event is the delivered event. It is shared: never change it.
func (d Delivery) Event() *svcv1.Event { return d.Frame.Event }

// EventFrame is the event's Frame (fanout.Entry).
func (d Delivery) EventFrame() *Frame { return d.Frame }

// VisibleTo reports whether a member may receive the event.
func (d Delivery) VisibleTo(memberID string) bool { return d.Snapshot.receives(memberID, d.Audience) }

// publisher orders what goes into the hub: every entry is published with the Snapshot it is
// judged against, and a follower starts at a seq and a Snapshot that match its place in the
// ring. Its lock is taken once per publish and once per new follower, never per delivery.
type publisher struct {
	mu  sync.Mutex
	hub *fanout.Hub[Delivery]
	seq int64 // seq of the newest logged event published
	// snap is the newest Snapshot published: ephemeral events are judged against it, and new
	// followers replay with it.
	snap *Snapshot
}

func newPublisher(size int, seq int64, snap *Snapshot) *publisher {
	return &publisher{hub: fanout.NewHub[Delivery](size, ErrClosed), seq: seq, snap: snap}
}

// publish appends a batch's entries, which share its Snapshot.
func (p *publisher) publish(entries []Delivery, snap *Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.appendLocked(entries, snap)
}

func (p *publisher) appendLocked(entries []Delivery, snap *Snapshot) {
	for i := range entries {
		en := &entries[i]
		en.Snapshot = snap
		en.channel = snap.audienceChannel(en.Audience)
		if s := en.Frame.Event.GetSeq(); s > 0 {
			p.seq = s
		}
	}
	p.snap = snap
	p.hub.Publish(entries...)
}

// publishEphemeral adds one event that is not logged (seq 0) against the newest Snapshot,
// read under the same lock that appends: read before it, a commit could publish a newer one
// in between, and the older one would become the newest again, so that new followers judged
// visibility against a community that no longer is.
func (p *publisher) publishEphemeral(ev *svcv1.Event, aud *storepb.Audience) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.appendLocked([]Delivery{{Frame: newFrame(ev), Audience: aud}}, p.snap)
}

// follow starts a follower at the newest seq published: the events up to it are in the
// database, those after it come from the ring. start gets that seq and Snapshot and makes the
// follower, under the lock, so that no publish comes in between.
func (p *publisher) follow(start func(seq int64, snap *Snapshot) *Follower) *Follower {
	p.mu.Lock()
	defer p.mu.Unlock()
	return start(p.seq, p.snap)
}

// newest is the seq and Snapshot of the newest publish.
func (p *publisher) newest() (int64, *Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq, p.snap
}
