package engine

import (
	"time"
)

// The event log keeps at least the last ReplayDays days and at least the last ReplayEvents
// events; older events are deleted a bounded batch per transaction, so a large backlog never
// holds the writer for long. A stream that asks for deleted events gets resync.
//
// Message retention comes first: events older than the retention cutoff go whatever the kept
// window says, since they carry copies of messages the community chose not to keep.

// pruneBatch bounds the events deleted per transaction.
const pruneBatch = 10_000

// pruneLog deletes the events that are both older than the kept window and beyond the kept
// count.
func (e *Engine) pruneLog() error {
	for {
		keepFrom := e.Seq() - int64(e.opts.ReplayEvents) // events at or below this may go
		cutoffMs := e.now().Add(-time.Duration(e.opts.ReplayDays) * 24 * time.Hour).UnixMilli()
		retainMs := e.readCutoff()
		if keepFrom < 1 && retainMs == 0 {
			return nil
		}
		n, err := write(e, func(tx *Tx) (int, error) {
			n, last := 0, int64(0)
			var del []int64
			err := tx.read().OldEvents(tx.seq+1, func(seq, atMs int64) bool {
				old := seq <= keepFrom && atMs < cutoffMs
				if !(old || atMs < retainMs) || n == pruneBatch {
					return false
				}
				del = append(del, seq)
				n, last = n+1, seq
				return true
			})
			if err != nil {
				return 0, err
			}
			for _, seq := range del {
				if err := tx.write().DeleteEvent(seq); err != nil {
					return 0, err
				}
			}
			if n > 0 {
				tx.afterCommit(func() { e.logStart.Store(last + 1) })
			}
			return n, nil
		})
		if err != nil || n < pruneBatch {
			return err
		}
	}
}
