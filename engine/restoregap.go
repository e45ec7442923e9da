package engine

import (
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// A restored server starts at the backup's seq, but the server it was backed up from may have
// gone on past it, and its clients with it: a client that last saw seq N of that timeline would,
// once the restored server reached N again, subscribe after N and silently miss or mistake the
// events in between. So the first start after a restore puts its first event (server_updated)
// restoreSeqGap past the backup's last seq. Replay needs consecutive seqs and crosses this gap
// only from the backup's last seq (Follower.replay): a client that saw no more than the backup
// holds replays on as before, and one that saw a seq past it (the old server's, or one inside
// the gap) gets resync and reloads with GetState.

// restoreSeqGap is how far the seq jumps at the first start after a restore: more events than
// the backed-up server could have logged after its backup (at 10,000 a second, 3 years), and few
// enough that a seq stays exact in a JavaScript number after thousands of restores.
const restoreSeqGap = 1 << 40

// startPastRestore starts the log past the gap if the database was just restored (store.Load
// marks it), once: the mark goes in the same commit as the event.
func (e *Engine) startPastRestore() error {
	var restored bool
	err := e.db.View(func(r *store.Reader) error {
		var err error
		restored, err = r.Restored()
		return err
	})
	if err != nil || !restored {
		return err
	}
	_, err = submit(e, func(tx *Tx) (struct{}, error) {
		tx.seq += restoreSeqGap - 1
		if _, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_ServerUpdated{ServerUpdated: true}}); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.mutate().ClearRestored()
	})
	if err == nil {
		e.log.Info("restored database: the event log continues past a gap; clients reload", "seq", e.Seq())
	}
	return err
}
