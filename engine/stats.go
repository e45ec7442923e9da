package engine

import "time"

// The engine exposes what an operator needs to see how it keeps up, without depending on any
// metrics library: Stats is a snapshot taken on demand (at each scrape), and an Observer hears
// about every commit as it happens, since batch sizes and sync times are lost by the next one.

// Observer hears what the writer does. Its methods run on the writer goroutine between two
// batches, so they must be quick and must not call the engine.
type Observer interface {
	// Committed reports one committed batch, or one whose commit failed.
	Committed(Commit)
}

// StreamObserver, when the Observer is one too, hears how each Subscribe stream ended. It
// runs on the stream's goroutine, not the writer's.
type StreamObserver interface {
	StreamEnded(StreamEnd)
}

// Commit describes one batch of the writer.
type Commit struct {
	// Changes is how many queued changes the batch held; Events how many logged events it
	// appended.
	Changes, Events int
	// Apply is the time spent running the changes; Sync the time the commit took (Badger's
	// write and the fsync).
	Apply, Sync time.Duration
	// Failed is set when the commit failed and the batch is retried in halves.
	Failed bool
}

// Stats is a snapshot of the engine's queues and sizes.
type Stats struct {
	// Seq is the seq of the newest committed event.
	Seq int64
	// WriterQueue is how many changes wait for the writer; WriterQueueCap how many may wait
	// before callers block.
	WriterQueue, WriterQueueCap int
	// Streams is how many Subscribe streams are open (replaying or live).
	Streams int
	// HubHead is the ring position of the hub: how many events (logged and ephemeral) it has
	// published since the start. HubRing is its size: a stream further behind gets resync.
	HubHead uint64
	HubRing int
	// StreamLags holds, for every follower of the hub (every open stream, replaying ones too,
	// and the server's own followers: the notifier's, the plugins'), how many events the hub
	// published since its position that it has not read yet.
	StreamLags []uint64
	// LSMBytes and VlogBytes are the database's on-disk sizes (as Badger last measured them).
	LSMBytes, VlogBytes int64
	// DiskFree is the free space of the data disk and DiskThreshold the free space below which
	// it counts as full; both 0 when the disk is not watched or cannot be read.
	DiskFree, DiskThreshold uint64
}

// Stats takes a snapshot. It costs one pass over the open streams.
func (e *Engine) Stats() Stats {
	head, lags := e.pub.hub.Lags()
	lsm, vlog := e.db.Size()
	disk, threshold, _ := e.DiskSpace()
	return Stats{
		DiskFree:       disk.Free,
		DiskThreshold:  threshold,
		Seq:            e.Seq(),
		WriterQueue:    len(e.queue),
		WriterQueueCap: cap(e.queue),
		Streams:        int(e.streams.Load()),
		HubHead:        head,
		HubRing:        e.pub.hub.Size(),
		StreamLags:     lags,
		LSMBytes:       lsm,
		VlogBytes:      vlog,
	}
}

// observe reports a batch to the Observer, if there is one.
func (e *Engine) observe(c Commit) {
	if e.opts.Observer != nil {
		e.opts.Observer.Committed(c)
	}
}

// Healthy reports whether the engine can serve: it is not shutting down, has not stopped
// writing after a failed commit (commitfail.go), and its database answers a read.
func (e *Engine) Healthy() error {
	if e.closed.Load() {
		return ErrClosed
	}
	if broken := e.broken.Load(); broken != nil {
		return broken
	}
	if err := e.diskHealth(); err != nil {
		return err
	}
	if err := e.db.Ping(); err != nil {
		return &Error{Code: CodeUnavailable, Msg: "the database does not answer: " + err.Error()}
	}
	return nil
}
