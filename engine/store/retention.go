package store

import (
	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Retention: what the purge and the readers need to find and skip messages past the retention
// cutoff (see the package doc for why the old messages of a channel are a prefix of its log).

// Expired reports whether a message, by its channel log entry, is past the retention cutoff: a
// top-level message by its own age, a thread reply by its root's (a thread goes with its root).
// cutoffMs 0 keeps everything.
func Expired(e *storepb.MessageEntry, cutoffMs int64) bool {
	if cutoffMs <= 0 {
		return false
	}
	at := e.GetCreatedAtMs()
	if e.GetThreadReply() && e.GetRootCreatedAtMs() > 0 {
		at = e.GetRootCreatedAtMs()
	}
	return at < cutoffMs
}

// entryFrom reads the first channel log entry at or after seq; ok is false when there is none.
func (r *Reader) entryFrom(channelID string, seq int64, reverse bool) (at int64, e *storepb.MessageEntry, ok bool, err error) {
	prefix := seqPrefix(prefixChanLog, channelID)
	err = r.scan(prefix, seqKey(prefixChanLog, channelID, seq), reverse, false, func(k []byte, item *badger.Item) (bool, error) {
		at, ok = getSeq(k), true
		e = new(storepb.MessageEntry)
		return false, item.Value(func(v []byte) error { return proto.Unmarshal(v, e) })
	})
	return at, e, ok, err
}

// FirstKeptEntry is the created_seq of the oldest message of a channel created at or after
// cutoffMs, or 0 when every message is older (or there is none). Along a channel's log
// created_at_ms only grows, so this is a binary search over seqs: a handful of seeks however
// many old messages wait for the purge, and one when none does.
func (r *Reader) FirstKeptEntry(channelID string, cutoffMs int64) (int64, error) {
	first, e, ok, err := r.entryFrom(channelID, 0, false)
	if err != nil || !ok {
		return 0, err
	}
	if e.GetCreatedAtMs() >= cutoffMs {
		return first, nil
	}
	best, e, _, err := r.entryFrom(channelID, 1<<62, true)
	if err != nil || e.GetCreatedAtMs() < cutoffMs {
		return 0, err
	}
	// best is kept and first is not: look for a kept entry in [lo, hi) below best.
	lo, hi := first+1, best
	for lo < hi {
		mid := lo + (hi-lo)/2
		at, e, _, err := r.entryFrom(channelID, mid, false)
		if err != nil {
			return 0, err
		}
		if e.GetCreatedAtMs() >= cutoffMs {
			best, hi = at, mid
		} else {
			lo = at + 1
		}
	}
	return best, nil
}

// LastKeptMessageSeq is the created_seq of the newest message of a channel at or below seq that
// is not past the cutoff, 0 if none. The backward scan skips the replies of roots past the cutoff
// and stops at the first message that is itself older than the cutoff: all before it are too.
func (r *Reader) LastKeptMessageSeq(channelID string, atOrBelow, cutoffMs int64) (int64, error) {
	if cutoffMs <= 0 {
		return r.LastMessageSeq(channelID, atOrBelow)
	}
	var last int64
	err := r.scan(seqPrefix(prefixChanLog, channelID), seqKey(prefixChanLog, channelID, atOrBelow), true, false,
		func(k []byte, item *badger.Item) (bool, error) {
			e := new(storepb.MessageEntry)
			if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
				return false, err
			}
			if e.GetCreatedAtMs() < cutoffMs {
				return false, nil
			}
			if Expired(e, cutoffMs) {
				return true, nil
			}
			last = getSeq(k)
			return false, nil
		})
	return last, err
}

// OldEntries calls fn for up to limit messages of a channel created before cutoffMs, oldest
// first: the purge's work list.
func (r *Reader) OldEntries(channelID string, cutoffMs int64, limit int, fn func(seq int64, e *storepb.MessageEntry)) error {
	n := 0
	return r.scan(seqPrefix(prefixChanLog, channelID), nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		e := new(storepb.MessageEntry)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
			return false, err
		}
		if e.GetCreatedAtMs() >= cutoffMs || n == limit {
			return false, nil
		}
		n++
		fn(getSeq(k), e)
		return true, nil
	})
}

// DeleteMessage removes a message row with its channel log entry and its top-level or thread
// index row: the three go together, so no index ever points at a missing message.
func (b *Batch) DeleteMessage(m *svcv1.Message) error {
	if err := b.delete(key(prefixMessage, m.GetId())); err != nil {
		return err
	}
	if err := b.delete(seqKey(prefixChanLog, m.GetChannelId(), m.GetCreatedSeq())); err != nil {
		return err
	}
	if root := m.GetThreadRootId(); root != "" {
		return b.delete(seqKey(prefixThread, root, m.GetCreatedSeq()))
	}
	return b.delete(seqKey(prefixTopLevel, m.GetChannelId(), m.GetCreatedSeq()))
}
