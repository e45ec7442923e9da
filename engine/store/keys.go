package store

import (
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"
)

// Key prefixes. Documented in doc.go; never renumber one that has been released.
const (
	prefixMeta      byte = 0x00
	prefixSettings  byte = 0x01
	prefixEvent     byte = 0x02
	prefixMember    byte = 0x10
	prefixChannel   byte = 0x20
	prefixJoined    byte = 0x21
	prefixMessage   byte = 0x30
	prefixChanLog   byte = 0x31
	prefixTopLevel  byte = 0x32
	prefixThread    byte = 0x33
	prefixClientID  byte = 0x34
	prefixReadState byte = 0x40
	prefixRole      byte = 0x50
	prefixBlock     byte = 0x60
	prefixMute      byte = 0x61
	prefixInvite    byte = 0x70
	prefixReport    byte = 0x71
	prefixReportOf  byte = 0x72
	prefixUpload    byte = 0x80
	prefixUnused    byte = 0x81

	// The built-in issuer's accounts (accounts.go): written only by Accounts, never by the
	// engine's writer.
	prefixAccount       byte = 0xD0
	prefixUsername      byte = 0xD1
	prefixRefreshToken  byte = 0xD2
	prefixRevokedFamily byte = 0xD3
)

const sep = 0x00

// key joins a prefix and string parts with the separator.
func key(prefix byte, parts ...string) []byte {
	n := 1
	for _, p := range parts {
		n += len(p) + 1
	}
	k := make([]byte, 0, n)
	k = append(k, prefix)
	for i, p := range parts {
		if i > 0 {
			k = append(k, sep)
		}
		k = append(k, p...)
	}
	return k
}

// seqKey is prefix, id, separator, seq: the per-channel and per-thread indexes.
func seqKey(prefix byte, id string, seq int64) []byte {
	k := make([]byte, 0, 1+len(id)+1+8)
	k = append(k, prefix)
	k = append(k, id...)
	k = append(k, sep)
	return putSeq(k, seq)
}

// seqPrefix is the part of a seqKey before the seq.
func seqPrefix(prefix byte, id string) []byte {
	k := make([]byte, 0, 1+len(id)+1)
	k = append(k, prefix)
	k = append(k, id...)
	return append(k, sep)
}

func metaKey(name string) []byte { return key(prefixMeta, name) }

func putSeq(dst []byte, seq int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(seq)) }

func getSeq(b []byte) int64 {
	if len(b) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b[len(b)-8:]))
}

// ErrNotFound is returned by single-row reads of a missing row.
var ErrNotFound = errors.New("not found")

// getProto reads one row into m.
func (r *Reader) getProto(k []byte, m proto.Message) error {
	item, err := r.txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(func(v []byte) error { return proto.Unmarshal(v, m) })
}

func (r *Reader) exists(k []byte) (bool, error) {
	_, err := r.txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b *Batch) putProto(k []byte, m proto.Message) error {
	v, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	return b.set(k, v)
}

// scan calls fn for every row under prefix, in key order (reverse: newest first), starting at
// start (nil: the first or, in reverse, the last row of the prefix). The key handed to fn is
// only valid during the call. fn returns false to stop.
func (r *Reader) scan(prefix, start []byte, reverse, keysOnly bool, fn func(k []byte, item *badger.Item) (bool, error)) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.Reverse = reverse
	opts.PrefetchValues = !keysOnly
	if !keysOnly {
		opts.PrefetchSize = 16
	}
	it := r.txn.NewIterator(opts)
	defer it.Close()
	seek := start
	if seek == nil {
		seek = prefix
		if reverse {
			seek = append(append([]byte{}, prefix...), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
		}
	}
	for it.Seek(seek); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		more, err := fn(item.Key(), item)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// scanProto decodes every row under prefix into a fresh message from newMsg.
func scanProto[M proto.Message](r *Reader, prefix []byte, newMsg func() M, fn func(k []byte, m M) error) error {
	return r.scan(prefix, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		m := newMsg()
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, m) }); err != nil {
			return false, err
		}
		return true, fn(k, m)
	})
}

// pairs calls fn for every (a, b) of the two-part keys under prefix.
func (r *Reader) pairs(prefix byte, fn func(a, b string) error) error {
	return r.scan([]byte{prefix}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		rest := k[1:]
		for i, c := range rest {
			if c == sep {
				return true, fn(string(rest[:i]), string(rest[i+1:]))
			}
		}
		return true, nil
	})
}
