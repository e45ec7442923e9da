package blob

import (
	"context"
	"sync"
)

// deleteHold defers deletions while a backup copies the bucket (see HoldDeletes).
type deleteHold struct {
	mu      sync.Mutex
	holders int
	pending []string
}

// HoldDeletes makes Delete keep the objects it is asked to delete until release is called,
// when they are deleted. A backup takes a snapshot of the database and then copies the
// objects: a row in the snapshot whose object was deleted meanwhile (a message deleted, an
// upload expired) would point at nothing once restored. Holds nest; the objects go when the
// last one is released. An object whose deletion then fails is left for the sweeps, as any
// failed deletion is.
func (b *Bucket) HoldDeletes() (release func(context.Context) error) {
	b.hold.mu.Lock()
	b.hold.holders++
	b.hold.mu.Unlock()
	var once sync.Once
	return func(ctx context.Context) error {
		var err error
		once.Do(func() {
			b.hold.mu.Lock()
			b.hold.holders--
			var keys []string
			if b.hold.holders == 0 {
				keys, b.hold.pending = b.hold.pending, nil
			}
			b.hold.mu.Unlock()
			for _, k := range keys {
				if e := b.Delete(ctx, k); e != nil && err == nil {
					err = e
				}
			}
		})
		return err
	}
}

// held records key for later when deletions are held, and reports whether it did.
func (h *deleteHold) held(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holders == 0 {
		return false
	}
	h.pending = append(h.pending, key)
	return true
}
