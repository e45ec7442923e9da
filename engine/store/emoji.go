package store

import (
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// Custom emoji keys (0x90-0x9F belong to emoji). Documented in doc.go.
const (
	prefixEmoji        byte = 0x90
	prefixEmojiName    byte = 0x91
	prefixEmojiVersion byte = 0x92
)

// Emoji reads an emoji's row by id; ErrNotFound if there is none.
func (r *Reader) Emoji(id string) (*storepb.EmojiRecord, error) {
	e := new(storepb.EmojiRecord)
	if err := r.getProto(key(prefixEmoji, id), e); err != nil {
		return nil, err
	}
	return e, nil
}

// EmojiIDByName returns the id of the emoji called name; ErrNotFound if there is none.
func (r *Reader) EmojiIDByName(name string) (string, error) {
	item, err := r.txn.Get(key(prefixEmojiName, name))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	return string(v), err
}

// EmojiNames calls fn with the name and id of every emoji, sorted by name.
func (r *Reader) EmojiNames(fn func(name, id string) error) error {
	return r.scan([]byte{prefixEmojiName}, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		name := string(k[1:])
		err := item.Value(func(v []byte) error { return fn(name, string(v)) })
		return err == nil, err
	})
}

// EmojiVersion is the seq of the event of the latest change to the emoji, 0 before any.
func (r *Reader) EmojiVersion() (int64, error) {
	item, err := r.txn.Get([]byte{prefixEmojiVersion})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var v int64
	err = item.Value(func(b []byte) error {
		if len(b) != 8 {
			return errors.New("emoji version: not 8 bytes")
		}
		v = int64(binary.BigEndian.Uint64(b))
		return nil
	})
	return v, err
}

// SetEmojiVersion records the seq of the event of a change to the emoji.
func (b *Batch) SetEmojiVersion(seq int64) error {
	return b.set([]byte{prefixEmojiVersion}, putSeq(nil, seq))
}

// PutEmoji writes a new emoji's row and its name. The caller has checked the name is free.
func (b *Batch) PutEmoji(e *storepb.EmojiRecord) error {
	if err := b.addUsage(usageEmoji, 1, e.GetSize()); err != nil {
		return err
	}
	if err := b.putProto(key(prefixEmoji, e.GetId()), e); err != nil {
		return err
	}
	return b.set(key(prefixEmojiName, e.GetName()), []byte(e.GetId()))
}

// DeleteEmoji deletes an emoji's row and its name.
func (b *Batch) DeleteEmoji(e *storepb.EmojiRecord) error {
	if err := b.addUsage(usageEmoji, -1, -e.GetSize()); err != nil {
		return err
	}
	if err := b.delete(key(prefixEmoji, e.GetId())); err != nil {
		return err
	}
	return b.delete(key(prefixEmojiName, e.GetName()))
}
