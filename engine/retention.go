package engine

import (
	"sync"
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Message retention. With retention_days > 0, messages older than that many days are deleted
// with their thread replies, reactions (they live in the message row) and files, without
// events. The
// purge runs on the jobs loop every minute; each batch of up to purgeBatch messages is one
// writer change, so sends wait at most for one batch, and each batch is one transaction, so a
// restart between batches leaves no half-deleted thread behind. Because the purge lags the clock, every reader also filters by the cutoff:
// a message past it is gone the moment it is past it, whether or not its rows are deleted yet.
//
// Read states are seq positions, not pointers to messages, so they need no change: the counters
// skip what is past the cutoff, and a read position beyond the channel's last kept message
// simply means nothing is unread.

// purgeBatch bounds the messages (replies included) one purge change deletes.
const purgeBatch = 256

// purger serializes purge runs (the jobs loop and PurgeNow).
type purger struct {
	mu    sync.Mutex
	limit int
}

// cutoffMs is the creation time before which messages are past retention; 0 keeps everything.
func cutoffMs(s *storepb.Settings, now time.Time) int64 {
	days := s.GetRetentionDays()
	if days <= 0 {
		return 0
	}
	return now.Add(-time.Duration(days) * 24 * time.Hour).UnixMilli()
}

// readCutoff is the cutoff for a read outside the writer.
func (e *Engine) readCutoff() int64 { return cutoffMs(e.snap.Load().Settings(), e.now()) }

// cutoff is the cutoff for a change, on the batch's clock.
func (tx *Tx) cutoff() int64 { return cutoffMs(tx.Snap().Settings(), tx.Now()) }

// messageExpired reports whether a message is past retention: a top-level message by its own
// age, a reply by its root's (a reply whose root is no longer stored went with it).
func messageExpired(r *store.Reader, m *svcv1.Message, cutoff int64) (bool, error) {
	if cutoff <= 0 {
		return false, nil
	}
	if m.GetCreatedAtMs() < cutoff {
		return true, nil
	}
	rootID := m.GetThreadRootId()
	if rootID == "" {
		return false, nil
	}
	root, err := r.Message(rootID)
	if isNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return root.GetCreatedAtMs() < cutoff, nil
}

// liveMessage reads a message by id; one past retention is store.ErrNotFound like one that was
// never there.
func liveMessage(r *store.Reader, id string, cutoff int64) (*svcv1.Message, error) {
	m, err := r.Message(id)
	if err != nil {
		return nil, err
	}
	gone, err := messageExpired(r, m, cutoff)
	if err != nil {
		return nil, err
	}
	if gone {
		return nil, store.ErrNotFound
	}
	return m, nil
}

// eventExpired reports whether a logged event is about a message past retention: replay leaves
// those out, as ListMessages does.
func eventExpired(r *store.Reader, ev *svcv1.Event, cutoff int64) (bool, error) {
	if cutoff <= 0 {
		return false, nil
	}
	m := eventMessage(ev)
	if m == nil {
		return false, nil
	}
	return messageExpired(r, m, cutoff)
}

// releaseAttachments is where a message that is being deleted for good lets go of its files.
// The purge calls it inside its change for every message it deletes, replies included, before
// the row goes: the upload rows go in the same transaction, the objects after the commit (on
// the jobs goroutine, never the writer's), so that no row ever points at a missing file.
func (e *Engine) releaseAttachments(tx *Tx, m *svcv1.Message) error {
	return tx.releaseFiles(m)
}

// PurgeNow deletes every message past retention now; the jobs loop runs it every minute.
func (e *Engine) PurgeNow() error {
	e.purge.mu.Lock()
	defer e.purge.mu.Unlock()
	d := e.snap.Load()
	cutoff := cutoffMs(d.Settings(), e.now())
	if cutoff == 0 {
		return nil
	}
	for _, rec := range d.Channels() {
		id := rec.GetChannel().GetId()
		for {
			// A read first: a channel with nothing to purge costs no writer change.
			var found bool
			err := e.db.View(func(r *store.Reader) error {
				return r.OldEntries(id, cutoff, 1, func(int64, *storepb.MessageEntry) { found = true })
			})
			if err != nil {
				return err
			}
			if !found {
				break
			}
			more, err := e.purgeStep(id, e.purge.limit)
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
	}
	return nil
}

// purgeStep is one purge change: it deletes up to limit of a channel's messages past
// retention, oldest first, each root after its replies. A root with more replies than the
// batch has room for loses the oldest of them now and goes in a later batch, so a batch stays
// bounded and no reply is ever left without its root. It reports whether more may be left.
func (e *Engine) purgeStep(channelID string, limit int) (bool, error) {
	return submit(e, func(tx *Tx) (bool, error) {
		cutoff := tx.cutoff()
		if cutoff == 0 {
			return false, nil
		}
		type old struct {
			seq int64
			en  *storepb.MessageEntry
		}
		var olds []old
		err := tx.read().OldEntries(channelID, cutoff, limit, func(seq int64, en *storepb.MessageEntry) {
			olds = append(olds, old{seq, en})
		})
		if err != nil {
			return false, err
		}
		budget := limit
		for _, o := range olds {
			if budget == 0 {
				return true, nil
			}
			m, err := tx.read().Message(o.en.GetMessageId())
			if isNotFound(err) {
				continue // a reply this batch already deleted with its root
			}
			if err != nil {
				return false, err
			}
			if root := m.GetThreadRootId(); root != "" {
				// An old reply goes with its (older) root; only an orphan goes alone.
				if _, err := tx.read().Message(root); err == nil {
					continue
				} else if !isNotFound(err) {
					return false, err
				}
				if err := e.purgeMessage(tx, m); err != nil {
					return false, err
				}
				budget--
				continue
			}
			var replies []string
			err = tx.read().Walk(store.Thread(m.GetId()), 0, false, func(_ int64, id string) bool {
				replies = append(replies, id)
				return len(replies) < budget
			})
			if err != nil {
				return false, err
			}
			for _, id := range replies {
				r, err := tx.read().Message(id)
				if err != nil {
					return false, err
				}
				if err := e.purgeMessage(tx, r); err != nil {
					return false, err
				}
				budget--
			}
			if budget == 0 {
				return true, nil
			}
			if err := e.purgeMessage(tx, m); err != nil {
				return false, err
			}
			budget--
		}
		return len(olds) == limit, nil
	})
}

// purgeMessage deletes one message for good: its files, its row (reactions included), its
// index rows and its terms in the message index.
func (e *Engine) purgeMessage(tx *Tx, m *svcv1.Message) error {
	if err := e.releaseAttachments(tx, m); err != nil {
		return err
	}
	if err := tx.unindex(m); err != nil {
		return err
	}
	if err := tx.dropConversationRows(m); err != nil {
		return err
	}
	return tx.mutate().DeleteMessage(m)
}

// CheckMessages checks the message store: every message with its index rows, every index row
// with its message, every reply with its root (see store.CheckMessages).
func (e *Engine) CheckMessages() (store.MessageCheck, error) {
	var out store.MessageCheck
	err := e.db.View(func(r *store.Reader) error {
		var err error
		out, err = r.CheckMessages()
		return err
	})
	return out, err
}
