package store

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// The search index's rows take the prefixes 0xB0-0xBF. engine/search lays them out (see its
// package doc and this package's); the store keeps its writes inside that range and gives it
// plain reads, writes and iterators, in the same transactions as everything else.

const (
	searchFirst byte = 0xB0
	searchLast  byte = 0xBF
)

func checkSearchKey(k []byte) {
	if len(k) == 0 || k[0] < searchFirst || k[0] > searchLast {
		panic(fmt.Sprintf("store: search key %x outside 0xB0-0xBF", k))
	}
}

// SearchGet reads one search row; ErrNotFound if there is none. The value is a copy.
func (r *Reader) SearchGet(k []byte) ([]byte, error) {
	checkSearchKey(k)
	item, err := r.txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// SearchSet writes one search row.
func (b *Batch) SearchSet(k, v []byte) error {
	checkSearchKey(k)
	return b.set(k, v)
}

// SearchDelete deletes one search row.
func (b *Batch) SearchDelete(k []byte) error {
	checkSearchKey(k)
	return b.delete(k)
}

// SearchIter walks the search rows under a prefix. In a Batch only one may be open at a time.
type SearchIter struct {
	it      *badger.Iterator
	prefix  []byte
	reverse bool
}

// SearchIter opens an iterator over the rows under prefix, in key order or, reverse, from the
// last. Values are read only when asked for. Seek positions it; Close it when done.
func (r *Reader) SearchIter(prefix []byte, reverse bool) *SearchIter {
	checkSearchKey(prefix)
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.Reverse = reverse
	opts.PrefetchValues = false
	return &SearchIter{it: r.txn.NewIterator(opts), prefix: prefix, reverse: reverse}
}

// Seek moves to k or, when it is missing, to the next row after it (before it, in reverse).
// A nil k is the first row (the last, in reverse).
func (s *SearchIter) Seek(k []byte) {
	if k == nil {
		k = s.prefix
		if s.reverse {
			k = append(append([]byte{}, s.prefix...), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
		}
	}
	s.it.Seek(k)
}

// Valid reports whether the iterator is on a row under its prefix.
func (s *SearchIter) Valid() bool { return s.it.ValidForPrefix(s.prefix) }

// Next moves to the next row (the previous, in reverse).
func (s *SearchIter) Next() { s.it.Next() }

// Key is the current row's key, valid until the iterator moves.
func (s *SearchIter) Key() []byte { return s.it.Item().Key() }

// Value appends the current row's value to dst.
func (s *SearchIter) Value(dst []byte) ([]byte, error) { return s.it.Item().ValueCopy(dst[:0]) }

// Close releases the iterator.
func (s *SearchIter) Close() { s.it.Close() }

// MessagesAfter calls fn with up to n messages whose ids sort after afterID ("" for the first),
// in id order (the order they were created in: ids are UUIDv7). Building the search index of a
// database that has none reads every message this way, a bounded run per transaction.
func (r *Reader) MessagesAfter(afterID string, n int, fn func(m *svcv1.Message) error) error {
	start := key(prefixMessage, afterID+"\x00")
	count := 0
	return r.scan([]byte{prefixMessage}, start, false, false, func(_ []byte, item *badger.Item) (bool, error) {
		if count == n {
			return false, nil
		}
		count++
		m := new(svcv1.Message)
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, m) }); err != nil {
			return false, err
		}
		return true, fn(m)
	})
}
