package engine

import (
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

func publishN(h *hub, n int) {
	for range n {
		h.publish([]hubEntry{{frame: newFrame(&svcv1.Event{})}}, &Directory{})
	}
}

// TestHubReleasesWhatEveryStreamRead: the ring lets go of the entries (and so of their
// Directories) that every open stream has read past, and of everything when no stream is
// open; it keeps what a stream has yet to read, a stream still replaying included.
func TestHubReleasesWhatEveryStreamRead(t *testing.T) {
	h := newHub(1024, 0, &Directory{})
	slot := func(pos int) hubEntry { return h.ring[pos%len(h.ring)] }
	cur := h.cursor() // a stream replaying from the log, at position 0
	publishN(h, 300)
	if slot(0).dir == nil || slot(299).dir == nil {
		t.Fatal("released entries a stream has not read")
	}
	cur.reg.pos.Store(200)
	publishN(h, 256)
	if slot(199).dir != nil || slot(0).frame != nil {
		t.Fatal("kept entries every stream has read")
	}
	if slot(200).dir == nil || slot(555).dir == nil {
		t.Fatal("released entries the stream has yet to read")
	}
	rr := h.read(200, nil)
	if rr.lost || len(rr.entries) != 356 || rr.entries[0].dir == nil {
		t.Fatalf("the stream reads %d entries (lost %v)", len(rr.entries), rr.lost)
	}
	h.leave(cur.reg)
	publishN(h, 256) // the last release comes at 768: every 256 entries
	for pos := 0; pos < 768; pos++ {
		if slot(pos).dir != nil {
			t.Fatalf("with no stream open, entry %d is kept", pos)
		}
	}
}
