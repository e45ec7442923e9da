package engine

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"hearth/blob"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// redirectTTL is how long a bucket URL handed out by -files-redirect works: long enough to
// follow the redirect and fetch, short because it is a bearer of the file.
const redirectTTL = 5 * time.Minute

// File is a file whose signed URL checked out, ready to be served.
type File struct {
	ID          string
	Name        string
	ContentType string
	Size        int64
	ModTime     time.Time
	// MaxAge is how long the URL stays valid from now: how long a browser may cache the file.
	MaxAge time.Duration

	bucket *blob.Bucket
}

// OpenFile checks a signed file URL (GET /files/{id}/{name}?exp=&sig=) and finds its file.
// The signature is checked first, in constant time, before anything is looked up, so an
// unsigned request learns nothing of which files exist. A wrong, missing, moved or expired
// exp or sig is permission_denied; a file deleted since the URL was issued is not_found.
func (e *Engine) OpenFile(ctx context.Context, id, exp, sig string) (*File, error) {
	if e.opts.Signer == nil || e.opts.Bucket == nil {
		return nil, notFound("this server keeps no files")
	}
	now := e.now()
	if err := e.opts.Signer.Check(id, exp, sig, now); err != nil {
		if errors.Is(err, blob.ErrURLExpired) {
			return nil, denied("this file link has expired; fetch the message again for a fresh one")
		}
		if errors.Is(err, blob.ErrURLMissing) {
			return nil, denied("this file link lacks its exp and sig parameters")
		}
		return nil, denied("this file link is not valid")
	}
	var u *storepb.UploadRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		u, err = r.Upload(id)
		return err
	})
	if isNotFound(err) {
		return nil, notFound("this file was deleted")
	}
	if err != nil {
		return nil, err
	}
	expires, _ := strconv.ParseInt(exp, 10, 64) // Check accepted it
	return e.fileOf(u, time.Unix(expires, 0).Sub(now)), nil
}

// fileOf is an upload as a File to serve, cached for maxAge.
func (e *Engine) fileOf(u *storepb.UploadRecord, maxAge time.Duration) *File {
	return &File{
		ID:          u.GetId(),
		Name:        u.GetName(),
		ContentType: u.GetContentType(),
		Size:        u.GetSize(),
		ModTime:     time.UnixMilli(u.GetCreatedAtMs()),
		MaxAge:      maxAge,
		bucket:      e.opts.Bucket,
	}
}

// Open opens the file's bytes for reading and seeking (http.ServeContent). ctx is used by
// every read, so it must last as long as the reads: the request's.
func (f *File) Open(ctx context.Context) (io.ReadSeekCloser, error) {
	o, err := f.bucket.Open(ctx, blob.FileKey(f.ID))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, notFound("this file was deleted")
	}
	return o, err
}

// RedirectURL is the bucket's own short-lived URL for the file, for -files-redirect; ok is
// false where the bucket cannot make one (then serve it through Open). The response to it
// carries the stored content type and the given Content-Disposition, and no other header,
// so pass an attachment disposition for anything a browser should not render.
func (f *File) RedirectURL(ctx context.Context, contentDisposition string) (string, bool, error) {
	return f.bucket.SignedGetURL(ctx, blob.FileKey(f.ID), redirectTTL, contentDisposition)
}
