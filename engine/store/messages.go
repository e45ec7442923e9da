package store

import (
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Message reads one message; ErrNotFound if there is none.
func (r *Reader) Message(id string) (*svcv1.Message, error) {
	m := new(svcv1.Message)
	if err := r.getProto(key(prefixMessage, id), m); err != nil {
		return nil, err
	}
	return m, nil
}

// PutMessage writes a message row. The indexes are written once, by AddMessage.
func (b *Batch) PutMessage(m *svcv1.Message) error {
	return b.putProto(key(prefixMessage, m.GetId()), m)
}

// AddMessage writes a new message with its channel log entry and its top-level or thread index.
func (b *Batch) AddMessage(m *svcv1.Message, e *storepb.MessageEntry) error {
	if err := b.PutMessage(m); err != nil {
		return err
	}
	if err := b.PutEntry(m.GetChannelId(), m.GetCreatedSeq(), e); err != nil {
		return err
	}
	id := []byte(m.GetId())
	if root := m.GetThreadRootId(); root != "" {
		return b.set(seqKey(prefixThread, root, m.GetCreatedSeq()), id)
	}
	return b.set(seqKey(prefixTopLevel, m.GetChannelId(), m.GetCreatedSeq()), id)
}

// Entry reads a message's channel log entry.
func (r *Reader) Entry(channelID string, createdSeq int64) (*storepb.MessageEntry, error) {
	e := new(storepb.MessageEntry)
	if err := r.getProto(seqKey(prefixChanLog, channelID, createdSeq), e); err != nil {
		return nil, err
	}
	return e, nil
}

// PutEntry writes (or rewrites, after an edit or a delete) a message's channel log entry.
func (b *Batch) PutEntry(channelID string, createdSeq int64, e *storepb.MessageEntry) error {
	return b.putProto(seqKey(prefixChanLog, channelID, createdSeq), e)
}

// Entries calls fn for each message of a channel with after < created_seq <= until, in order.
func (r *Reader) Entries(channelID string, after, until int64, fn func(seq int64, e *storepb.MessageEntry) error) error {
	prefix := seqPrefix(prefixChanLog, channelID)
	return r.scan(prefix, seqKey(prefixChanLog, channelID, after+1), false, false, func(k []byte, item *badger.Item) (bool, error) {
		seq := getSeq(k)
		if seq > until {
			return false, nil
		}
		e := new(storepb.MessageEntry)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
			return false, err
		}
		return true, fn(seq, e)
	})
}

// EntriesBefore calls fn for each message of a channel with created_seq below before, the newest
// first, until fn returns false.
func (r *Reader) EntriesBefore(channelID string, before int64, fn func(seq int64, e *storepb.MessageEntry) bool) error {
	if before <= 0 {
		return nil
	}
	prefix := seqPrefix(prefixChanLog, channelID)
	return r.scan(prefix, seqKey(prefixChanLog, channelID, before-1), true, false, func(k []byte, item *badger.Item) (bool, error) {
		e := new(storepb.MessageEntry)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
			return false, err
		}
		return fn(getSeq(k), e), nil
	})
}

// LastMessageSeq is the created_seq of the newest message of a channel at or below seq, 0 if
// none.
func (r *Reader) LastMessageSeq(channelID string, atOrBelow int64) (int64, error) {
	var last int64
	err := r.scan(seqPrefix(prefixChanLog, channelID), seqKey(prefixChanLog, channelID, atOrBelow), true, true,
		func(k []byte, _ *badger.Item) (bool, error) {
			last = getSeq(k)
			return false, nil
		})
	return last, err
}

// Index names one ordered list of messages: a channel's top-level messages or a thread's
// replies.
type Index struct {
	prefix byte
	id     string
}

// TopLevel is the index of a channel's top-level messages.
func TopLevel(channelID string) Index { return Index{prefixTopLevel, channelID} }

// Thread is the index of a thread's replies.
func Thread(rootID string) Index { return Index{prefixThread, rootID} }

// Walk calls fn with the message ids of the index from seq `from` (inclusive) towards older
// (reverse) or newer messages, until fn returns false. Going older from math.MaxInt64 starts at
// the newest.
func (r *Reader) Walk(ix Index, from int64, older bool, fn func(seq int64, messageID string) bool) error {
	prefix := seqPrefix(ix.prefix, ix.id)
	return r.scan(prefix, seqKey(ix.prefix, ix.id, from), older, false, func(k []byte, item *badger.Item) (bool, error) {
		var id string
		err := item.Value(func(v []byte) error {
			id = string(v)
			return nil
		})
		if err != nil {
			return false, err
		}
		return fn(getSeq(k), id), nil
	})
}

// ClientID finds the message an author's client_id produced, if the key is still alive.
func (r *Reader) ClientID(authorID, clientID string) (*storepb.ClientIDRecord, error) {
	rec := new(storepb.ClientIDRecord)
	err := r.getProto(key(prefixClientID, authorID, clientID), rec)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return rec, err
}

// PutClientID remembers a client_id for ttl; Badger drops the row afterwards.
func (b *Batch) PutClientID(authorID, clientID string, rec *storepb.ClientIDRecord, ttl time.Duration) error {
	v, err := proto.Marshal(rec)
	if err != nil {
		return err
	}
	return b.setEntry(badger.NewEntry(key(prefixClientID, authorID, clientID), v).WithTTL(ttl))
}

// ReadState is a member's last_read_seq in a channel, 0 if never set.
func (r *Reader) ReadState(memberID, channelID string) (int64, error) {
	item, err := r.txn.Get(key(prefixReadState, memberID, channelID))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var seq int64
	err = item.Value(func(v []byte) error {
		seq = getSeq(v)
		return nil
	})
	return seq, err
}

func (b *Batch) PutReadState(memberID, channelID string, lastReadSeq int64) error {
	return b.set(key(prefixReadState, memberID, channelID), putSeq(nil, lastReadSeq))
}
