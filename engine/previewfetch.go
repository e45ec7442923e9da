package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"time"

	"hearth/blob"
	"hearth/engine/outbound"
	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

const (
	// previewPageBytes is how much of a page is read (1 MB); the rest is never fetched.
	previewPageBytes = sandbox.MaxPageBody
	// previewImageBytes is the largest preview image stored (5 MB); a larger one is left out.
	previewImageBytes = 5_000_000
)

// previewImageTypes are the images a preview may show: what browsers show everywhere, and
// nothing that runs scripts (SVG).
var previewImageTypes = map[string]bool{
	"image/png":  true,
	"image/jpeg": true,
	"image/gif":  true,
	"image/webp": true,
	"image/avif": true,
}

const (
	pageAccept  = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
	imageAccept = "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1"
)

// fetchPreview fetches a link's page (and its image), and caches the answer. Its only error
// is ErrClosed: whatever else goes wrong is the link's "no preview", cached for an hour when
// the page is to blame and not cached at all when the server is.
func (e *Engine) fetchPreview(l link) (*storepb.PreviewRecord, error) {
	ctx := e.ctx
	// A fetch that finished between the caller's read of the cache and this one's start.
	if rec, err := e.freshPreview(l.key); err != nil || rec != nil {
		return rec, err
	}
	p := e.previews
	select {
	case p.fetch <- struct{}{}:
		defer func() { <-p.fetch }()
	case <-ctx.Done():
		return nil, ErrClosed
	}
	rec := &storepb.PreviewRecord{Url: l.fetch}
	ttl := previewTTL
	var img *storepb.PreviewImageRecord
	page, err := e.readPage(ctx, l.fetch)
	var fault *serverFault
	switch {
	case ctx.Err() != nil || errors.Is(err, ErrClosed):
		return nil, ErrClosed
	case errors.As(err, &fault):
		e.log.Error("reading a link preview", "url", l.fetch, "err", fault.err)
		return rec, nil
	case err != nil:
		rec.Failure, ttl = err.Error(), previewFailTTL
	case page.Title == "" && page.Description == "":
		rec.Failure, ttl = "the page has no title or description", previewFailTTL
	default:
		rec.Ok = true
		rec.Title, rec.Description, rec.SiteName = page.Title, page.Description, page.SiteName
		if page.Image == "" {
			break
		}
		img, err = e.storePreviewImage(ctx, page.Image)
		switch {
		case ctx.Err() != nil || errors.Is(err, ErrClosed):
			return nil, ErrClosed
		case errors.As(err, &fault):
			// The preview without its image, until the server can store one.
			e.log.Error("storing a link preview image", "url", page.Image, "err", fault.err)
			rec.Failure, ttl = "image: "+fault.Error(), previewFailTTL
		case err != nil:
			rec.Failure = "image: " + err.Error()
		default:
			rec.ImageId = img.GetId()
		}
	}
	if rec.Failure != "" {
		e.log.Debug("link preview", "url", l.fetch, "ok", rec.Ok, "why not", rec.Failure)
	}
	drops, err := submitPreview(e, l.key, rec, img, ttl)
	if err != nil {
		if img != nil && !errors.Is(err, errOutcomeUnknown) {
			e.deletePreviewObjects([]string{img.GetId()})
		}
		if errors.Is(err, ErrClosed) {
			return nil, ErrClosed
		}
		e.log.Error("caching a link preview", "err", err)
		return &storepb.PreviewRecord{Url: l.fetch}, nil
	}
	e.deletePreviewObjects(drops)
	return rec, nil
}

// serverFault is a failure of the server rather than of the page (the sandbox could not
// start, the bucket failed): not cached, logged as an error.
type serverFault struct{ err error }

func (f *serverFault) Error() string { return "a failure of the server" }

// freshPreview reads a link's cached answer if it is still fresh.
func (e *Engine) freshPreview(key store.URLHash) (*storepb.PreviewRecord, error) {
	var rec *storepb.PreviewRecord
	err := e.db.View(func(r *store.Reader) error {
		got, err := r.Preview(key)
		if err == nil && e.now().UnixMilli() < got.GetExpiresAtMs() {
			rec = got
		}
		if isNotFound(err) {
			err = nil
		}
		return err
	})
	return rec, err
}

// submitPreview caches a fetch's answer (and its image's row) in one change, dropping the
// row of the image of the answer it replaces: the change returns that image's id, whose
// object is deleted after the commit. Its times are the batch's, on the engine's clock.
func submitPreview(e *Engine, key store.URLHash, rec *storepb.PreviewRecord, img *storepb.PreviewImageRecord, ttl time.Duration) ([]string, error) {
	return submit(e, func(tx *Tx) ([]string, error) {
		rec.FetchedAtMs = tx.NowMs()
		rec.ExpiresAtMs = tx.Now().Add(ttl).UnixMilli()
		old, err := tx.read().Preview(key)
		if err != nil && !isNotFound(err) {
			return nil, err
		}
		var drops []string
		if old != nil && old.GetImageId() != "" {
			if err := tx.mutate().DeletePreviewImage(old.GetImageId()); err != nil {
				return nil, err
			}
			drops = append(drops, old.GetImageId())
		}
		if img != nil {
			img.CreatedAtMs, img.ExpiresAtMs = rec.FetchedAtMs, rec.ExpiresAtMs
			if err := tx.mutate().PutPreviewImage(img); err != nil {
				return nil, err
			}
		}
		return drops, tx.mutate().PutPreview(key, rec, old)
	})
}

// readPage fetches a page and reads its preview in the sandbox. Its errors say why there is
// no preview, in words for the log.
func (e *Engine) readPage(ctx context.Context, u string) (sandbox.Preview, error) {
	res, err := e.previews.client.Get(ctx, u, pageAccept, previewPageBytes)
	if err != nil {
		return sandbox.Preview{}, fetchFailure(err)
	}
	if res.StatusCode != 200 {
		return sandbox.Preview{}, fmt.Errorf("the page answered %d", res.StatusCode)
	}
	ct := res.Header.Get("Content-Type")
	if t, _, _ := mime.ParseMediaType(ct); t != "text/html" && t != "application/xhtml+xml" {
		return sandbox.Preview{}, fmt.Errorf("not an HTML page (Content-Type %q)", ct)
	}
	// The final URL is the page's doing (a redirect): one the sandbox does not take is the
	// page's failure, not the server's.
	final := res.URL.String()
	if len(final) > sandbox.MaxPageURL {
		return sandbox.Preview{}, fmt.Errorf("the page's final URL is over %d bytes", sandbox.MaxPageURL)
	}
	p := e.previews
	select {
	case p.parse <- struct{}{}:
		defer func() { <-p.parse }()
	case <-ctx.Done():
		return sandbox.Preview{}, ctx.Err()
	}
	page, err := e.opts.Sandbox.Preview(ctx, sandbox.Page{URL: final, ContentType: ct, Body: res.Body})
	if err != nil {
		return sandbox.Preview{}, sandboxFailure(err)
	}
	return page, nil
}

// storePreviewImage fetches an image, checks in the sandbox that it is one of
// previewImageTypes, and stores it under a fresh random id. The row is the caller's to write.
func (e *Engine) storePreviewImage(ctx context.Context, u string) (*storepb.PreviewImageRecord, error) {
	res, err := e.previews.client.Get(ctx, u, imageAccept, previewImageBytes)
	if err != nil {
		return nil, fetchFailure(err)
	}
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("the image answered %d", res.StatusCode)
	}
	if res.Truncated {
		return nil, errors.New("the image is larger than 5 MB")
	}
	head := res.Body
	if len(head) > sandbox.HeadSize {
		head = head[:sandbox.HeadSize]
	}
	info, err := e.opts.Sandbox.Inspect(ctx, head)
	if err != nil {
		return nil, sandboxFailure(err)
	}
	if !previewImageTypes[info.ContentType] || info.Width == 0 {
		return nil, fmt.Errorf("not a PNG, JPEG, GIF, WebP or AVIF image (sniffed %s)", info.ContentType)
	}
	// Every client draws a preview's image unasked, as it does a settings image: the same
	// bound keeps a few bytes claiming a huge picture from costing each of them gigabytes.
	if info.Width > imageSideMax || info.Height > imageSideMax {
		return nil, fmt.Errorf("the image is %dx%d pixels; at most %d on a side", info.Width, info.Height, imageSideMax)
	}
	if err := e.diskRoom(); err != nil {
		return nil, &serverFault{err}
	}
	var raw [16]byte
	rand.Read(raw[:])
	id := hex.EncodeToString(raw[:])
	size, err := e.opts.Bucket.Put(ctx, blob.PreviewKey(id), bytes.NewReader(res.Body), info.ContentType)
	if err != nil {
		return nil, &serverFault{err}
	}
	return &storepb.PreviewImageRecord{Id: id, ContentType: info.ContentType, Size: size}, nil
}

// fetchFailure says why a request failed, without the URL (the log line has it).
func fetchFailure(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var te interface{ Timeout() bool }
	switch {
	case errors.Is(err, outbound.ErrRefused):
		return fmt.Errorf("refused: %w", err)
	case errors.As(err, &te) && te.Timeout():
		return fmt.Errorf("no answer within %v", previewFetchTimeout)
	}
	return err
}

// sandboxFailure says why the sandbox gave no answer: the page's fault when it made the
// guest fail, the engine closing when the sandbox is closed, the server's otherwise.
func sandboxFailure(err error) error {
	switch {
	case errors.Is(err, sandbox.ErrUnreadable):
		return err
	case errors.Is(err, sandbox.ErrClosed):
		return ErrClosed
	}
	return &serverFault{err}
}

// previewImagePath is where the server serves a preview image, relative to its base URL.
func previewImagePath(id string) string { return "/previews/" + id }
