package engine

import (
	"context"
	"errors"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// GetState is the caller's view of the community, consistent with its seq. The small state
// comes from one published Snapshot (which includes exactly the events up to its seq); what
// lives in Badger (last_message_seq, unread and mention counts) is read bounded by that seq, so
// a commit racing the read adds nothing above it. Read positions are rows without a seq of
// their own, so the read transaction must also be of the Snapshot's seq: see stateAttempts.
func (e *Engine) GetState(ctx context.Context, c Caller, _ *svcv1.GetStateRequest) (*svcv1.GetStateResponse, error) {
	for attempt := 1; ; attempt++ {
		out, err := e.state(c, attempt == stateAttempts)
		if err != errStaleSnapshot {
			return out, err
		}
	}
}

// stateAttempts bounds how often GetState tries for a read transaction and a Snapshot of the
// same seq. They differ only when a commit lands between opening the transaction and loading
// the Snapshot, microseconds apart while commits are milliseconds apart, so a second try nearly
// always does. The last try takes what it gets: its read positions may then be a little newer
// than seq, and the read_state events that moved them arrive again on Subscribe, which clients
// apply idempotently.
const stateAttempts = 4

var errStaleSnapshot = errors.New("the read transaction and the Snapshot are of different seqs")

// state is one try of GetState; unless last, it fails with errStaleSnapshot when the read
// transaction is not of the Snapshot's seq.
func (e *Engine) state(c Caller, last bool) (*svcv1.GetStateResponse, error) {
	var out *svcv1.GetStateResponse
	err := e.db.View(func(r *store.Reader) error {
		// Loaded after the transaction began: a Snapshot is published after its commit.
		d := e.snap.Load()
		me, err := d.caller(c)
		if err != nil {
			return err
		}
		seq := d.Seq()
		if !last {
			logged, err := r.LastSeq()
			if err != nil {
				return err
			}
			if logged != seq {
				return errStaleSnapshot
			}
		}
		// The retention of this Snapshot, like everything else in the answer.
		cutoff := cutoffMs(d.Settings(), e.now())
		out = &svcv1.GetStateResponse{
			Me:               e.memberView(me.GetMember()),
			Members:          e.memberViews(d),
			Roles:            d.Roles(),
			ChannelMode:      d.Settings().GetChannelMode(),
			MutedMemberIds:   d.mutedIDs(c.ID),
			BlockedMemberIds: d.blockedIDs(c.ID),
			Seq:              seq,
		}
		if out.OpenReports, err = openReports(r, d, me); err != nil {
			return err
		}
		out.VoiceStates, out.VoiceVersion = e.voiceStates(d, c.ID)
		for _, rec := range d.sidebar(c.ID) {
			ch, err := e.channelView(r, rec, seq)
			if err != nil {
				return err
			}
			rs, err := readState(r, d, c.ID, rec, seq, cutoff)
			if err != nil {
				return err
			}
			out.Channels = append(out.Channels, ch)
			out.ReadStates = append(out.ReadStates, rs)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// channelView is a channel as the API shows it: the stored row plus its last_message_seq as of
// seq (messages past retention left out).
func (e *Engine) channelView(r *store.Reader, rec *storepb.ChannelRecord, seq int64) (*svcv1.Channel, error) {
	ch := proto.Clone(rec.GetChannel()).(*svcv1.Channel)
	last, err := r.LastKeptMessageSeq(ch.GetId(), seq, e.readCutoff())
	if err != nil {
		return nil, err
	}
	ch.LastMessageSeq = last
	return ch, nil
}

// readState computes a member's read state in a channel as of seq: unread_count counts the
// top-level messages after last_read_seq that are not deleted, not the member's own and not from
// members they muted or blocked; mention_count counts, in the same window and thread replies
// included, those that mention the member (in a DM, every message from someone else). Messages
// past retention (created before cutoff, or in a thread whose root is) count for nothing.
func readState(r *store.Reader, d *Snapshot, memberID string, rec *storepb.ChannelRecord, seq, cutoff int64) (*svcv1.ReadState, error) {
	chID := rec.GetChannel().GetId()
	last, err := r.ReadState(memberID, chID)
	if err != nil {
		return nil, err
	}
	rs := &svcv1.ReadState{ChannelId: chID, LastReadSeq: last}
	from := max(last, importedThrough(rec))
	if cutoff > 0 {
		// Skip the old messages the purge has not deleted yet without reading them.
		kept, err := r.FirstKeptEntry(chID, cutoff)
		if err != nil || kept == 0 {
			return rs, err
		}
		from = max(from, kept-1)
	}
	dm := rec.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM
	err = r.Entries(chID, from, seq, func(at int64, en *storepb.MessageEntry) error {
		if store.Expired(en, cutoff) || !counts(d, memberID, en, seq) {
			return nil
		}
		if !en.GetThreadReply() {
			rs.UnreadCount++
		}
		mentioned, err := countsAsMention(r, chID, at, memberID, en, dm)
		if err != nil {
			return err
		}
		if mentioned {
			rs.MentionCount++
		}
		return nil
	})
	return rs, err
}

// countsAsMention reports whether a message that counts for a member (counts) mentions them:
// the one rule for the mention count and for notifications (notices.go). In a DM every message
// does; elsewhere <@id>, a reply to them and group mentions (store.Mentions; groupmentions.go).
// createdSeq is the message's created_seq, its place in the channel's log.
func countsAsMention(r *store.Reader, channelID string, createdSeq int64, memberID string, en *storepb.MessageEntry, dm bool) (bool, error) {
	if dm {
		return true, nil
	}
	return r.Mentions(channelID, createdSeq, en, memberID)
}

// counts reports whether a message counts toward a member's unread and mention counts as of
// seq. Muting and blocking apply here, so a change of either is reflected at once.
func counts(d *Snapshot, memberID string, en *storepb.MessageEntry, seq int64) bool {
	if del := en.GetDeletedSeq(); del != 0 && del <= seq {
		return false
	}
	author := en.GetAuthorId()
	return author != memberID && !d.muted(memberID, author) && !d.Blocked(memberID, author)
}
