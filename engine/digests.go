package engine

import (
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Email digests (EXTENSIONS.md 7, Email): the messages that mentioned a member or reached them
// in a DM, kept until they are mailed or no longer worth mailing. The notifier (engine/notify)
// decides what goes in (MessageNotices and the member's preferences) and sends the emails; the
// engine keeps the queue, in rows of its own (0xE3-0xE5) written by the writer, so that a
// digest survives a restart and travels with backups, and says at send time what is still
// worth mailing: unread, in a channel the member is still in, not deleted, not from a member
// they blocked or muted since.

// DigestPolicy is when digests go.
type DigestPolicy struct {
	// Wait is how long a message must stay unread before it is mailed.
	Wait time.Duration
	// Every is the least time between two emails to one member.
	Every time.Duration
	// Max is how many messages may wait for one member; past it the oldest are dropped, and
	// counted for the next email's "and N more".
	Max int
}

// DigestQueue is the engine's queue of digests under a policy.
type DigestQueue struct {
	e *Engine
	p DigestPolicy
}

// Digests returns the queue of digests under p.
func (e *Engine) Digests(p DigestPolicy) *DigestQueue { return &DigestQueue{e: e, p: p} }

// DigestNote is a message to keep for a member's digest.
type DigestNote struct {
	MemberID  string
	ChannelID string
	MessageID string
	// Seq and AtMs are the message's created_seq and created_at_ms.
	Seq    int64
	AtMs   int64
	Reason NoticeReason
}

// Digest is what a member's email is made of when their digest comes due.
type Digest struct {
	MemberID string
	Login    Login
	// Name is how the member is called: their display name, else their username.
	Name string
	// Entries are the messages still worth mailing, oldest first.
	Entries []DigestEntry
	// Dropped is how many older messages were dropped for the limit.
	Dropped int64
	// Failures is how many tries of this email the mail server did not take.
	Failures int32
	// upTo is the created_seq of the last message taken (worth mailing or not), taken how many
	// were.
	upTo  int64
	taken int
}

// DigestEntry is one message of a digest as the email shows it.
type DigestEntry struct {
	ChannelID string
	// Title is the channel (#general) or, for a DM, the other members' names.
	Title        string
	DM           bool
	MessageID    string
	ThreadRootID string
	Author       string
	// Text is as notifications show it (mentions as @name), cut to 200 characters.
	Text   string
	Reason NoticeReason
	AtMs   int64
}

// LoginOf is a member's login (false for bots and members no longer in the community).
func (e *Engine) LoginOf(memberID string) (Login, bool) {
	m := e.snap.Load().active(memberID)
	if m == nil || m.GetSubject() == "" {
		return Login{}, false
	}
	return Login{Issuer: m.GetIssuer(), Subject: m.GetSubject()}, true
}

// Add keeps messages for their members' digests, in one change. A message already kept is not
// kept twice.
func (q *DigestQueue) Add(notes []DigestNote) error {
	_, err := submit(q.e, func(tx *Tx) (struct{}, error) {
		for _, n := range notes {
			if err := q.add(tx, n); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

func (q *DigestQueue) add(tx *Tx, n DigestNote) error {
	r, b := tx.read(), tx.mutate()
	if has, err := r.HasDigestItem(n.MemberID, n.Seq); err != nil || has {
		return err
	}
	st, err := r.DigestState(n.MemberID)
	if isNotFound(err) {
		st, err = &storepb.DigestStateRecord{}, nil
	}
	if err != nil {
		return err
	}
	if over := int(st.GetPending()) - q.p.Max + 1; over > 0 {
		gone, err := b.DeleteDigestItems(n.MemberID, over, 0)
		if err != nil {
			return err
		}
		st.Pending -= int32(gone)
		st.Dropped += int64(gone)
	}
	err = b.PutDigestItem(n.MemberID, &storepb.DigestItemRecord{
		ChannelId:   n.ChannelID,
		MessageId:   n.MessageID,
		CreatedSeq:  n.Seq,
		CreatedAtMs: n.AtMs,
		Reason:      int32(n.Reason),
	})
	if err != nil {
		return err
	}
	st.Pending++
	return q.settle(tx, n.MemberID, st)
}

// settle stores a member's state with its next due time: the first waiting message's time plus
// the wait, not before the hour since the last email nor before a retry's time. With nothing
// waiting the row stays until the hour since the last email is over (it holds the budget),
// then goes.
func (q *DigestQueue) settle(tx *Tx, memberID string, st *storepb.DigestStateRecord) error {
	var first *storepb.DigestItemRecord
	err := tx.read().DigestItems(memberID, func(it *storepb.DigestItemRecord) (bool, error) {
		first = it
		return false, nil
	})
	if err != nil {
		return err
	}
	next := st.GetLastSentMs() + q.p.Every.Milliseconds()
	switch {
	case first != nil:
		due := first.GetCreatedAtMs() + q.p.Wait.Milliseconds()
		if st.GetLastSentMs() != 0 {
			due = max(due, next)
		}
		st.DueAtMs = max(due, st.GetRetryAtMs())
	case st.GetLastSentMs() != 0 && next > tx.NowMs():
		st.Pending, st.Dropped, st.DueAtMs = 0, 0, next
	default:
		return tx.mutate().DeleteDigestState(memberID)
	}
	return tx.mutate().PutDigestState(memberID, st)
}

// Due lists the members whose digest is due at now, earliest first, at most limit.
func (q *DigestQueue) Due(now time.Time, limit int) ([]string, error) {
	var out []string
	err := q.e.db.View(func(r *store.Reader) error {
		return r.DigestsDue(now.UnixMilli(), func(id string) bool {
			out = append(out, id)
			return len(out) < limit
		})
	})
	return out, err
}

// Pending is how many messages wait in a member's digest.
func (q *DigestQueue) Pending(memberID string) (int, error) {
	n := 0
	err := q.e.db.View(func(r *store.Reader) error {
		st, err := r.DigestState(memberID)
		if isNotFound(err) {
			return nil
		}
		n = int(st.GetPending())
		return err
	})
	return n, err
}

// Take reads a member's digest if it is due at now: the messages that waited long enough, those
// still worth mailing as entries. Nil when it is not due. Nothing changes until Done or Retry.
func (q *DigestQueue) Take(memberID string, now time.Time) (*Digest, error) {
	d := q.e.snap.Load()
	nowMs := now.UnixMilli()
	var out *Digest
	err := q.e.db.View(func(r *store.Reader) error {
		st, err := r.DigestState(memberID)
		if isNotFound(err) || (err == nil && st.GetDueAtMs() > nowMs) {
			return nil
		}
		if err != nil {
			return err
		}
		out = &Digest{MemberID: memberID, Dropped: st.GetDropped(), Failures: st.GetFailures(), Name: noticeName(d, memberID)}
		if m := d.Member(memberID); m != nil {
			out.Login = Login{Issuer: m.GetIssuer(), Subject: m.GetSubject()}
		}
		return r.DigestItems(memberID, func(it *storepb.DigestItemRecord) (bool, error) {
			if it.GetCreatedAtMs()+q.p.Wait.Milliseconds() > nowMs {
				return false, nil
			}
			out.upTo = it.GetCreatedSeq()
			out.taken++
			en, err := digestEntry(r, d, memberID, it)
			if en != nil {
				out.Entries = append(out.Entries, *en)
			}
			return true, err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// digestEntry is a waiting message as the email shows it, or nil when it is no longer worth
// mailing: read, deleted, in a channel the member is no longer in, from a member they blocked
// or muted.
func digestEntry(r *store.Reader, d *Snapshot, memberID string, it *storepb.DigestItemRecord) (*DigestEntry, error) {
	rec := d.Channel(it.GetChannelId())
	if !d.In(memberID, rec) {
		return nil, nil
	}
	en, err := r.Entry(it.GetChannelId(), it.GetCreatedSeq())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if en.GetMessageId() != it.GetMessageId() || !counts(d, memberID, en, d.Seq()) {
		return nil, nil
	}
	last, err := r.ReadState(memberID, it.GetChannelId())
	if err != nil || last >= it.GetCreatedSeq() {
		return nil, err
	}
	m, err := r.Message(it.GetMessageId())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ch := rec.GetChannel()
	out := &DigestEntry{
		ChannelID:    ch.GetId(),
		Title:        "#" + ch.GetName(),
		DM:           ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM,
		MessageID:    m.GetId(),
		ThreadRootID: m.GetThreadRootId(),
		Author:       noticeName(d, m.GetAuthorId()),
		Text:         cutText(noticeText(d, m), noticeBodyMax),
		Reason:       NoticeReason(it.GetReason()),
		AtMs:         m.GetCreatedAtMs(),
	}
	if out.DM {
		out.Title = dmTitle(d, ch, memberID)
	}
	return out, nil
}

// Done removes the messages a digest took, and with a sentAt (zero when no email went: nothing
// was left worth mailing) starts the hour before the member's next email.
func (q *DigestQueue) Done(dg *Digest, sentAt time.Time) error {
	return q.change(dg, func(tx *Tx, st *storepb.DigestStateRecord) error {
		gone := 0
		if dg.upTo != 0 {
			var err error
			if gone, err = tx.mutate().DeleteDigestItems(dg.MemberID, -1, dg.upTo); err != nil {
				return err
			}
		}
		st.Pending -= int32(gone)
		// What the limit dropped since Take was the oldest: taken messages, not more of them.
		st.Dropped = max(0, st.GetDropped()-dg.Dropped-int64(dg.taken-gone))
		st.Failures, st.RetryAtMs = 0, 0
		if !sentAt.IsZero() {
			st.LastSentMs = sentAt.UnixMilli()
		}
		return nil
	})
}

// Retry keeps a digest the mail server did not take for another try at retryAt.
func (q *DigestQueue) Retry(dg *Digest, retryAt time.Time) error {
	return q.change(dg, func(_ *Tx, st *storepb.DigestStateRecord) error {
		st.Failures++
		st.RetryAtMs = retryAt.UnixMilli()
		return nil
	})
}

// change applies fn to a member's digest state, in one change, and settles it.
func (q *DigestQueue) change(dg *Digest, fn func(*Tx, *storepb.DigestStateRecord) error) error {
	_, err := submit(q.e, func(tx *Tx) (struct{}, error) {
		st, err := tx.read().DigestState(dg.MemberID)
		if isNotFound(err) {
			return struct{}{}, nil
		}
		if err != nil {
			return struct{}{}, err
		}
		if err := fn(tx, st); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, q.settle(tx, dg.MemberID, st)
	})
	return err
}
