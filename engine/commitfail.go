package engine

import (
	"hearth/engine/store"
)

// A commit that fails has an outcome the writer cannot know, unless Badger refused the batch
// before writing any of it (store.Unwritten: too big, in conflict; the writer splits it and
// tries again). Badger puts a
// batch's entries in its memtable and write-ahead log before it syncs the log: when the sync
// fails they are readable already, and on the disk or not as the disk kept them. Going on
// would be wrong either way: the next batch would reuse the seqs of one that may be stored
// (overwriting its events and leaving its rows unannounced), and a caller told "not stored"
// would delete files a stored row points at. So, as databases do when a sync fails, the
// engine stops writing: the failed batch's callers are told its outcome is unknown, every
// later change is refused as unavailable, and Healthy says why, until a restart replays what
// the disk holds (one transaction per batch: all of a batch, with its events, or none). The
// restart is the process's to do: Stopped tells it, and the binary exits (cmd/hearth) for its
// supervisor to start it again.

// errOutcomeUnknown answers the changes of a batch whose commit failed after writing. A
// caller that stored files for its rows keeps them: the rows may be there after a restart,
// and the orphan sweep deletes the files of those that are not.
var errOutcomeUnknown = &Error{Code: CodeInternal, Msg: "the change may not have been stored: the database failed to store it; the server must be restarted"}

// errStopped answers every change after such a failure.
var errStopped = &Error{Code: CodeUnavailable, Msg: "the database failed to store a change; the server takes no changes until it is restarted"}

// commit commits the writer's batch.
func (e *Engine) commit(b *store.Batch) error {
	if e.commitBatch != nil {
		return e.commitBatch(b)
	}
	return b.Commit()
}

// commitFailed stops the writer after a commit whose outcome is unknown and answers the
// batch's changes: those that wrote may or may not be stored (and drop no files); those that
// failed on their own keep their error.
func (e *Engine) commitFailed(results []result, err error) []result {
	e.log.Error("the database failed to store a batch; refusing every change until a restart", "err", err)
	if e.broken.CompareAndSwap(nil, errStopped) {
		close(e.stopped)
	}
	for i := range results {
		if results[i].err == nil {
			results[i] = result{err: errOutcomeUnknown}
		}
	}
	return results
}

// Stopped is closed once the engine has stopped taking changes after a commit of unknown
// outcome; StopCause then says why. Nothing but a restart brings the engine back, so the
// process should exit (after closing the engine, which commits nothing more) and be restarted.
func (e *Engine) Stopped() <-chan struct{} { return e.stopped }

// StopCause is why the engine stopped taking changes, nil while it takes them.
func (e *Engine) StopCause() error {
	if broken := e.broken.Load(); broken != nil {
		return broken
	}
	return nil
}

// refuseAll answers every change of batch with err, running none.
func refuseAll(batch []*change, err error) []result {
	out := make([]result, len(batch))
	for i := range out {
		out[i] = result{err: err}
	}
	return out
}
