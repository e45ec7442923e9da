package engine

import (
	"context"
	"time"

	"hearth/blob"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// The lifecycle of cached previews and their images: removed once expired by the jobs loop,
// served by the server until then.

// expirePreviewBatch bounds the cached previews one cleanup change deletes.
const expirePreviewBatch = 256

// ExpirePreviews deletes the cached previews that have expired, with their images; the jobs
// loop runs it every minute, on the engine's clock.
func (e *Engine) ExpirePreviews() error {
	for {
		type expired struct {
			n     int
			drops []string
		}
		res, err := submit(e, func(tx *Tx) (expired, error) {
			var keys []store.URLHash
			err := tx.read().ExpiredPreviews(tx.NowMs()+1, expirePreviewBatch, func(h store.URLHash) { keys = append(keys, h) })
			if err != nil {
				return expired{}, err
			}
			var out expired
			for _, h := range keys {
				rec, err := tx.read().Preview(h)
				if err != nil {
					return expired{}, err
				}
				if err := tx.mutate().DeletePreview(h, rec); err != nil {
					return expired{}, err
				}
				if id := rec.GetImageId(); id != "" {
					if err := tx.mutate().DeletePreviewImage(id); err != nil {
						return expired{}, err
					}
					out.drops = append(out.drops, id)
				}
			}
			out.n = len(keys)
			return out, nil
		})
		if err != nil {
			return err
		}
		e.deletePreviewObjects(res.drops)
		if res.n < expirePreviewBatch {
			return nil
		}
	}
}

// deletePreviewObjects deletes the images whose rows a committed change deleted.
func (e *Engine) deletePreviewObjects(ids []string) {
	e.deleteObjectsUnder(blob.PreviewKey, "a link preview image", ids)
}

// SweepPreviewOrphans deletes the objects under previews/ that have no row and are older
// than OrphanAge (left by a crash between storing an image and committing its row), and
// returns how many it deleted. As SweepOrphans, on the wall clock.
func (e *Engine) SweepPreviewOrphans(ctx context.Context) (int, error) {
	if e.opts.Bucket == nil {
		return 0, nil
	}
	return e.sweepPrefix(ctx, blob.PreviewKey(""), func(r *store.Reader, id string) error {
		_, err := r.PreviewImage(id)
		return err
	})
}

// previewJobs is the previews' part of the jobs loop.
func (e *Engine) previewJobs(tick int) {
	if err := e.ExpirePreviews(); err != nil && CodeOf(err) != CodeUnavailable {
		e.log.Error("deleting expired link previews", "err", err)
	}
	if tick%orphanEvery != 0 {
		return
	}
	n, err := e.SweepPreviewOrphans(e.ctx)
	if err != nil && e.ctx.Err() == nil {
		e.log.Error("sweeping link preview images without a row", "err", err)
	}
	if n > 0 {
		e.log.Info("deleted link preview images without a row", "count", n)
	}
}

// OpenPreviewImage finds a preview image by its id (GET /previews/{id}): not_found for an
// unknown or expired one. Preview images are public: an id is 128 random bits, handed out
// only with the preview of a message, and the image came from a public page. It may be
// cached until the preview expires.
func (e *Engine) OpenPreviewImage(ctx context.Context, id string) (*PublicImage, error) {
	if e.opts.Bucket == nil || !validPreviewImageID(id) {
		return nil, notFound("no such preview image")
	}
	var img *storepb.PreviewImageRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		img, err = r.PreviewImage(id)
		return err
	})
	if isNotFound(err) {
		return nil, notFound("no such preview image")
	}
	if err != nil {
		return nil, err
	}
	now := e.now()
	left := time.UnixMilli(img.GetExpiresAtMs()).Sub(now)
	if left <= 0 {
		return nil, notFound("no such preview image")
	}
	return &PublicImage{
		ID:          img.GetId(),
		ContentType: img.GetContentType(),
		Size:        img.GetSize(),
		ModTime:     time.UnixMilli(img.GetCreatedAtMs()),
		MaxAge:      left,
		key:         blob.PreviewKey(img.GetId()),
		gone:        "no such preview image",
		bucket:      e.opts.Bucket,
	}, nil
}

// validPreviewImageID accepts what storePreviewImage makes: 32 lower-case hex digits.
func validPreviewImageID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
