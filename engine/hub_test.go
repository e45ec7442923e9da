package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

func publishN(h *hub, n int) {
	for range n {
		h.publish([]Delivery{{Frame: newFrame(&svcv1.Event{})}}, &Snapshot{})
	}
}

// TestHubReleasesWhatEveryStreamRead: the ring lets go of the entries (and so of their
// Snapshots) that every open stream has read past, and of everything when no stream is
// open; it keeps what a stream has yet to read, a stream still replaying included.
func TestHubReleasesWhatEveryStreamRead(t *testing.T) {
	h := newHub(1024, 0, &Snapshot{})
	slot := func(pos int) Delivery { return h.ring[pos%len(h.ring)] }
	reg := &readPos{}
	h.cursor(reg) // a stream replaying from the log, at position 0
	publishN(h, 300)
	if slot(0).Snapshot == nil || slot(299).Snapshot == nil {
		t.Fatal("released entries a stream has not read")
	}
	reg.pos.Store(200)
	publishN(h, 256)
	if slot(199).Snapshot != nil || slot(0).Frame != nil {
		t.Fatal("kept entries every stream has read")
	}
	if slot(200).Snapshot == nil || slot(555).Snapshot == nil {
		t.Fatal("released entries the stream has yet to read")
	}
	rr := h.read(200, nil)
	if rr.lost || len(rr.entries) != 356 || rr.entries[0].Snapshot == nil {
		t.Fatalf("the stream reads %d entries (lost %v)", len(rr.entries), rr.lost)
	}
	h.leave(reg)
	publishN(h, 256) // the last release comes at 768: every 256 entries
	for pos := 0; pos < 768; pos++ {
		if slot(pos).Snapshot != nil {
			t.Fatalf("with no stream open, entry %d is kept", pos)
		}
	}
}

// TestReuseDropsLargeBuffers: a stream keeps its read buffer between reads only while it is
// small, and never with entries in it.
func TestReuseDropsLargeBuffers(t *testing.T) {
	small := make([]Delivery, 3, keepEntries)
	small[0].Frame = newFrame(&svcv1.Event{})
	got := reuse(small)
	if len(got) != 0 || cap(got) != keepEntries || small[0].Frame != nil {
		t.Fatalf("a small buffer: len %d cap %d, entries cleared: %v", len(got), cap(got), small[0].Frame == nil)
	}
	if got := reuse(make([]Delivery, 10, keepEntries+1)); got != nil {
		t.Fatalf("a large buffer is kept (cap %d)", cap(got))
	}
}

// TestFrameEncodedOnceForEveryStream: streams on several goroutines take a new event's
// encodings at once; each format is encoded once, and every stream gets those bytes.
func TestFrameEncodedOnceForEveryStream(t *testing.T) {
	f := newFrame(&svcv1.Event{Seq: 3})
	var encodings atomic.Int32
	marshal := func(format string) func(*svcv1.Event) ([]byte, error) {
		return func(ev *svcv1.Event) ([]byte, error) {
			encodings.Add(1)
			return fmt.Appendf(nil, "%s %d", format, ev.GetSeq()), nil
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for i := range 100 {
				format := []string{"proto", "json"}[i%2]
				b, err := f.Encoded(format, marshal(format))
				if err != nil || string(b) != format+" 3" {
					errs <- fmt.Errorf("%s: %q, %v", format, b, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := encodings.Load(); n != 2 {
		t.Fatalf("%d encodings for two formats", n)
	}
}
