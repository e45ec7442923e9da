package engine

import (
	"context"
	"strings"
	"time"

	"hearth/blob"
	"hearth/engine/store"
)

// File cleanup. Unused uploads go a day after they were made; objects without a row (left by
// a crash between storing a file and committing its row, or by a deletion after the commit
// that failed) go once they are OrphanAge old. Both run on the jobs loop, in bounded batches.

const (
	// expireBatch bounds the uploads one cleanup change deletes.
	expireBatch = 256
	// sweepBatch is how many listed objects one read transaction checks for rows.
	sweepBatch = 256
	// orphanEvery is how many job ticks (minutes) pass between two orphan sweeps: each lists
	// the whole files/ prefix of the bucket.
	orphanEvery = 6 * 60
	// deleteTimeout bounds deleting one object of a change. Each has its own: one bound for a
	// whole batch of 256 left its tail to the sweep whenever the bucket was slow (an S3 on a
	// loaded machine took more than 30 s for 256).
	deleteTimeout = 30 * time.Second
)

// ExpireUploads deletes the uploads that stayed unused for a day; the jobs loop runs it every
// minute, on the engine's clock.
func (e *Engine) ExpireUploads() error {
	if e.opts.Bucket == nil {
		return nil
	}
	for {
		n, err := submit(e, func(tx *Tx) (int, error) {
			var ids []string
			before := tx.Now().Add(-uploadTTL).UnixMilli() + 1
			err := tx.read().UnusedBefore(before, expireBatch, func(id string) { ids = append(ids, id) })
			if err != nil {
				return 0, err
			}
			for _, id := range ids {
				if err := tx.dropFile(id); err != nil {
					return 0, err
				}
			}
			return len(ids), nil
		})
		if err != nil || n < expireBatch {
			return err
		}
	}
}

// SweepOrphans deletes the objects under files/ that have no upload row, and those under
// emoji/ that have no emoji row, older than OrphanAge, and returns how many it deleted. Age is
// judged on the wall clock, since object times come from the bucket's: the age keeps it away
// from uploads in progress (a file bucket lists their temporary files) and from objects whose
// row is about to be committed.
func (e *Engine) SweepOrphans(ctx context.Context) (int, error) {
	if e.opts.Bucket == nil {
		return 0, nil
	}
	files, err := e.sweepPrefix(ctx, blob.FileKey(""), func(r *store.Reader, id string) error {
		_, err := r.Upload(id)
		return err
	})
	if err != nil {
		return files, err
	}
	emoji, err := e.sweepPrefix(ctx, blob.EmojiKey(""), func(r *store.Reader, id string) error {
		_, err := r.Emoji(id)
		return err
	})
	return files + emoji, err
}

// sweepPrefix deletes the objects under prefix older than OrphanAge for whose id (the key
// after prefix) row answers store.ErrNotFound.
func (e *Engine) sweepPrefix(ctx context.Context, prefix string, row func(r *store.Reader, id string) error) (int, error) {
	oldest := time.Now().Add(-e.opts.OrphanAge)
	deleted := 0
	var keys []string
	flush := func() error {
		var orphans []string
		err := e.db.View(func(r *store.Reader) error {
			for _, k := range keys {
				err := row(r, strings.TrimPrefix(k, prefix))
				if isNotFound(err) {
					orphans = append(orphans, k)
				} else if err != nil {
					return err
				}
			}
			return nil
		})
		keys = keys[:0]
		if err != nil {
			return err
		}
		for _, k := range orphans {
			if err := e.opts.Bucket.Delete(ctx, k); err != nil {
				return err
			}
			deleted++
		}
		return nil
	}
	err := e.opts.Bucket.List(ctx, prefix, func(key string, _ int64, mod time.Time) error {
		if !mod.Before(oldest) {
			return nil
		}
		keys = append(keys, key)
		if len(keys) == sweepBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return deleted, err
}

func (e *Engine) sweepOrphans() {
	n, err := e.SweepOrphans(e.ctx)
	if err != nil && e.ctx.Err() == nil {
		e.log.Error("sweeping files without a row", "err", err)
	}
	if n > 0 {
		e.log.Info("deleted files without a row", "count", n)
	}
}

// deleteObjects deletes the objects of files whose rows a committed change deleted.
func (e *Engine) deleteObjects(ids []string) { e.deleteObjectsUnder(blob.FileKey, "a file", ids) }

// deleteObjectsUnder deletes the objects key(id) of rows a committed change deleted (files,
// emoji, preview images). It runs on the caller's goroutine, never the writer's, and outlives
// the caller's context: the rows are gone already. An object it fails to delete is an orphan
// for the sweep; after a delete the bucket did not answer in time it leaves the rest to the
// sweep too, rather than wait as long again for each.
func (e *Engine) deleteObjectsUnder(key func(id string) string, what string, ids []string) {
	if len(ids) == 0 || e.opts.Bucket == nil {
		return
	}
	for i, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
		err := e.opts.Bucket.Delete(ctx, key(id))
		late := ctx.Err() != nil
		cancel()
		if err != nil {
			e.log.Warn("deleting "+what+"; the cleanup will retry", "err", err)
		}
		if err != nil && late {
			e.log.Warn("the bucket did not answer within "+deleteTimeout.String()+"; the cleanup will delete the rest", "left", len(ids)-i-1)
			return
		}
	}
}
