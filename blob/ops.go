package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned (wrapped) by Stat and Open, and by reads of an Object whose
// bytes vanished, when there is no object at the key.
var ErrNotFound = errors.New("no such object")

// Info describes a stored object.
type Info struct {
	Size        int64
	ModTime     time.Time
	ContentType string
}

// partSize is the chunk in which uploads go to services that take them in parts (S3
// multipart, GCS resumable, Azure blocks): 5 MiB is S3's smallest part. With one part in
// flight and one being filled, an upload holds about three parts at most, whatever its size.
const partSize = 5 << 20

// Put streams r into the object at key and returns the number of bytes stored. An empty
// contentType stores application/octet-stream: the bucket never guesses a type (a guessed
// text/html served from a bucket URL would render). If reading r fails, or ctx ends, the
// write is aborted and no new object is left at key.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	// Cancelling this context is how gocloud aborts a write: every driver checks it
	// before making the object visible.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := &gcblob.WriterOptions{
		ContentType:    contentType,
		BufferSize:     partSize,
		MaxConcurrency: 1,
	}
	if b.s3 != nil {
		opts.BeforeWrite = s3TuneUpload(b.s3)
	}
	w, err := b.b.NewWriter(ctx, key, opts)
	if err != nil {
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		cancel()
		_ = w.Close()
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	return n, nil
}

// Stat describes the object at key, or returns an error wrapping ErrNotFound.
func (b *Bucket) Stat(ctx context.Context, key string) (Info, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return Info{}, wrap("stat", key, err)
	}
	return Info{Size: a.Size, ModTime: a.ModTime, ContentType: a.ContentType}, nil
}

// Delete removes the object at key. A missing object is not an error, so that a sweep
// that stopped halfway can simply run again.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	err := b.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in key order on the
// buckets we test. An error from fn stops the listing and is returned as is. Objects
// written during a listing may or may not be seen.
func (b *Bucket) List(ctx context.Context, prefix string, fn func(key string, size int64, modTime time.Time) error) error {
	it := b.b.List(&gcblob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", prefix, err)
		}
		if o.IsDir {
			continue
		}
		if err := fn(o.Key, o.Size, o.ModTime); err != nil {
			return err
		}
	}
}

// wrap names the operation and key in an error, and turns the driver's not-found into
// ErrNotFound.
func wrap(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	}
	return fmt.Errorf("%s %s: %w", op, key, err)
}
