package main

import (
	"sync/atomic"
)

// The ledger checks delivery: every message the server acknowledged must reach every
// subscriber exactly once. Messages are numbered 0..capacity-1 by the tool (the number travels
// in the text), so each subscriber keeps one bit per message, written only by its own reader
// goroutine; the tally runs after the readers stopped.

// Send outcomes, per message.
const (
	unsent  uint32 = iota
	sending        // the call is in flight
	acked          // the server answered: the message is committed
	refused        // the server said no (rate limit, invalid...): it must never arrive
	unknown        // no answer (timeout, connection lost): it may or may not have been committed
)

type ledger struct {
	next   atomic.Int64
	states []atomic.Uint32
	subs   []*inbox
}

// inbox is one subscriber's record of what arrived.
type inbox struct {
	got        []uint64 // a bit per message
	unique     atomic.Int64
	dups       atomic.Int64
	outOfOrder atomic.Int64 // a logged event whose seq was not above the previous one
	lastSeq    int64
}

func newLedger(capacity, subscribers int) *ledger {
	l := &ledger{states: make([]atomic.Uint32, capacity), subs: make([]*inbox, subscribers)}
	for i := range l.subs {
		l.subs[i] = &inbox{got: make([]uint64, (capacity+63)/64)}
	}
	return l
}

// take numbers the next message, or returns -1 once the ledger is full: a run never sends more
// than it planned for.
func (l *ledger) take() int64 {
	k := l.next.Add(1) - 1
	if k >= int64(len(l.states)) {
		return -1
	}
	l.states[k].Store(sending)
	return k
}

// taken is how many messages were numbered.
func (l *ledger) taken() int64 { return min(l.next.Load(), int64(len(l.states))) }

func (l *ledger) settle(k int64, state uint32) { l.states[k].Store(state) }

// seq checks a logged event's seq on subscriber s: seqs must only grow on a stream.
func (l *ledger) seq(s int, seq int64) {
	in := l.subs[s]
	if seq <= in.lastSeq {
		in.outOfOrder.Add(1)
		return
	}
	in.lastSeq = seq
}

// deliver records message k arriving at subscriber s; it reports false for a duplicate or a
// number the tool never gave out.
func (l *ledger) deliver(s int, k int64) bool {
	in := l.subs[s]
	if k < 0 || k >= int64(len(l.states)) {
		in.dups.Add(1)
		return false
	}
	w, bit := k/64, uint64(1)<<(k%64)
	if in.got[w]&bit != 0 {
		in.dups.Add(1)
		return false
	}
	in.got[w] |= bit
	in.unique.Add(1)
	return true
}

// complete reports whether every subscriber has every acknowledged message, counted cheaply:
// the drain phase polls it. The exact check is tally.
func (l *ledger) complete(ackedCount int64) bool {
	for _, in := range l.subs {
		if in.unique.Load() < ackedCount {
			return false
		}
	}
	return true
}

// tally is the verdict over all subscribers.
type tally struct {
	Lost       int64 `json:"lost"`                     // acknowledged, not received (summed over subscribers)
	Duplicated int64 `json:"duplicated"`               // received more than once
	OutOfOrder int64 `json:"out_of_order"`             // a seq that did not grow
	Unacked    int64 `json:"delivered_unacknowledged"` // arrived though the send had no answer: fine
	Refused    int64 `json:"delivered_refused"`        // arrived though the server refused it: a bug
}

// tally compares what arrived with what was acknowledged. Call it after the readers stopped.
func (l *ledger) tally() tally {
	var t tally
	n := l.taken()
	for _, in := range l.subs {
		t.Duplicated += in.dups.Load()
		t.OutOfOrder += in.outOfOrder.Load()
		for k := range n {
			got := in.got[k/64]&(uint64(1)<<(k%64)) != 0
			switch st := l.states[k].Load(); {
			case st == acked && !got:
				t.Lost++
			case got && st == refused:
				t.Refused++
			case got && st != acked:
				t.Unacked++
			}
		}
	}
	return t
}

// ok is the run's verdict on delivery: nothing lost, doubled, reordered or wrongly delivered.
func (t tally) ok() bool {
	return t.Lost == 0 && t.Duplicated == 0 && t.OutOfOrder == 0 && t.Refused == 0
}
