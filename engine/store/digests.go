package store

import (
	"errors"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
)

// Email digests (0xE3-0xE5): per member, the messages waiting to be mailed and one state row,
// and an index of the members by when their digest is next looked at. Written by the engine's
// writer; the state row and its index row change together (PutDigestState, DeleteDigestState).
const (
	prefixDigestItem  byte = 0xE3
	prefixDigestDue   byte = 0xE4
	prefixDigestState byte = 0xE5
)

// digestDueKey is the index row of a member's digest: due_at_ms (8 bytes, big-endian, so that
// the index sorts by time) then the member id.
func digestDueKey(dueMs int64, memberID string) []byte {
	return append(putSeq([]byte{prefixDigestDue}, dueMs), memberID...)
}

// DigestState reads a member's digest state; ErrNotFound when nothing waits for them.
func (r *Reader) DigestState(memberID string) (*storepb.DigestStateRecord, error) {
	st := new(storepb.DigestStateRecord)
	if err := r.getProto(key(prefixDigestState, memberID), st); err != nil {
		return nil, err
	}
	return st, nil
}

// DigestItems calls fn for each message waiting in a member's digest, by created_seq, until fn
// returns false.
func (r *Reader) DigestItems(memberID string, fn func(*storepb.DigestItemRecord) (bool, error)) error {
	return r.scan(seqPrefix(prefixDigestItem, memberID), nil, false, false, func(_ []byte, item *badger.Item) (bool, error) {
		it := new(storepb.DigestItemRecord)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, it) }); err != nil {
			return false, err
		}
		return fn(it)
	})
}

// HasDigestItem reports whether a message waits in a member's digest.
func (r *Reader) HasDigestItem(memberID string, createdSeq int64) (bool, error) {
	return r.exists(seqKey(prefixDigestItem, memberID, createdSeq))
}

// DigestsDue calls fn for each member whose digest is due at or before atMs, earliest first,
// until fn returns false.
func (r *Reader) DigestsDue(atMs int64, fn func(memberID string) bool) error {
	return r.scan([]byte{prefixDigestDue}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if len(k) < 9 || getSeq(k[:9]) > atMs {
			return false, nil
		}
		return fn(string(k[9:])), nil
	})
}

// PutDigestItem adds a message to a member's digest.
func (b *Batch) PutDigestItem(memberID string, it *storepb.DigestItemRecord) error {
	return b.putProto(seqKey(prefixDigestItem, memberID, it.GetCreatedSeq()), it)
}

// DeleteDigestItems removes a member's first n waiting messages, or, with n < 0, those up to
// upTo (a created_seq), and returns how many it removed.
func (b *Batch) DeleteDigestItems(memberID string, n int, upTo int64) (int, error) {
	var keys [][]byte
	err := b.scan(seqPrefix(prefixDigestItem, memberID), nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if (n >= 0 && len(keys) == n) || (n < 0 && getSeq(k) > upTo) {
			return false, nil
		}
		keys = append(keys, append([]byte(nil), k...))
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := b.delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// PutDigestState writes a member's digest state and moves its index row to st.due_at_ms.
func (b *Batch) PutDigestState(memberID string, st *storepb.DigestStateRecord) error {
	if err := b.dropDigestDue(memberID); err != nil {
		return err
	}
	if err := b.putProto(key(prefixDigestState, memberID), st); err != nil {
		return err
	}
	return b.set(digestDueKey(st.GetDueAtMs(), memberID), nil)
}

// DeleteDigestState removes a member's digest state and its index row (their waiting messages
// are the caller's to remove first).
func (b *Batch) DeleteDigestState(memberID string) error {
	if err := b.dropDigestDue(memberID); err != nil {
		return err
	}
	return b.delete(key(prefixDigestState, memberID))
}

// dropDigestDue deletes the index row of a member's stored state, if any.
func (b *Batch) dropDigestDue(memberID string) error {
	old, err := b.DigestState(memberID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return b.delete(digestDueKey(old.GetDueAtMs(), memberID))
}
