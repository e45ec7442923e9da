package store

import (
	"errors"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// Link preview key prefixes (0xA0-0xAF are the previews'; see doc.go).
const (
	prefixPreview       byte = 0xA0
	prefixPreviewExpiry byte = 0xA1
	prefixPreviewImage  byte = 0xA2
)

// URLHash is the SHA-256 of a normalized URL: the key of its cached preview.
type URLHash [32]byte

// Preview reads the cached preview of a URL; ErrNotFound if there is none (expired or not).
func (r *Reader) Preview(h URLHash) (*storepb.PreviewRecord, error) {
	p := new(storepb.PreviewRecord)
	if err := r.getProto(previewKey(h), p); err != nil {
		return nil, err
	}
	return p, nil
}

// PutPreview writes a URL's cached preview and keeps the expiry index in step. old is the
// row it replaces (nil if none), whose index row goes.
func (b *Batch) PutPreview(h URLHash, p, old *storepb.PreviewRecord) error {
	if old != nil {
		if err := b.delete(previewExpiryKey(old.GetExpiresAtMs(), h)); err != nil {
			return err
		}
	}
	if err := b.putProto(previewKey(h), p); err != nil {
		return err
	}
	return b.set(previewExpiryKey(p.GetExpiresAtMs(), h), nil)
}

// DeletePreview deletes a URL's cached preview and its index row (not its image's row).
func (b *Batch) DeletePreview(h URLHash, p *storepb.PreviewRecord) error {
	if err := b.delete(previewKey(h)); err != nil {
		return err
	}
	return b.delete(previewExpiryKey(p.GetExpiresAtMs(), h))
}

// ExpiredPreviews calls fn with up to limit URLs whose cached preview expired before
// beforeMs, soonest expired first.
func (r *Reader) ExpiredPreviews(beforeMs int64, limit int, fn func(h URLHash)) error {
	n := 0
	return r.scan([]byte{prefixPreviewExpiry}, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if n == limit || len(k) != 1+8+len(URLHash{}) || getSeq(k[:1+8]) >= beforeMs {
			return false, nil
		}
		fn(URLHash(k[1+8:]))
		n++
		return true, nil
	})
}

// PreviewImage reads a stored preview image's row; ErrNotFound if there is none.
func (r *Reader) PreviewImage(id string) (*storepb.PreviewImageRecord, error) {
	p := new(storepb.PreviewImageRecord)
	if err := r.getProto(key(prefixPreviewImage, id), p); err != nil {
		return nil, err
	}
	return p, nil
}

// PutPreviewImage writes a stored preview image's row.
func (b *Batch) PutPreviewImage(p *storepb.PreviewImageRecord) error {
	if err := b.addUsage(usagePreviews, 1, p.GetSize()); err != nil {
		return err
	}
	return b.putProto(key(prefixPreviewImage, p.GetId()), p)
}

// DeletePreviewImage deletes a stored preview image's row.
func (b *Batch) DeletePreviewImage(id string) error {
	p, err := b.PreviewImage(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := b.addUsage(usagePreviews, -1, -p.GetSize()); err != nil {
		return err
	}
	return b.delete(key(prefixPreviewImage, id))
}

func previewKey(h URLHash) []byte {
	return append([]byte{prefixPreview}, h[:]...)
}

// previewExpiryKey is prefix, expires_at_ms (8 bytes, big-endian), URL hash: the cached
// previews by expiry.
func previewExpiryKey(expiresMs int64, h URLHash) []byte {
	k := make([]byte, 0, 1+8+len(h))
	k = append(k, prefixPreviewExpiry)
	k = putSeq(k, expiresMs)
	return append(k, h[:]...)
}
