package engine

import (
	"sync"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// TestPresenceCoalesces: a change after a quiet window is published at once, alone; the
// changes that follow within the window go together at its end, as one presence_batch with
// the latest change per member, in order.
func TestPresenceCoalesces(t *testing.T) {
	var mu sync.Mutex
	var got []*svcv1.Event
	p := newPresence(time.Hour, time.Now, func(ev *svcv1.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})
	published := func() []*svcv1.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]*svcv1.Event(nil), got...)
	}
	p.opened("a")
	if evs := published(); len(evs) != 1 || evs[0].GetPresence().GetMemberId() != "a" {
		t.Fatalf("the first change was not published at once, alone: %v", evs)
	}
	p.opened("b")
	p.opened("c")
	p.set("b", true)
	if evs := published(); len(evs) != 1 {
		t.Fatalf("changes within the window were published before its end: %v", evs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(published()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the window's changes were never published")
		}
		time.Sleep(time.Millisecond)
	}
	evs := published()
	changes := evs[1].GetPresenceBatch().GetChanges()
	if len(evs) != 2 || len(changes) != 2 ||
		changes[0].GetMemberId() != "b" || changes[0].GetPresence() != svcv1.Presence_PRESENCE_AWAY ||
		changes[1].GetMemberId() != "c" || changes[1].GetPresence() != svcv1.Presence_PRESENCE_ONLINE {
		t.Fatalf("published %v", evs)
	}
}
