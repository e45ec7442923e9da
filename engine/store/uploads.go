package store

import (
	"errors"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// Upload reads an upload's row; ErrNotFound if there is none.
func (r *Reader) Upload(id string) (*storepb.UploadRecord, error) {
	u := new(storepb.UploadRecord)
	if err := r.getProto(key(prefixUpload, id), u); err != nil {
		return nil, err
	}
	return u, nil
}

// PutUpload writes an upload's row and keeps the unused index in step: an unused upload is
// listed there by its time, one in use is not.
func (b *Batch) PutUpload(u *storepb.UploadRecord) error {
	old, err := b.Upload(u.GetId())
	switch {
	case errors.Is(err, ErrNotFound):
		err = b.addUsage(usageUploads, 1, u.GetSize())
	case err == nil && old.GetSize() != u.GetSize():
		err = b.addUsage(usageUploads, 0, u.GetSize()-old.GetSize())
	}
	if err != nil {
		return err
	}
	if err := b.putProto(key(prefixUpload, u.GetId()), u); err != nil {
		return err
	}
	ix := unusedKey(u)
	if u.GetUse() == storepb.UploadUse_UPLOAD_USE_UNSPECIFIED {
		return b.set(ix, nil)
	}
	return b.delete(ix)
}

// DeleteUpload deletes an upload's row and its index row.
func (b *Batch) DeleteUpload(u *storepb.UploadRecord) error {
	if err := b.addUsage(usageUploads, -1, -u.GetSize()); err != nil {
		return err
	}
	if err := b.delete(key(prefixUpload, u.GetId())); err != nil {
		return err
	}
	return b.delete(unusedKey(u))
}

// UnusedBefore calls fn with the ids of up to limit unused uploads created before beforeMs,
// oldest first.
func (r *Reader) UnusedBefore(beforeMs int64, limit int, fn func(id string)) error {
	n := 0
	return r.scan([]byte{prefixUnused}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if n == limit || len(k) < 1+8 || getSeq(k[:1+8]) >= beforeMs {
			return false, nil
		}
		fn(string(k[1+8:]))
		n++
		return true, nil
	})
}

// unusedKey is prefix, created_at_ms (8 bytes, big-endian), id: the unused uploads by age.
func unusedKey(u *storepb.UploadRecord) []byte {
	k := make([]byte, 0, 1+8+len(u.GetId()))
	k = append(k, prefixUnused)
	k = putSeq(k, u.GetCreatedAtMs())
	return append(k, u.GetId()...)
}
