package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gcblob "gocloud.dev/blob"
)

// Object is an open object: its attributes, and an io.ReadSeekCloser over its bytes for
// http.ServeContent. Seek only records the offset; Read opens a range read at the offset
// when it needs one, so answering HEAD, a 304 or a Range costs no bytes that are not sent.
// An Object is not safe for concurrent use.
type Object struct {
	b    *gcblob.Bucket
	ctx  context.Context
	key  string
	info Info
	opts *gcblob.ReaderOptions

	off    int64          // where the next Read starts
	r      *gcblob.Reader // the open range read, or nil
	rpos   int64          // where r's next byte is
	closed bool
}

// Open opens the object at key, or returns an error wrapping ErrNotFound. ctx is used by
// every read of the Object, so it must last as long as the Object (a request's context).
// Objects are never rewritten under a key, so the attributes read here stay true.
func (b *Bucket) Open(ctx context.Context, key string) (*Object, error) {
	info, err := b.Stat(ctx, key)
	if err != nil {
		return nil, err
	}
	o := &Object{b: b.b, ctx: ctx, key: key, info: info}
	if b.s3 != nil {
		o.opts = &gcblob.ReaderOptions{BeforeRead: s3QuietRead}
	}
	return o, nil
}

// Size is the object's length in bytes.
func (o *Object) Size() int64 { return o.info.Size }

// ModTime is when the object was written.
func (o *Object) ModTime() time.Time { return o.info.ModTime }

// ContentType is the type the object was stored with.
func (o *Object) ContentType() string { return o.info.ContentType }

// Seek sets where the next Read starts. It never touches the bucket. An offset past the
// end is allowed; reading there gives io.EOF.
func (o *Object) Seek(offset int64, whence int) (int64, error) {
	if o.closed {
		return 0, errClosedObject
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += o.off
	case io.SeekEnd:
		offset += o.info.Size
	default:
		return 0, fmt.Errorf("seek %s: invalid whence %d", o.key, whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("seek %s: negative offset %d", o.key, offset)
	}
	o.off = offset
	return offset, nil
}

// Read reads from the current offset, opening a range read there if the open one (if
// any) is elsewhere.
func (o *Object) Read(p []byte) (int, error) {
	if o.closed {
		return 0, errClosedObject
	}
	if o.off >= o.info.Size {
		// Asking a service for a range at or past the end is an error (416), not io.EOF.
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if o.r != nil && o.rpos != o.off {
		o.closeReader()
	}
	if o.r == nil {
		r, err := o.b.NewRangeReader(o.ctx, o.key, o.off, -1, o.opts)
		if err != nil {
			return 0, wrap("read", o.key, err)
		}
		o.r, o.rpos = r, o.off
	}
	n, err := o.r.Read(p)
	o.off += int64(n)
	o.rpos += int64(n)
	if err == io.EOF && o.off < o.info.Size {
		// The object is shorter than it was at Open: never pass that off as the end.
		return n, fmt.Errorf("read %s: %w", o.key, io.ErrUnexpectedEOF)
	}
	if err != nil && err != io.EOF {
		return n, wrap("read", o.key, err)
	}
	return n, err
}

// Close ends any open range read. It is safe to call more than once.
func (o *Object) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	if o.r == nil {
		return nil
	}
	err := o.r.Close()
	o.r = nil
	return err
}

// closeReader drops the open range read when a Seek moved away from it. Its error is of
// no interest: nothing more is read from it.
func (o *Object) closeReader() {
	_ = o.r.Close()
	o.r = nil
}

var errClosedObject = errors.New("object is closed")
