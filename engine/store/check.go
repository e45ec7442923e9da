package store

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// MessageCheck is what CheckMessages found: how many messages are stored, and every row that
// breaks the rule that a message, its channel log entry and its index row exist together (and a
// reply's root with it).
type MessageCheck struct {
	Messages int
	Replies  int
	Problems []string
}

// CheckMessages walks every message row and every index row and reports the dangling ones. It
// reads the whole message store: a tool for tests and for checking a database by hand, not for
// the request path.
func (r *Reader) CheckMessages() (MessageCheck, error) {
	var out MessageCheck
	problem := func(format string, args ...any) { out.Problems = append(out.Problems, fmt.Sprintf(format, args...)) }
	err := scanProto(r, []byte{prefixMessage}, func() *svcv1.Message { return new(svcv1.Message) }, func(_ []byte, m *svcv1.Message) error {
		out.Messages++
		e, err := r.Entry(m.GetChannelId(), m.GetCreatedSeq())
		switch {
		case errors.Is(err, ErrNotFound):
			problem("message %s has no channel log entry", m.GetId())
		case err != nil:
			return err
		case e.GetMessageId() != m.GetId():
			problem("message %s: its channel log entry names %s", m.GetId(), e.GetMessageId())
		}
		ix := seqKey(prefixTopLevel, m.GetChannelId(), m.GetCreatedSeq())
		if root := m.GetThreadRootId(); root != "" {
			out.Replies++
			ix = seqKey(prefixThread, root, m.GetCreatedSeq())
			if ok, err := r.exists(key(prefixMessage, root)); err != nil {
				return err
			} else if !ok {
				problem("reply %s outlived its root %s", m.GetId(), root)
			}
		}
		if ok, err := r.exists(ix); err != nil {
			return err
		} else if !ok {
			problem("message %s has no top-level or thread index row", m.GetId())
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	err = r.scan([]byte{prefixChanLog}, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		e := new(storepb.MessageEntry)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
			return false, err
		}
		ok, err := r.exists(key(prefixMessage, e.GetMessageId()))
		if err == nil && !ok {
			problem("channel log entry %x names the missing message %s", k, e.GetMessageId())
		}
		return err == nil, err
	})
	if err != nil {
		return out, err
	}
	for _, prefix := range []byte{prefixTopLevel, prefixThread} {
		err = r.scan([]byte{prefix}, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
			id, err := item.ValueCopy(nil)
			if err != nil {
				return false, err
			}
			ok, err := r.exists(key(prefixMessage, string(id)))
			if err == nil && !ok {
				problem("index row %x names the missing message %s", k, id)
			}
			return err == nil, err
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
