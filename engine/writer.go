package engine

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The writer is the one goroutine that changes the community. Callers queue changes; the
// writer takes every change waiting, applies them in order inside ONE Badger transaction (each
// checks its rules against the state it sees there, the batch's earlier changes included),
// appends their events with consecutive seqs, commits once with a sync, and only then answers
// the callers and hands the events to the hub. One sync for many changes is what lets a small
// disk take thousands of durable messages a second; one writer means seqs in commit order and
// no write conflicts.
//
// A change must check before it writes. One that fails without writing leaves no trace; one
// that fails after writing (or panics) spoils the transaction, and the writer applies the rest
// of the batch again without it. A batch too big for one transaction is split in halves.

// maxBatch bounds how many changes share one transaction.
const maxBatch = 512

type change struct {
	fn  func(tx *Tx) (any, error)
	res chan result
}

type result struct {
	v   any
	err error
	// drop lists the files the change let go of: write deletes their objects once the change
	// is committed, on the caller's goroutine, so the writer never waits for the bucket.
	drop []string
}

// Tx is what a change sees: the batch's transaction and its draft of the Snapshot.
type Tx struct {
	b      *store.Batch
	d      *draft
	now    time.Time
	seq    int64
	events []Delivery
	after  []func()
	drops  []string
	writes int
	// ix is the message index; searchOps the ops the batch staged for it.
	ix        *search.Index
	searchOps []search.Staged
}

// Snap is the community as the batch has changed it so far.
func (tx *Tx) Snap() *Snapshot { return tx.d.Snapshot }

// Now is the batch's time: every change in a batch shares it.
func (tx *Tx) Now() time.Time { return tx.now }

// NowMs is Now in Unix milliseconds.
func (tx *Tx) NowMs() int64 { return tx.now.UnixMilli() }

// read gives the store for reads (which see the batch's own writes).
func (tx *Tx) read() *store.Reader { return &tx.b.Reader }

// mutate gives the store for writes.
func (tx *Tx) mutate() *store.Batch {
	tx.writes++
	return tx.b
}

// emit appends an event to the log with the next seq and queues it for delivery after the
// commit. It returns the seq.
func (tx *Tx) emit(aud *storepb.Audience, ev *svcv1.Event) (int64, error) {
	return tx.emitLogged(&storepb.LoggedEvent{Event: ev, Audience: aud})
}

// emitLogged is emit for a log row that carries more than the event (LoggedEvent.reaction).
func (tx *Tx) emitLogged(le *storepb.LoggedEvent) (int64, error) {
	ev := le.GetEvent()
	if err := tx.fillEvent(ev); err != nil {
		return 0, err
	}
	tx.seq++
	ev.Seq = tx.seq
	ev.AtMs = tx.NowMs()
	if err := tx.mutate().AppendEvent(logCopy(le)); err != nil {
		return 0, err
	}
	tx.events = append(tx.events, Delivery{Frame: newFrame(ev), Audience: le.GetAudience(), Reaction: le.GetReaction()})
	return tx.seq, nil
}

// nextSeq is the seq the next emit will get: a new message knows its created_seq before its
// event is written.
func (tx *Tx) nextSeq() int64 { return tx.seq + 1 }

// afterCommit runs fn once the batch is durable (to close streams, delete files...).
func (tx *Tx) afterCommit(fn func()) { tx.after = append(tx.after, fn) }

// dropFile deletes an upload's row and has its object deleted once the change is committed:
// a row never points at a missing object, and an object whose deletion fails after the commit
// is an orphan that the cleanup sweeps. A missing row is nothing to drop.
func (tx *Tx) dropFile(id string) error {
	u, err := tx.read().Upload(id)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := tx.mutate().DeleteUpload(u); err != nil {
		return err
	}
	tx.drops = append(tx.drops, id)
	return nil
}

// Entity writes: each changes the draft Snapshot and the database together.

func (tx *Tx) putSettings(s *storepb.Settings) error {
	tx.d.setSettings(s)
	return tx.mutate().PutSettings(s)
}

func (tx *Tx) putMember(m *storepb.MemberRecord) error {
	tx.d.setMember(m)
	return tx.mutate().PutMember(m)
}

func (tx *Tx) putChannel(c *storepb.ChannelRecord) error {
	tx.d.setChannel(c)
	return tx.mutate().PutChannel(c)
}

func (tx *Tx) setJoined(channelID, memberID string, on bool) error {
	tx.d.setJoined(channelID, memberID, on)
	if on {
		return tx.mutate().PutJoined(channelID, memberID)
	}
	return tx.mutate().DeleteJoined(channelID, memberID)
}

func (tx *Tx) putRole(r *svcv1.Role) error {
	tx.d.setRole(r)
	return tx.mutate().PutRole(r)
}

func (tx *Tx) deleteRole(id string) error {
	tx.d.deleteRole(id)
	return tx.mutate().DeleteRole(id)
}

func (tx *Tx) setBlock(a, b string, on bool) error {
	tx.d.setBlock(a, b, on)
	return tx.mutate().SetBlock(a, b, on)
}

func (tx *Tx) setMute(a, b string, on bool) error {
	tx.d.setMute(a, b, on)
	return tx.mutate().SetMute(a, b, on)
}

// submit queues a change and waits for its result.
func submit[T any](e *Engine, fn func(tx *Tx) (T, error)) (T, error) {
	var zero T
	c := &change{
		fn:  func(tx *Tx) (any, error) { return fn(tx) },
		res: make(chan result, 1),
	}
	select {
	case <-e.closing:
		return zero, ErrClosed
	case e.queue <- c:
	}
	var r result
	select {
	case r = <-c.res:
	case <-e.writerDone:
		// The writer stopped before it took the change.
		select {
		case r = <-c.res:
		default:
			return zero, ErrClosed
		}
	}
	if r.err != nil {
		return zero, r.err
	}
	e.deleteObjects(r.drop)
	return r.v.(T), nil
}

// runWriter is the writer goroutine. On close it applies what is already queued, then stops.
func (e *Engine) runWriter() {
	defer close(e.writerDone)
	for {
		var first *change
		select {
		case first = <-e.queue:
		case <-e.closing:
			for {
				select {
				case c := <-e.queue:
					e.apply(e.takeBatch(c))
				default:
					return
				}
			}
		}
		e.apply(e.takeBatch(first))
	}
}

// takeBatch adds every change already waiting, up to maxBatch, to first.
func (e *Engine) takeBatch(first *change) []*change {
	batch := []*change{first}
	for len(batch) < maxBatch {
		select {
		case c := <-e.queue:
			batch = append(batch, c)
		default:
			return batch
		}
	}
	return batch
}

// errSpoiled reports a batch whose transaction a failing change left written to.
var errSpoiled = errors.New("a change failed after writing")

// apply commits a batch and answers its callers, splitting it when it cannot be committed as
// one.
func (e *Engine) apply(batch []*change) {
	results, err := e.tryBatch(batch)
	if err != nil {
		if len(batch) > 1 {
			mid := len(batch) / 2
			e.apply(batch[:mid])
			e.apply(batch[mid:])
			return
		}
		results = []result{{err: err}}
	}
	for i, c := range batch {
		c.res <- results[i]
	}
}

// tryBatch runs the changes in one transaction and commits it. An error means nothing of the
// batch was committed; a single change's own failure is in its result instead.
func (e *Engine) tryBatch(batch []*change) ([]result, error) {
	if broken := e.broken.Load(); broken != nil {
		return refuseAll(batch, broken), nil
	}
	if err := e.diskRoom(); err != nil {
		return refuseAll(batch, err), nil
	}
	b := e.db.NewBatch()
	defer b.Discard()
	// The batch time never goes back, even when the wall clock does: messages then have
	// created_at_ms in seq order, which the retention purge and its readers rely on.
	now := e.now()
	if now.Before(e.lastNow) {
		now = e.lastNow
	}
	e.lastNow = now
	tx := &Tx{b: b, d: e.snap.Load().newDraft(), now: now, seq: e.seq, ix: e.index}
	start := time.Now()
	results := make([]result, len(batch))
	for i, c := range batch {
		writes, events, after, drops, ops := tx.writes, len(tx.events), len(tx.after), len(tx.drops), len(tx.searchOps)
		v, err := runChange(c, tx)
		if err != nil && tx.writes != writes {
			if errors.Is(err, store.ErrTooBig) {
				// A limit of this server's database, not of the request's fields.
				err = newError(CodeResourceExhausted, "the change is too large for the database to store at once")
			}
			if len(batch) > 1 {
				return nil, errSpoiled
			}
			e.logChangeError(err)
			return []result{{err: publicError(err)}}, nil
		}
		if err != nil {
			tx.events, tx.after, tx.drops, tx.searchOps = tx.events[:events], tx.after[:after], tx.drops[:drops], tx.searchOps[:ops]
			e.logChangeError(err)
			err = publicError(err)
		}
		results[i] = result{v: v, err: err, drop: tx.drops[drops:len(tx.drops):len(tx.drops)]}
	}
	if tx.writes == 0 {
		return results, nil
	}
	applied := time.Now()
	err := e.commit(b)
	e.observe(Commit{Changes: len(batch), Events: len(tx.events), Apply: applied.Sub(start), Sync: time.Since(applied), Failed: err != nil})
	if err != nil {
		e.log.Error("commit failed", "err", err, "changes", len(batch))
		if !store.Unwritten(err) {
			return e.commitFailed(results, err), nil
		}
		return nil, &Error{Code: CodeInternal, Msg: "the change could not be stored"}
	}
	snap := tx.d.publish(tx.seq)
	e.seq = tx.seq
	// The index before anyone hears of the change: a message someone was told of is found.
	e.index.Committed(tx.searchOps)
	// The hub first, then the Snapshot handlers read: a GetState never returns a seq the hub
	// has not reached, so a Subscribe right after it never looks ahead of the log.
	e.pub.publish(tx.events, snap)
	e.snap.Store(snap)
	// Whoever may no longer be in voice is taken out at once (voice.go).
	e.checkVoice(snap)
	for _, f := range tx.after {
		f()
	}
	return results, nil
}

// runChange runs one change, turning a panic into an error that spoils the batch.
func runChange(c *change, tx *Tx) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			tx.writes++
			err = fmt.Errorf("panic in change: %v\n%s", p, debug.Stack())
		}
	}()
	return c.fn(tx)
}

func (e *Engine) logChangeError(err error) {
	if CodeOf(err) == CodeInternal {
		e.log.Error("change failed", "err", err)
	}
}

// publicError hides internal failures behind a plain message; engine errors pass as they are.
func publicError(err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		return ee
	}
	return &Error{Code: CodeInternal, Msg: "internal error"}
}
