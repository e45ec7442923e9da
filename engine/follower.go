package engine

import (
	"hearth/engine/fanout"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// A Follower reads the community's events in seq order from a position on, each exactly once:
// first the logged events after that position, from the database (replay), then the events
// the writer commits from then on, from the hub (package fanout does the reading; the engine
// gives it the replay and the audience). It is what every consumer of the event log shares:
// the Subscribe streams, the plugins (hooks in log order) and the search index.
//
// A follower that falls further behind than the ring holds, or asks for a position the log no
// longer keeps, gets ErrResync: it starts again from a newer position (a client calls
// GetState first). Its methods: Next, Wait, Run, Replaying and Close.
type Follower = fanout.Follower[Delivery]

// ErrResync ends a follower that fell further behind than the event log or the hub's ring
// keeps, or that asked for a position outside the log.
var ErrResync = fanout.ErrResync

// ErrGone ends a follower that follows a member (FollowOptions.Member) once that member is no
// longer in the community.
var ErrGone = fanout.ErrGone

// replayChunk is how many events one read transaction of a replay hands over at most, so that
// a slow consumer never holds a transaction open for long.
const replayChunk = 256

// FollowOptions say where a follower starts and what it hands over.
type FollowOptions struct {
	// AfterSeq is the seq of the last event the consumer has: the follower starts after it.
	AfterSeq int64
	// Member, when set, follows as that member: only the events they may receive, and ErrGone
	// after the last one while they are in the community. Empty: every event.
	Member string
	// LoggedOnly leaves out the ephemeral events (typing, presence, seq 0).
	LoggedOnly bool
}

// Follow starts a follower after opts.AfterSeq. It fails with ErrResync when that position is
// newer than the log or older than what the log keeps. Close it when done.
func (e *Engine) Follow(opts FollowOptions) (*Follower, error) {
	var outside bool
	f := e.pub.follow(func(seq int64, snap *Snapshot) *Follower {
		if opts.AfterSeq > seq || opts.AfterSeq < e.firstKeptSeq()-1 {
			outside = true
			return nil
		}
		r := &replayer{e: e, opts: opts, snap: snap}
		var aud fanout.Audience[Delivery]
		if opts.Member != "" || opts.LoggedOnly {
			aud = &audience{member: opts.Member, loggedOnly: opts.LoggedOnly}
		}
		return fanout.Follow(e.pub.hub, opts.AfterSeq, seq, r.replay, aud)
	})
	if outside {
		return nil, ErrResync
	}
	return f, nil
}

// audience is who a follower hands events to (fanout.Audience): a member, judged against the
// Snapshot each event carries, or everyone; with or without the ephemeral events.
type audience struct {
	member     string
	loggedOnly bool
	// row is the member's active row as of the Snapshots whose membersGen is activeIn: until
	// the members change, it is the row every event is judged with (rows are replaced, never
	// changed), so a delivery costs no lookup of it.
	row      *storepb.MemberRecord
	activeIn uint64
}

// Receives implements fanout.Audience.
func (a *audience) Receives(d *Delivery) (receives, gone bool) {
	if a.loggedOnly && d.Frame.Event.GetSeq() == 0 {
		return false, false
	}
	if a.member == "" {
		return true, false
	}
	if gen := d.Snapshot.membersGen; gen != a.activeIn || a.row == nil {
		if a.row = d.Snapshot.active(a.member); a.row == nil {
			return false, true
		}
		a.activeIn = gen
	}
	return d.Snapshot.receivesAs(a.member, a.row, d.Audience, d.channel), false
}

// replayer reads a follower's logged events from the database, judged against the community
// when the follower started.
type replayer struct {
	e    *Engine
	opts FollowOptions
	snap *Snapshot
}

// replay reads the next chunk of logged events after `after` up to until (fanout.Replay),
// leaving out what the member may not see and events about messages past retention. Seqs are
// consecutive, so a missing one means the pruner deleted it meanwhile: ErrResync.
func (r *replayer) replay(after, until int64, out []Delivery) ([]Delivery, int64, error) {
	cutoff := cutoffMs(r.snap.Settings(), r.e.now())
	err := r.e.db.View(func(rd *store.Reader) error {
		return rd.Events(after, until, func(le *storepb.LoggedEvent) (bool, error) {
			seq := le.GetEvent().GetSeq()
			// Seqs follow each other, but for the one gap a restore leaves (restoreSeqGap), which
			// a follower crosses from the backup's last seq only: one that saw a seq past that,
			// saw the old server's events, not these.
			if seq != after+1 && seq != after+restoreSeqGap && seq-importGap(le) != after+1 {
				return false, ErrResync
			}
			after = seq
			if r.opts.Member != "" && !r.snap.receives(r.opts.Member, le.GetAudience()) {
				return true, nil
			}
			// Messages past retention are gone from replay as from ListMessages.
			if gone, err := eventExpired(rd, le.GetEvent(), cutoff); err != nil || gone {
				return err == nil, err
			}
			// Nor does a replay show the text of a message deleted or edited since.
			if err := redactReplayed(rd, le.GetEvent()); err != nil {
				return false, err
			}
			out = append(out, Delivery{Frame: newFrame(le.GetEvent()), Audience: le.GetAudience(), Reaction: le.GetReaction(), Snapshot: r.snap})
			return len(out) < replayChunk, nil
		})
	})
	if err != nil {
		return out, after, err
	}
	if len(out) < replayChunk && after < until {
		// The log ended before until: pruned under us, or never written.
		return out, after, ErrResync
	}
	return out, after, nil
}

// firstKeptSeq is the seq of the oldest event still in the log (1 while nothing was pruned).
func (e *Engine) firstKeptSeq() int64 {
	if s := e.logStart.Load(); s > 0 {
		return s
	}
	return 1
}
