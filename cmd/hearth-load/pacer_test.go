package main

import (
	"testing"
	"time"
)

// TestPacerKeepsTheGrid: sends are due on the grid whatever the answers cost; a sender a
// little late catches up; one more than maxLag late skips what it missed.
func TestPacerKeepsTheGrid(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := &pacer{start: t0, interval: 200 * time.Millisecond, maxLag: time.Second}
	for i := range 3 {
		due, skipped := p.next(t0)
		if want := t0.Add(time.Duration(i) * 200 * time.Millisecond); !due.Equal(want) || skipped != 0 {
			t.Fatalf("send %d due %v skipped %d, want %v", i, due, skipped, want)
		}
	}
	// 500 ms late (the fourth slot was at 600 ms): catch up, no skip.
	due, skipped := p.next(t0.Add(1100 * time.Millisecond))
	if !due.Equal(t0.Add(600*time.Millisecond)) || skipped != 0 {
		t.Fatalf("a slightly late send: due %v skipped %d", due, skipped)
	}
	// At 3 s the fifth slot (800 ms) is 2.2 s late: jump to the slot due now.
	due, skipped = p.next(t0.Add(3 * time.Second))
	if skipped != 11 || !due.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("a send far behind: due %v skipped %d, want 3s and 11", due.Sub(t0), skipped)
	}
	due, _ = p.next(t0.Add(3 * time.Second))
	if !due.Equal(t0.Add(3200 * time.Millisecond)) {
		t.Fatalf("after the jump the grid goes on: %v", due.Sub(t0))
	}
}

// TestSendersShareTheRate: S senders at r each are spread over one interval, so together they
// send at S*r evenly; an unpaced sender is always due now.
func TestSendersShareTheRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var dues []time.Duration
	for i := range 4 {
		p := senderSchedule(t0, 4, i, 5, time.Second)
		for range 2 {
			due, _ := p.next(t0)
			dues = append(dues, due.Sub(t0))
		}
	}
	want := []time.Duration{0, 200, 50, 250, 100, 300, 150, 350}
	for i := range want {
		if dues[i] != want[i]*time.Millisecond {
			t.Fatalf("dues %v, want %v ms", dues, want)
		}
	}
	p := senderSchedule(t0, 4, 1, 0, time.Second)
	now := t0.Add(time.Hour)
	if due, _ := p.next(now); !due.Equal(now) {
		t.Fatal("an unpaced sender waits")
	}
}

// TestCapacity: the ledger holds what the schedule can send, bounded by -max-messages.
func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want int
	}{
		{Config{Senders: 13, Rate: 50, Duration: 30 * time.Second, MaxMessages: 1e6}, 1500 + 13},
		{Config{Senders: 100, SenderRate: 5, Duration: 10 * time.Second, MaxMessages: 1e6}, 5000 + 100},
		{Config{Senders: 10, Duration: 10 * time.Second, MaxMessages: 777}, 777},
		{Config{Senders: 10, Rate: 1e6, Duration: time.Hour, MaxMessages: 5000}, 5000},
		{Config{Senders: 0, Rate: 50, Duration: time.Second, MaxMessages: 5000}, 0},
	} {
		if got := tc.c.capacity(); got != tc.want {
			t.Errorf("%+v: capacity %d, want %d", tc.c, got, tc.want)
		}
	}
}
