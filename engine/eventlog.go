package engine

import (
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// The event log keeps at least the last ReplayDays days and at least the last ReplayEvents
// events; older events are deleted a bounded batch per transaction, so a large backlog never
// holds the writer for long. A stream that asks for deleted events gets resync.
//
// Message retention comes first: events older than the retention cutoff go whatever the kept
// window says, since they carry copies of messages the community chose not to keep. Only the
// newest event always stays, because the log's last row is where the seq is kept across a
// restart; when it is past retention, the copy of a message in it is emptied instead.
//
// The kept count counts events, not seqs: after a restore the seqs jump by restoreSeqGap, and
// the events from before it are as much a part of the newest ReplayEvents as those after.

// pruneBatch bounds the events deleted per transaction.
const pruneBatch = 10_000

// pruneLog deletes the events that are both older than the kept window and beyond the kept
// count.
func (e *Engine) pruneLog() error {
	for {
		seq := e.Seq()     // committed: every event up to it is in the views below
		var keepFrom int64 // events at or below this may go
		err := e.db.View(func(r *store.Reader) error {
			var err error
			keepFrom, err = beyondNewest(r, seq, int64(e.opts.ReplayEvents))
			return err
		})
		if err != nil {
			return err
		}
		cutoffMs := e.now().Add(-time.Duration(e.opts.ReplayDays) * 24 * time.Hour).UnixMilli()
		retainMs := e.readCutoff()
		if keepFrom < 1 && retainMs == 0 {
			return nil
		}
		n, err := submit(e, func(tx *Tx) (int, error) {
			n, last := 0, int64(0)
			var del []int64
			err := tx.read().OldEvents(tx.seq, func(seq, atMs int64) bool {
				old := seq <= keepFrom && atMs < cutoffMs
				if !(old || atMs < retainMs) || n == pruneBatch {
					return false
				}
				del = append(del, seq)
				n, last = n+1, seq
				return true
			})
			if err != nil {
				return 0, err
			}
			for _, seq := range del {
				if err := tx.mutate().DeleteEvent(seq); err != nil {
					return 0, err
				}
			}
			if n > 0 {
				tx.afterCommit(func() { e.logStart.Store(last + 1) })
			}
			if n < pruneBatch && retainMs > 0 {
				return n, scrubEvent(tx, tx.seq, retainMs)
			}
			return n, nil
		})
		if err != nil || n < pruneBatch {
			return err
		}
	}
}

// beyondNewest is the seq at or below which the events of the log are older than its newest n
// (0 when it holds no more than n), the log ending at seq last. Seqs are consecutive but for
// the gaps restores leave (restoreSeqGap: far more than n can be, see Follower.replay), so
// the newest n are counted a run of consecutive seqs at a time: where the run holding hi
// starts is one seek (a gap within n seqs of hi would be smaller than a restore's), and the
// run before it one more. A few seeks per restore, however large n is, and nothing to store.
func beyondNewest(r *store.Reader, last, n int64) (int64, error) {
	hi := last
	for hi > 0 {
		start, ok, err := r.EventAtOrAfter(max(hi-n+1, 1))
		if err != nil || !ok || start > hi {
			return 0, err // hi is no row: nothing is known to be beyond the newest n
		}
		if n -= hi - start + 1; n == 0 {
			return start - 1, nil
		}
		prev, ok, err := r.EventBefore(start)
		if err != nil || !ok {
			return 0, err
		}
		hi = prev
	}
	return 0, nil
}

// scrubEvent empties the message copy of a logged event older than retainMs, keeping the row
// (and so its seq).
func scrubEvent(tx *Tx, seq, retainMs int64) error {
	var le *storepb.LoggedEvent
	err := tx.read().Events(seq-1, seq, func(x *storepb.LoggedEvent) (bool, error) {
		le = x
		return false, nil
	})
	if err != nil || le == nil || le.GetEvent().GetAtMs() >= retainMs {
		return err
	}
	ev := le.GetEvent()
	m := ev.GetMessageCreated()
	if m == nil {
		m = ev.GetMessageUpdated()
	}
	if m == nil {
		m = ev.GetMessageDeleted()
	}
	if m == nil || (m.GetText() == "" && len(m.GetAttachments()) == 0 && len(m.GetReactions()) == 0) {
		return nil
	}
	m.Text, m.Attachments, m.Reactions, m.ClientId = "", nil, nil, ""
	return tx.mutate().AppendEvent(le)
}
