package store

import (
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
)

// What the admins' status screen reads (GetServerStatus), kept as the writer's changes happen
// so that reading it costs a few point reads, never a scan of messages or a listing of the
// bucket.
const (
	// prefixActive: member id -> the last UTC day (days since 1970-01-01, 4 bytes
	// big-endian) the member sent a message or had a stream open.
	prefixActive byte = 0xF0
	// prefixDayCount: UTC day (4 bytes big-endian) -> messages sent that day (8 bytes).
	prefixDayCount byte = 0xF1
	// prefixUsage: kind -> the count and bytes of the bucket's objects of that kind, as their
	// rows record them (two 8-byte big-endian numbers); the kind "counted" marks totals that
	// include every row (CountUsage ran).
	prefixUsage byte = 0xF2
)

// The kinds of objects the bucket holds, as prefixUsage names them.
const (
	usageUploads  = "uploads"
	usageEmoji    = "emoji"
	usagePreviews = "previews"
	usageCounted  = "counted"
)

// Usage is the bucket's objects by kind: uploads (files of messages, profiles, settings),
// custom emoji and link previews' images.
type Usage struct {
	Files, FileBytes       int64
	Emoji, EmojiBytes      int64
	Previews, PreviewBytes int64
}

// ActiveDays calls fn with every member's last active day.
func (r *Reader) ActiveDays(fn func(member string, day int32)) error {
	return r.scan([]byte{prefixActive}, nil, false, false, func(k []byte, item *badger.Item) (bool, error) {
		return true, item.Value(func(v []byte) error {
			if len(v) != 4 {
				return errors.New("active day: not 4 bytes")
			}
			fn(string(k[1:]), int32(binary.BigEndian.Uint32(v)))
			return nil
		})
	})
}

// PutActiveDay records the last day a member was active.
func (b *Batch) PutActiveDay(member string, day int32) error {
	return b.set(key(prefixActive, member), binary.BigEndian.AppendUint32(nil, uint32(day)))
}

func dayKey(day int32) []byte {
	return binary.BigEndian.AppendUint32([]byte{prefixDayCount}, uint32(day))
}

// AddMessagesOnDay adds n to the messages sent on day.
func (b *Batch) AddMessagesOnDay(day int32, n int64) error {
	k := dayKey(day)
	cur, err := b.getInt(k)
	if err != nil {
		return err
	}
	return b.set(k, binary.BigEndian.AppendUint64(nil, uint64(cur+n)))
}

// MessagesByDay calls fn with the count of each day from from to to (both included) that has
// one, in order.
func (r *Reader) MessagesByDay(from, to int32, fn func(day int32, n int64)) error {
	return r.scan([]byte{prefixDayCount}, dayKey(from), false, false, func(k []byte, item *badger.Item) (bool, error) {
		day := int32(binary.BigEndian.Uint32(k[1:]))
		if day > to {
			return false, nil
		}
		return true, item.Value(func(v []byte) error {
			if len(v) != 8 {
				return errors.New("day count: not 8 bytes")
			}
			fn(day, int64(binary.BigEndian.Uint64(v)))
			return nil
		})
	})
}

// getInt reads an 8-byte number; 0 when the key is missing.
func (r *Reader) getInt(k []byte) (int64, error) {
	item, err := r.txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	err = item.Value(func(v []byte) error {
		if len(v) != 8 {
			return errors.New("a counter is not 8 bytes")
		}
		n = int64(binary.BigEndian.Uint64(v))
		return nil
	})
	return n, err
}

// usage reads one kind's count and bytes.
func (r *Reader) usage(kind string) (count, bytes int64, err error) {
	item, err := r.txn.Get(key(prefixUsage, kind))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	err = item.Value(func(v []byte) error {
		if len(v) != 16 {
			return errors.New("usage: not 16 bytes")
		}
		count, bytes = int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:]))
		return nil
	})
	return count, bytes, err
}

func (b *Batch) setUsage(kind string, count, bytes int64) error {
	v := binary.BigEndian.AppendUint64(nil, uint64(count))
	return b.set(key(prefixUsage, kind), binary.BigEndian.AppendUint64(v, uint64(bytes)))
}

// addUsage moves one kind's totals by a row put or deleted, in the row's transaction.
func (b *Batch) addUsage(kind string, count, bytes int64) error {
	c, n, err := b.usage(kind)
	if err != nil {
		return err
	}
	return b.setUsage(kind, c+count, n+bytes)
}

// Usage returns the bucket's totals; counted is false until CountUsage has run once on this
// database (they then count only the rows put and deleted since this version).
func (r *Reader) Usage() (u Usage, counted bool, err error) {
	if _, err := r.txn.Get(key(prefixUsage, usageCounted)); err == nil {
		counted = true
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return u, false, err
	}
	if u.Files, u.FileBytes, err = r.usage(usageUploads); err != nil {
		return u, false, err
	}
	if u.Emoji, u.EmojiBytes, err = r.usage(usageEmoji); err != nil {
		return u, false, err
	}
	u.Previews, u.PreviewBytes, err = r.usage(usagePreviews)
	return u, counted, err
}

// ScanUsage adds up the rows of every upload, emoji and preview image.
func (r *Reader) ScanUsage() (u Usage, err error) {
	if u.Files, u.FileBytes, err = r.sumSizes(prefixUpload, func() sized { return new(storepb.UploadRecord) }); err != nil {
		return u, err
	}
	if u.Emoji, u.EmojiBytes, err = r.sumSizes(prefixEmoji, func() sized { return new(storepb.EmojiRecord) }); err != nil {
		return u, err
	}
	u.Previews, u.PreviewBytes, err = r.sumSizes(prefixPreviewImage, func() sized { return new(storepb.PreviewImageRecord) })
	return u, err
}

// sized is a row that records the size of its object.
type sized interface {
	proto.Message
	GetSize() int64
}

// sumSizes counts the rows under prefix and adds up their sizes.
func (r *Reader) sumSizes(prefix byte, newRow func() sized) (count, bytes int64, err error) {
	err = r.scan([]byte{prefix}, nil, false, false, func(_ []byte, item *badger.Item) (bool, error) {
		row := newRow()
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, row) }); err != nil {
			return false, err
		}
		count++
		bytes += row.GetSize()
		return true, nil
	})
	return count, bytes, err
}

// CountUsage sets the totals from the rows (ScanUsage) and marks them counted: once per
// database, in a change of the writer so that no row is put or deleted meanwhile.
func (b *Batch) CountUsage() (Usage, error) {
	u, err := b.ScanUsage()
	if err != nil {
		return u, err
	}
	for _, k := range []struct {
		kind         string
		count, bytes int64
	}{{usageUploads, u.Files, u.FileBytes}, {usageEmoji, u.Emoji, u.EmojiBytes}, {usagePreviews, u.Previews, u.PreviewBytes}} {
		if err := b.setUsage(k.kind, k.count, k.bytes); err != nil {
			return u, err
		}
	}
	return u, b.set(key(prefixUsage, usageCounted), nil)
}
