package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"hearth/blob"
	"hearth/engine/sandbox"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Upload limits (API.md, DECISIONS.md). A megabyte is 1,000,000 bytes.
const (
	// MaxUploadBytes is the largest file POST /upload takes.
	MaxUploadBytes = 25_000_000
	// uploadTTL is how long an upload may stay unused before it is deleted.
	uploadTTL = 24 * time.Hour
	// uploadBurst uploads at once, then one every 2 s: 30 a minute per member.
	uploadBurst = 30
)

var uploadRate = rate.Every(2 * time.Second)

// ErrFileTooLarge is the error of an upload over MaxUploadBytes.
var ErrFileTooLarge = &Error{Code: CodeTooLarge, Msg: "the file is larger than 25 MB (25,000,000 bytes)"}

// octetStream is the type of a file the sandbox could not read: served as a download.
const octetStream = "application/octet-stream"

// heads are the buffers that hold the first sandbox.HeadSize bytes of an upload while the
// sandbox reads them, kept between uploads so that the heap stays flat however many arrive.
var heads = sync.Pool{New: func() any { b := make([]byte, sandbox.HeadSize); return &b }}

// Upload stores a file for the caller and returns it as an unused Attachment, with a URL only
// the caller is given. body is read once, as it arrives: its head goes to the sandbox for the
// content type and image size, then the whole file streams to the bucket, and no more than
// MaxUploadBytes are ever read (ErrFileTooLarge; nothing is kept). A read error of body that is
// an *Error is returned as is; any other means the body was cut short. The row is committed
// only after the object is stored, so a crash in between leaves an orphan object for the
// cleanup, never a row without its file.
func (e *Engine) Upload(ctx context.Context, c Caller, name string, body io.Reader) (*svcv1.Attachment, error) {
	if e.opts.Bucket == nil || e.opts.Signer == nil || e.opts.Sandbox == nil {
		return nil, &Error{Code: CodeUnavailable, Msg: "this server takes no file uploads"}
	}
	if _, err := e.snap.Load().caller(c); err != nil {
		return nil, err
	}
	if wait := e.limits.allow("upload:"+c.ID, uploadRate, uploadBurst); wait > 0 {
		return nil, rateLimited("uploading files", wait)
	}
	if err := e.diskRoom(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, invalid("the file has no name")
	}
	rec, err := e.storeFile(ctx, name, body)
	if err != nil {
		return nil, err
	}
	rec.OwnerId = c.ID
	id := rec.GetId()
	_, err = submit(e, func(tx *Tx) (struct{}, error) {
		if _, err := tx.Snap().caller(c); err != nil {
			return struct{}{}, err
		}
		rec.CreatedAtMs = tx.NowMs()
		return struct{}{}, tx.mutate().PutUpload(rec)
	})
	if err != nil {
		// A commit of unknown outcome may have stored the row: its file stays, for the sweep
		// to judge once a restart has settled it (commitfail.go).
		if !errors.Is(err, errOutcomeUnknown) {
			e.deleteObjects([]string{id})
		}
		return nil, err
	}
	a := attachmentOf(rec)
	a.Url = e.opts.Signer.URL(a.Id, a.Name, e.now())
	return a, nil
}

// storeFile reads a file as an upload does: its head to the sandbox, the whole of it (at most
// MaxUploadBytes) to the bucket under a new id. It returns the upload's row, not yet written
// and without owner or time: the caller commits it, or deletes the object if it cannot.
func (e *Engine) storeFile(ctx context.Context, name string, body io.Reader) (*storepb.UploadRecord, error) {
	src := &limitedReader{r: body, max: MaxUploadBytes}
	buf := heads.Get().(*[]byte)
	defer heads.Put(buf)
	n, _ := io.ReadFull(src, *buf)
	if src.err != nil {
		return nil, readFailure(ctx, src.err)
	}
	head := (*buf)[:n]
	info, err := e.inspect(ctx, head)
	if err != nil {
		return nil, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	size, err := e.opts.Bucket.Put(ctx, blob.FileKey(id), io.MultiReader(bytes.NewReader(head), src), info.ContentType)
	if err != nil {
		if src.err != nil {
			return nil, readFailure(ctx, src.err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e.log.Error("storing an upload", "err", err)
		return nil, &Error{Code: CodeInternal, Msg: "the file could not be stored"}
	}
	return &storepb.UploadRecord{
		Id:          id,
		Name:        blob.SafeName(name),
		ContentType: info.ContentType,
		Size:        size,
		Width:       info.Width,
		Height:      info.Height,
	}, nil
}

// inspect asks the sandbox what the head of a file is. A file the sandbox cannot read (it
// crashed, looped or answered nonsense on it) is stored all the same, as a download of
// unknown type: an unreadable file is the file's problem, not the upload's.
func (e *Engine) inspect(ctx context.Context, head []byte) (sandbox.Info, error) {
	info, err := e.opts.Sandbox.Inspect(ctx, head)
	switch {
	case err == nil:
		return info, nil
	case errors.Is(err, sandbox.ErrUnreadable):
		e.log.Warn("an upload was unreadable in the sandbox; stored as application/octet-stream", "err", err)
		return sandbox.Info{ContentType: octetStream}, nil
	case ctx.Err() != nil:
		return sandbox.Info{}, ctx.Err()
	case errors.Is(err, sandbox.ErrClosed):
		return sandbox.Info{}, ErrClosed
	}
	e.log.Error("inspecting an upload", "err", err)
	return sandbox.Info{}, &Error{Code: CodeInternal, Msg: "the file could not be inspected"}
}

// readFailure is the error of an upload whose body failed: too large, an *Error from the
// caller's reader, the caller going away, or a body cut short.
func readFailure(ctx context.Context, err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		return ee
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return invalid("the upload was cut short")
}

// limitedReader reads at most max bytes; the byte after them is an error (ErrFileTooLarge),
// so an upload over the limit is refused without reading the rest of it. It keeps its first
// error, so that the upload can tell its body failing from the bucket failing.
type limitedReader struct {
	r   io.Reader
	max int64
	n   int64
	err error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if room := l.max - l.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.max {
		l.err = ErrFileTooLarge
		return 0, l.err
	}
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// attachmentOf is an upload as the API shows it, without its url.
func attachmentOf(u *storepb.UploadRecord) *svcv1.Attachment {
	return &svcv1.Attachment{
		Id:          u.GetId(),
		Name:        u.GetName(),
		ContentType: u.GetContentType(),
		Size:        u.GetSize(),
		Width:       u.GetWidth(),
		Height:      u.GetHeight(),
	}
}
