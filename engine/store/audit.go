package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// The audit log (0x73-0x75) and the slowmode marks (0x76). An entry's id sorts by time: the
// engine makes it a UUIDv7 of the batch's time and the seq of its audit_appended event, so key
// order is log order, a reverse scan lists the newest first, and a forward one finds the entries
// past their keeping time. Two index rows find an action's or a member's entries without reading
// the others; they are written and deleted with their entry.

const (
	prefixAudit       byte = 0x73
	prefixAuditAction byte = 0x74
	prefixAuditMember byte = 0x75
	prefixSlowmode    byte = 0x76
)

// actionPart is an action in an index key: fixed width, so that the entry ids after it sort.
func actionPart(a svcv1.AuditAction) string { return fmt.Sprintf("%04x", int32(a)) }

// auditMembers are the members an entry is listed under: its actor and its target, once each.
func auditMembers(e *svcv1.AuditEntry) []string {
	var out []string
	for _, id := range []string{e.GetActorId(), e.GetTargetMemberId()} {
		if id != "" && (len(out) == 0 || out[0] != id) {
			out = append(out, id)
		}
	}
	return out
}

// AddAudit writes an audit entry and its index rows.
func (b *Batch) AddAudit(e *svcv1.AuditEntry) error {
	if err := b.putProto(key(prefixAudit, e.GetId()), e); err != nil {
		return err
	}
	if err := b.set(key(prefixAuditAction, actionPart(e.GetAction()), e.GetId()), nil); err != nil {
		return err
	}
	for _, m := range auditMembers(e) {
		if err := b.set(key(prefixAuditMember, m, e.GetId()), nil); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAudit deletes an audit entry and its index rows.
func (b *Batch) DeleteAudit(e *svcv1.AuditEntry) error {
	if err := b.delete(key(prefixAudit, e.GetId())); err != nil {
		return err
	}
	if err := b.delete(key(prefixAuditAction, actionPart(e.GetAction()), e.GetId())); err != nil {
		return err
	}
	for _, m := range auditMembers(e) {
		if err := b.delete(key(prefixAuditMember, m, e.GetId())); err != nil {
			return err
		}
	}
	return nil
}

// AuditEntry reads one entry; ErrNotFound if there is none.
func (r *Reader) AuditEntry(id string) (*svcv1.AuditEntry, error) {
	e := new(svcv1.AuditEntry)
	if err := r.getProto(key(prefixAudit, id), e); err != nil {
		return nil, err
	}
	return e, nil
}

// AuditQuery selects entries of the audit log.
type AuditQuery struct {
	// Before, when set, is the id of an entry: only older ones are listed.
	Before string
	// Action, when set, keeps the entries of that action.
	Action svcv1.AuditAction
	// Member, when set, keeps the entries whose actor or target is that member.
	Member string
	// Limit is how many to return at most.
	Limit int
	// Keep, when set, keeps only the entries it reports true for.
	Keep func(*svcv1.AuditEntry) bool
}

// Audit lists the entries q selects, newest first, and whether older ones match too.
func (r *Reader) Audit(q AuditQuery) ([]*svcv1.AuditEntry, bool, error) {
	// The narrowest of the three lists: a member's entries, an action's, or all of them.
	var prefix []byte
	switch {
	case q.Member != "":
		prefix = key(prefixAuditMember, q.Member)
		prefix = append(prefix, sep)
	case q.Action != svcv1.AuditAction_AUDIT_ACTION_UNSPECIFIED:
		prefix = key(prefixAuditAction, actionPart(q.Action))
		prefix = append(prefix, sep)
	default:
		prefix = []byte{prefixAudit}
	}
	var start []byte
	if q.Before != "" {
		start = append(append([]byte{}, prefix...), q.Before...)
	}
	var out []*svcv1.AuditEntry
	more := false
	indexed := prefix[0] != prefixAudit
	err := r.scan(prefix, start, true, indexed, func(k []byte, item *badger.Item) (bool, error) {
		id := string(k[len(prefix):])
		if id == q.Before {
			return true, nil // the anchor itself
		}
		var e *svcv1.AuditEntry
		if indexed {
			var err error
			if e, err = r.AuditEntry(id); err != nil {
				return false, fmt.Errorf("audit index row %q: %w", id, err)
			}
		} else {
			e = new(svcv1.AuditEntry)
			if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
				return false, err
			}
		}
		if q.Action != svcv1.AuditAction_AUDIT_ACTION_UNSPECIFIED && e.GetAction() != q.Action {
			return true, nil
		}
		if q.Keep != nil && !q.Keep(e) {
			return true, nil
		}
		if len(out) == q.Limit {
			more = true
			return false, nil
		}
		out = append(out, e)
		return true, nil
	})
	return out, more, err
}

// OldAudit calls fn with the oldest entries made before cutoffMs, oldest first, at most limit
// of them.
func (r *Reader) OldAudit(cutoffMs int64, limit int, fn func(*svcv1.AuditEntry)) error {
	n := 0
	return r.scan([]byte{prefixAudit}, nil, false, false, func(_ []byte, item *badger.Item) (bool, error) {
		e := new(svcv1.AuditEntry)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
			return false, err
		}
		if e.GetAtMs() >= cutoffMs || n == limit {
			return false, nil
		}
		fn(e)
		n++
		return true, nil
	})
}

// LastSent is when a member last sent a message in a slowmode channel (Unix ms), 0 when there
// is no mark (none, or older than the longest slowmode).
func (r *Reader) LastSent(channelID, memberID string) (int64, error) {
	item, err := r.txn.Get(key(prefixSlowmode, channelID, memberID))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var at int64
	err = item.Value(func(v []byte) error {
		if len(v) == 8 {
			at = int64(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	return at, err
}

// PutLastSent marks that a member sent a message in a slowmode channel at atMs. The mark
// expires after ttl (the longest slowmode): past that it says nothing any slowmode needs.
func (b *Batch) PutLastSent(channelID, memberID string, atMs int64, ttl time.Duration) error {
	v := binary.BigEndian.AppendUint64(nil, uint64(atMs))
	return b.setEntry(badger.NewEntry(key(prefixSlowmode, channelID, memberID), v).WithTTL(ttl))
}
