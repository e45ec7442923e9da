package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
// write is aborted, no new object is left at key, and the error wraps r's error (or
// ctx's), so that callers can tell an http.MaxBytesError from a broken bucket. Once Put
// returns nil the object survives a crash or a power cut (a file bucket syncs it: see
// durable.go), so a row pointing at it may be committed.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	opts := &gcblob.WriterOptions{
		ContentType:    contentType,
		BufferSize:     partSize,
		MaxConcurrency: 1,
	}
	wctx, cancel := b.writeContext(ctx)
	defer cancel()
	src := &source{r: r, ctx: ctx}
	var tmp string
	if b.scheme == "file" {
		opts.BeforeWrite = func(as func(any) bool) error {
			var f *os.File
			if as(&f) {
				tmp = f.Name()
			}
			return nil
		}
	}
	if b.s3 == nil {
		// Cancelling the write's context is how gocloud aborts a write: these drivers
		// check it before making the object visible, so a failed read must cancel
		// before Upload closes the writer. (S3 aborts on the read error itself.)
		src.failed = cancel
	} else {
		opts.BeforeWrite = s3TuneUpload(b.s3)
	}
	var up io.Reader = src
	if br, ok := r.(*bytes.Reader); ok {
		up = memSource{src, br}
	}
	err := b.b.Upload(wctx, key, up, opts)
	if src.err != nil {
		return 0, fmt.Errorf("put %s: %w", key, src.err)
	}
	if err != nil {
		return 0, fmt.Errorf("put %s: %w", key, err)
	}
	if tmp != "" {
		// Durable before the caller commits a row that points at it (durable.go).
		if err := syncObject(absDir(b.dir), finalPath(tmp)); err != nil {
			b.b.Delete(context.WithoutCancel(ctx), key)
			return 0, fmt.Errorf("put %s: sync: %w", key, err)
		}
	}
	return src.n, nil
}

// writeContext is the context a Put writes with. For most buckets it is ctx's. An S3
// upload must outlive ctx a little: cut off mid-request, a part can be stored after the
// abort that was meant to remove it (S3 documents this), so when ctx ends the source
// stops giving bytes, the upload finishes its part in flight and aborts, and only
// s3AbortTimeout later is it cancelled.
func (b *Bucket) writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.s3 == nil {
		return context.WithCancel(ctx)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		select {
		case <-time.After(s3AbortTimeout):
			cancel()
		case <-done:
		}
	})
	return wctx, func() {
		stop()
		close(done)
		cancel()
	}
}

// source is the reader a Put uploads from. It counts the bytes, keeps the first error
// (drivers may report it wrapped beyond recognition, or not at all), and fails as soon
// as the Put's context ends.
type source struct {
	r      io.Reader
	ctx    context.Context
	failed func() // called on the first error, if set
	n      int64
	err    error
}

func (s *source) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if err := s.ctx.Err(); err != nil {
		return 0, s.fail(err)
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	if err != nil && err != io.EOF {
		return n, s.fail(err)
	}
	return n, err
}

// memSource is the source of a Put from bytes already in memory (an emoji, a preview image,
// the start check's object). gocloud copies a plain reader through a 1 MiB buffer of its own
// for every Put, which an idle server kept as RSS after its start check; an io.WriterTo it
// lets write its bytes straight to the bucket's writer.
type memSource struct {
	*source
	b *bytes.Reader
}

func (m memSource) WriteTo(w io.Writer) (int64, error) {
	if err := m.ctx.Err(); err != nil {
		return 0, m.fail(err)
	}
	n, err := m.b.WriteTo(w)
	m.n += n
	return n, err
}

func (s *source) fail(err error) error {
	s.err = err
	if s.failed != nil {
		s.failed()
	}
	return err
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
// that stopped halfway can simply run again. While deletions are held (HoldDeletes), the
// object stays until the hold is released.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	if b.hold.held(key) {
		return nil
	}
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

// partialName matches the temporary file a file bucket writes an object to before renaming
// it into place: "<key>.<hex>.tmp" (gocloud's fileblob). No object of ours is named so.
var partialName = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)

// SweepPartial deletes what a file bucket holds half written: the temporary files of writes
// that never finished because the process writing them died (kill -9, a crash, a power cut),
// and attributes files left without their object by a write or a delete so cut.
// A write that fails in a live process removes its own. Call it only while no write can be
// under way, before the server takes requests. Other buckets keep no partial objects: it
// does nothing there. It returns how many files it deleted.
func (b *Bucket) SweepPartial(ctx context.Context) (int, error) {
	if b.scheme != "file" {
		return 0, nil
	}
	var partial []string
	err := b.List(ctx, "", func(key string, _ int64, _ time.Time) error {
		if partialName.MatchString(key) {
			partial = append(partial, key)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for i, key := range partial {
		if err := b.Delete(ctx, key); err != nil && !errors.Is(err, ErrNotFound) {
			return i, err
		}
	}
	attrs, err := b.sweepLoneAttrs()
	return len(partial) + attrs, err
}

// sweepLoneAttrs deletes the attributes files ("<path>.attrs", which fileblob writes before it
// renames the object into place, and deletes after the object) whose object is not there: a
// process killed between the two steps of a write or of a delete leaves one. Listings never
// show them, so the orphan sweep cannot see them.
func (b *Bucket) sweepLoneAttrs() (int, error) {
	n := 0
	err := filepath.WalkDir(b.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".attrs") {
			return nil
		}
		if _, err := os.Lstat(strings.TrimSuffix(path, ".attrs")); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	return n, err
}
