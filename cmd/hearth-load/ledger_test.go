package main

import "testing"

// TestLedgerCountsLossAndDuplicates: what was acknowledged and did not arrive is lost; what
// arrived twice is duplicated; a refused message that arrives is a bug of its own; an
// unanswered one that arrives is fine.
func TestLedgerCountsLossAndDuplicates(t *testing.T) {
	l := newLedger(100, 2)
	var ks []int64
	for range 5 {
		ks = append(ks, l.take())
	}
	l.settle(ks[0], acked)
	l.settle(ks[1], acked)
	l.settle(ks[2], refused)
	l.settle(ks[3], unknown)
	l.settle(ks[4], acked)

	// Subscriber 0 gets everything acknowledged, one twice, and the unanswered one.
	for _, k := range []int64{ks[0], ks[1], ks[4], ks[3]} {
		if !l.deliver(0, k) {
			t.Fatalf("first delivery of %d reported as a duplicate", k)
		}
	}
	if l.deliver(0, ks[1]) {
		t.Fatal("a second delivery is not reported")
	}
	// Subscriber 1 misses one acknowledged message and gets the refused one.
	l.deliver(1, ks[0])
	l.deliver(1, ks[4])
	l.deliver(1, ks[2])
	if l.deliver(1, 1000) || l.deliver(1, -1) {
		t.Fatal("a number never given out is accepted")
	}

	// The drain's cheap check counts arrivals: subscriber 1 has 3, short of subscriber 0's 4.
	if l.complete(4) || !l.complete(3) {
		t.Fatal("complete counts wrong")
	}
	got := l.tally()
	want := tally{Lost: 1, Duplicated: 3, Unacked: 1, Refused: 1}
	if got != want {
		t.Fatalf("tally = %+v, want %+v", got, want)
	}
	if got.ok() {
		t.Fatal("a run with losses is ok")
	}
}

// TestLedgerSeqs: seqs must grow on each stream, independently of the others.
func TestLedgerSeqs(t *testing.T) {
	l := newLedger(1, 2)
	for _, s := range []int64{5, 6, 9} {
		l.seq(0, s)
	}
	l.seq(1, 3)
	l.seq(0, 9) // repeated
	l.seq(0, 7) // back
	if got := l.tally().OutOfOrder; got != 2 {
		t.Fatalf("out of order = %d, want 2", got)
	}
}

// TestLedgerIsBounded: take stops at the capacity, so a run never sends more than planned.
func TestLedgerIsBounded(t *testing.T) {
	l := newLedger(3, 1)
	for i := range 3 {
		if k := l.take(); k != int64(i) {
			t.Fatalf("take = %d, want %d", k, i)
		}
	}
	if l.take() != -1 || l.taken() != 3 {
		t.Fatal("the ledger gives out more numbers than it holds")
	}
	for k := range int64(3) {
		l.settle(k, acked)
		l.deliver(0, k)
	}
	if !l.complete(3) || !l.tally().ok() {
		t.Fatalf("a complete delivery: %+v", l.tally())
	}
}
