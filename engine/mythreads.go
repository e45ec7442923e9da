package engine

import (
	"container/heap"
	"context"
	"math"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// ListMyThreads: the threads a member is in (they wrote the root or replied), the one with the
// newest reply first, for the client's thread inbox. No index keeps who is in which thread, so
// the channel logs of the member's channels are read newest first, merged by seq (a chunk of
// each at a time), and each thread is decided at its newest reply: its root is read, and, when
// the member did not write it, its replies' log entries, newest first, up to threadScanMax. The
// reading is bounded (Options.ThreadsScan entries a call); a page that reaches the bound ends there,
// with next_before to go on from.

const (
	myThreadsDef = 20
	myThreadsMax = 50
	// myThreadsScan bounds the channel log entries one call reads (Options.ThreadsScan).
	myThreadsScan = 20_000
	// myThreadsChunk is how many entries of one channel are read at a time.
	myThreadsChunk = 256
	// unreadCountMax bounds the unread replies counted per thread.
	unreadCountMax = 100
)

// ListMyThreads lists the caller's threads (see above).
func (e *Engine) ListMyThreads(ctx context.Context, c Caller, req *svcv1.ListMyThreadsRequest) (*svcv1.ListMyThreadsResponse, error) {
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = myThreadsDef
	}
	if limit < 1 || limit > myThreadsMax {
		return nil, invalid("limit must be 1 to %d; got %d", myThreadsMax, req.GetLimit())
	}
	before := req.GetBefore()
	if before < 0 {
		return nil, invalid("before must be 0 (the newest) or a created_seq; got %d", before)
	}
	if before == 0 {
		before = math.MaxInt64
	}
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	var channels []string
	for id, rec := range d.channels {
		if d.In(c.ID, rec) {
			channels = append(channels, id)
		}
	}
	cutoff := e.readCutoff()
	out := &svcv1.ListMyThreadsResponse{}
	err := e.db.View(func(r *store.Reader) error {
		logs := &channelLogs{r: r}
		for _, id := range channels {
			if err := logs.add(id, before); err != nil {
				return err
			}
		}
		decided := map[string]bool{}
		for read := 0; logs.Len() > 0; read++ {
			if read == e.opts.ThreadsScan || ctx.Err() != nil {
				// Bounded: the next page goes on from here.
				out.NextBefore = logs.top().seq + 1
				return ctx.Err()
			}
			at, err := logs.next()
			if err != nil {
				return err
			}
			if !at.entry.GetThreadReply() || store.Expired(at.entry, cutoff) {
				continue
			}
			reply, err := r.Message(at.entry.GetMessageId())
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			root := reply.GetThreadRootId()
			if decided[root] {
				continue
			}
			decided[root] = true
			t, err := e.myThread(r, d, c.ID, at.channel, root, at.seq, before, cutoff)
			if err != nil {
				return err
			}
			if t == nil {
				continue
			}
			t.LastReply = reply
			out.Threads = append(out.Threads, t)
			if len(out.Threads) == limit {
				if logs.Len() > 0 {
					out.NextBefore = at.seq
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// myThread is the thread of root as ListMyThreads lists it, its newest reply at seq; nil when
// the member is not in it, its root is gone, or a newer reply (at or after before) put it on an
// earlier page.
func (e *Engine) myThread(r *store.Reader, d *Snapshot, memberID, channelID, root string, seq, before, cutoff int64) (*svcv1.MyThread, error) {
	var newest int64
	err := r.Walk(store.Thread(root), math.MaxInt64, true, func(s int64, _ string) bool {
		newest = s
		return false
	})
	if err != nil || newest != seq || newest >= before {
		return nil, err
	}
	rootMsg, err := liveMessage(r, root, cutoff)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lastRead, err := r.ReadState(memberID, channelID)
	if err != nil {
		return nil, err
	}
	in := rootMsg.GetAuthorId() == memberID
	unread, scanned := int32(0), 0
	var walkErr error
	err = r.Walk(store.Thread(root), math.MaxInt64, true, func(s int64, _ string) bool {
		scanned++
		if in && s <= lastRead {
			return false
		}
		en, err := r.Entry(channelID, s)
		if isNotFound(err) {
			return scanned < threadScanMax
		}
		if err != nil {
			walkErr = err
			return false
		}
		if en.GetAuthorId() == memberID {
			in = true
		}
		if s > lastRead && unread < unreadCountMax && counts(d, memberID, en, math.MaxInt64) {
			unread++
		}
		return scanned < threadScanMax && (!in || s > lastRead)
	})
	if err == nil {
		err = walkErr
	}
	if err != nil || !in {
		return nil, err
	}
	return &svcv1.MyThread{Root: rootMsg, UnreadCount: unread}, nil
}

// logEntry is one message of a channel's log.
type logEntry struct {
	channel string
	seq     int64
	entry   *storepb.MessageEntry
}

// channelLogs merges channel logs newest first: a heap of channels by the seq of the newest
// entry not yet taken, each read a chunk at a time.
type channelLogs struct {
	r     *store.Reader
	heads []*channelLog
}

type channelLog struct {
	id      string
	pending []logEntry // newest first
	done    bool       // nothing older left to read
}

// add puts a channel in, its entries below before.
func (l *channelLogs) add(id string, before int64) error {
	c := &channelLog{id: id}
	if err := l.fill(c, before); err != nil {
		return err
	}
	if len(c.pending) > 0 {
		heap.Push(l, c)
	}
	return nil
}

// fill reads the next chunk of a channel, entries below before.
func (l *channelLogs) fill(c *channelLog, before int64) error {
	n := 0
	err := l.r.EntriesBefore(c.id, before, func(seq int64, en *storepb.MessageEntry) bool {
		c.pending = append(c.pending, logEntry{channel: c.id, seq: seq, entry: en})
		n++
		return n < myThreadsChunk
	})
	c.done = n < myThreadsChunk
	return err
}

func (l *channelLogs) top() logEntry { return l.heads[0].pending[0] }

// next takes the newest entry of all.
func (l *channelLogs) next() (logEntry, error) {
	c := l.heads[0]
	at := c.pending[0]
	c.pending = c.pending[1:]
	if len(c.pending) == 0 && !c.done {
		if err := l.fill(c, at.seq); err != nil {
			return at, err
		}
	}
	if len(c.pending) == 0 {
		heap.Pop(l)
	} else {
		heap.Fix(l, 0)
	}
	return at, nil
}

func (l *channelLogs) Len() int { return len(l.heads) }
func (l *channelLogs) Less(i, j int) bool {
	return l.heads[i].pending[0].seq > l.heads[j].pending[0].seq
}
func (l *channelLogs) Swap(i, j int) { l.heads[i], l.heads[j] = l.heads[j], l.heads[i] }
func (l *channelLogs) Push(x any)    { l.heads = append(l.heads, x.(*channelLog)) }
func (l *channelLogs) Pop() any {
	last := l.heads[len(l.heads)-1]
	l.heads = l.heads[:len(l.heads)-1]
	return last
}
