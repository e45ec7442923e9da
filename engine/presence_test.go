package engine

import (
	"testing"
	"time"

	"hearth/engine/clock"
	svcv1 "hearth/proto/svc/v1"
)

// presenceOnManualClock is a presence tracker on a clock the test moves, and what it published.
func presenceOnManualClock(grace time.Duration) (*presence, *clock.Manual, *[]*svcv1.Event) {
	c := clock.NewManual(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	var got []*svcv1.Event
	p := newPresence(grace, c, func(ev *svcv1.Event) { got = append(got, ev) })
	return p, c, &got
}

// TestPresenceCoalesces: a change after a quiet window is published at once, alone; the
// changes that follow within the window go together at its end, as one presence_batch with
// the latest change per member, in order.
func TestPresenceCoalesces(t *testing.T) {
	p, c, got := presenceOnManualClock(time.Hour)
	p.opened("a")
	if evs := *got; len(evs) != 1 || evs[0].GetPresence().GetMemberId() != "a" {
		t.Fatalf("the first change was not published at once, alone: %v", evs)
	}
	p.opened("b")
	p.opened("c")
	p.set("b", true)
	c.Advance(presenceWindow - time.Millisecond)
	if evs := *got; len(evs) != 1 {
		t.Fatalf("changes within the window were published before its end: %v", evs)
	}
	c.Advance(time.Millisecond)
	evs := *got
	if len(evs) != 2 {
		t.Fatalf("at the window's end %d publishes, want 2: %v", len(evs), evs)
	}
	changes := evs[1].GetPresenceBatch().GetChanges()
	if len(changes) != 2 ||
		changes[0].GetMemberId() != "b" || changes[0].GetPresence() != svcv1.Presence_PRESENCE_AWAY ||
		changes[1].GetMemberId() != "c" || changes[1].GetPresence() != svcv1.Presence_PRESENCE_ONLINE {
		t.Fatalf("published %v", evs)
	}
}

// TestPresenceGrace: a member stays ONLINE for the grace period after their last stream
// closes, a reconnect within it changes nothing, and OFFLINE follows once it has passed.
func TestPresenceGrace(t *testing.T) {
	const grace = 30 * time.Second
	p, c, got := presenceOnManualClock(grace)
	p.opened("a")
	p.closed("a")
	c.Advance(grace - time.Second)
	p.opened("a") // a reconnect within the grace period
	p.closed("a")
	c.Advance(grace - time.Second)
	if p.get("a") != svcv1.Presence_PRESENCE_ONLINE || len(*got) != 1 {
		t.Fatalf("within the grace period: %v and %d publishes, want ONLINE and 1", p.get("a"), len(*got))
	}
	c.Advance(time.Second)
	evs := *got
	if p.get("a") != svcv1.Presence_PRESENCE_OFFLINE || len(evs) != 2 || evs[1].GetPresence().GetPresence() != svcv1.Presence_PRESENCE_OFFLINE {
		t.Fatalf("after the grace period: %v and %v, want OFFLINE published", p.get("a"), evs)
	}
}
