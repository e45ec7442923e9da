package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/google/uuid"

	"hearth/engine/store/storepb"
)

// The rows of replies, pins, group mentions and polls (EXTENSIONS.md 1-4), prefixes 0x35-0x3F:
//
//	0x35 here      channel id 0x00 created seq  the members a <!here> reached: their ids as 16
//	                                            bytes each, sorted, so that a reader looks one
//	                                            member up by binary search without decoding
//	0x36 pin       channel id 0x00 message id   the seq of the pin's event (8 bytes)
//	0x37 pollclose closes_at_ms message id      empty: an open poll that closes by itself
const (
	prefixHere      byte = 0x35
	prefixPin       byte = 0x36
	prefixPollClose byte = 0x37
)

// PutHere records who a message's <!here> reached (an empty list writes nothing).
func (b *Batch) PutHere(channelID string, createdSeq int64, memberIDs []string) error {
	v := make([]byte, 0, 16*len(memberIDs))
	for _, id := range memberIDs {
		u, err := uuid.Parse(id)
		if err != nil {
			continue // member ids are UUIDs; one that is not is nobody a mention reaches
		}
		v = append(v, u[:]...)
	}
	if len(v) == 0 {
		return nil
	}
	return b.set(seqKey(prefixHere, channelID, createdSeq), sortFixed(v, 16))
}

// DeleteHere forgets who a message's <!here> reached.
func (b *Batch) DeleteHere(channelID string, createdSeq int64) error {
	return b.delete(seqKey(prefixHere, channelID, createdSeq))
}

// HereReached reports whether a message's <!here> reached a member: one point read and a
// binary search in its value, however many members it reached.
func (r *Reader) HereReached(channelID string, createdSeq int64, memberID string) (bool, error) {
	u, err := uuid.Parse(memberID)
	if err != nil {
		return false, nil
	}
	item, err := r.txn.Get(seqKey(prefixHere, channelID, createdSeq))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	found := false
	err = item.Value(func(v []byte) error {
		lo, hi := 0, len(v)/16
		for lo < hi {
			mid := (lo + hi) / 2
			switch c := bytes.Compare(v[mid*16:mid*16+16], u[:]); {
			case c == 0:
				found = true
				return nil
			case c < 0:
				lo = mid + 1
			default:
				hi = mid
			}
		}
		return nil
	})
	return found, err
}

// sortFixed returns the records of size n that b is made of, sorted, without repeats.
func sortFixed(b []byte, n int) []byte {
	recs := make([][]byte, len(b)/n)
	for i := range recs {
		recs[i] = b[i*n : i*n+n]
	}
	slices.SortFunc(recs, bytes.Compare)
	recs = slices.CompactFunc(recs, bytes.Equal)
	out := make([]byte, 0, len(recs)*n)
	for _, r := range recs {
		out = append(out, r...)
	}
	return out
}

// Mentions reports whether a message (its channel log entry) mentions a member: a <@id>, a
// reply to one of their messages, an <!everyone>, or an <!here> that reached them. It says
// nothing of who may count it: the unread counters leave out the member's own messages and
// those of members they muted or blocked, as for every mention.
func (r *Reader) Mentions(channelID string, createdSeq int64, e *storepb.MessageEntry, memberID string) (bool, error) {
	if slices.Contains(e.GetMentionIds(), memberID) || e.GetReplyToAuthorId() == memberID || e.GetMentionsEveryone() {
		return true, nil
	}
	if e.GetMentionsHere() {
		return r.HereReached(channelID, createdSeq, memberID)
	}
	return false, nil
}

// Pin is one pinned message of a channel.
type Pin struct {
	MessageID string
	// Seq is the seq of the event that pinned it: pins sort by it.
	Seq int64
}

// PutPin records a pinned message.
func (b *Batch) PutPin(channelID, messageID string, seq int64) error {
	return b.set(key(prefixPin, channelID, messageID), putSeq(nil, seq))
}

// DeletePin forgets a pin (nothing when there is none).
func (b *Batch) DeletePin(channelID, messageID string) error {
	return b.delete(key(prefixPin, channelID, messageID))
}

// Pins lists a channel's pins, newest first.
func (r *Reader) Pins(channelID string) ([]Pin, error) {
	var out []Pin
	prefix := append(key(prefixPin, channelID), sep)
	err := r.scan(prefix, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		p := Pin{MessageID: string(k[len(prefix):])}
		err := item.Value(func(v []byte) error {
			p.Seq = getSeq(v)
			return nil
		})
		out = append(out, p)
		return true, err
	})
	slices.SortFunc(out, func(a, b Pin) int { return cmp.Compare(b.Seq, a.Seq) })
	return out, err
}

func pollCloseKey(atMs int64, messageID string) []byte {
	k := binary.BigEndian.AppendUint64([]byte{prefixPollClose}, uint64(atMs))
	return append(k, messageID...)
}

// PutPollClose records that a poll closes by itself at atMs.
func (b *Batch) PutPollClose(atMs int64, messageID string) error {
	return b.set(pollCloseKey(atMs, messageID), nil)
}

// DeletePollClose forgets a poll's closing time (nothing when there is none).
func (b *Batch) DeletePollClose(atMs int64, messageID string) error {
	return b.delete(pollCloseKey(atMs, messageID))
}

// PollCloses calls fn with the polls that close by themselves, soonest first, until fn
// returns false.
func (r *Reader) PollCloses(fn func(atMs int64, messageID string) bool) error {
	return r.scan([]byte{prefixPollClose}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if len(k) < 9 {
			return true, nil
		}
		return fn(int64(binary.BigEndian.Uint64(k[1:9])), string(k[9:])), nil
	})
}
