package store

import (
	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
)

// AppendEvent writes one event of the log at its seq.
func (b *Batch) AppendEvent(le *storepb.LoggedEvent) error {
	return b.putProto(eventKey(le.GetEvent().GetSeq()), le)
}

func eventKey(seq int64) []byte { return putSeq([]byte{prefixEvent}, seq) }

// LastSeq is the seq of the newest event, 0 in a new database.
func (r *Reader) LastSeq() (int64, error) {
	var seq int64
	err := r.scan([]byte{prefixEvent}, nil, true, true, func(k []byte, _ *badger.Item) (bool, error) {
		seq = getSeq(k)
		return false, nil
	})
	return seq, err
}

// FirstSeq is the seq of the oldest event still kept, 0 when the log is empty.
func (r *Reader) FirstSeq() (int64, error) {
	var seq int64
	err := r.scan([]byte{prefixEvent}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		seq = getSeq(k)
		return false, nil
	})
	return seq, err
}

// EventAtOrAfter is the seq of the oldest event at or after seq; ok is false when none is.
func (r *Reader) EventAtOrAfter(seq int64) (found int64, ok bool, err error) {
	err = r.scan([]byte{prefixEvent}, eventKey(seq), false, true, func(k []byte, _ *badger.Item) (bool, error) {
		found, ok = getSeq(k), true
		return false, nil
	})
	return found, ok, err
}

// EventBefore is the seq of the newest event before seq; ok is false when none is.
func (r *Reader) EventBefore(seq int64) (found int64, ok bool, err error) {
	if seq <= 1 {
		return 0, false, nil
	}
	// A reverse seek lands on the greatest key at or below the one given.
	err = r.scan([]byte{prefixEvent}, eventKey(seq-1), true, true, func(k []byte, _ *badger.Item) (bool, error) {
		found, ok = getSeq(k), true
		return false, nil
	})
	return found, ok, err
}

// Events calls fn for each event with after < seq <= until, in order. fn returns false to stop.
func (r *Reader) Events(after, until int64, fn func(le *storepb.LoggedEvent) (bool, error)) error {
	return r.scan([]byte{prefixEvent}, eventKey(after+1), false, false, func(k []byte, item *badger.Item) (bool, error) {
		if getSeq(k) > until {
			return false, nil
		}
		le := new(storepb.LoggedEvent)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, le) }); err != nil {
			return false, err
		}
		return fn(le)
	})
}

// OldEvents calls fn for each event with seq < before, oldest first; the log pruner uses it to
// find where to stop (by the event's time) and what to delete. fn returns false to stop.
func (r *Reader) OldEvents(before int64, fn func(seq, atMs int64) bool) error {
	return r.scan([]byte{prefixEvent}, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		seq := getSeq(k)
		if seq >= before {
			return false, nil
		}
		le := new(storepb.LoggedEvent)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, le) }); err != nil {
			return false, err
		}
		return fn(seq, le.GetEvent().GetAtMs()), nil
	})
}

// DeleteEvent removes one event from the log.
func (b *Batch) DeleteEvent(seq int64) error { return b.delete(eventKey(seq)) }
