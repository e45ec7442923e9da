package engine

import (
	"sync"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// Typing and presence are published against the hub's newest Snapshot while the writer
// publishes commits. The hub must never go back to an older Snapshot: new streams replay
// and read with the cursor's Snapshot, and an old one would judge visibility against a
// community that no longer is (a member removed from a private channel would see it again).
func TestEphemeralPublishesNeverRestoreAnOlderSnapshot(t *testing.T) {
	for round := range 200 {
		first := emptySnapshot()
		first.seq = 1
		p := newPublisher(8192, 1, first)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					p.publishEphemeral(&svcv1.Event{Kind: &svcv1.Event_Heartbeat{Heartbeat: true}}, toEveryone())
				}
			}()
		}
		var last *Snapshot
		for seq := int64(2); seq < 50; seq++ {
			d := emptySnapshot()
			d.seq = seq
			p.publish([]Delivery{{Frame: newFrame(&svcv1.Event{Seq: seq}), Audience: toEveryone()}}, d)
			last = d
		}
		close(stop)
		wg.Wait()
		if seq, snap := p.newest(); snap != last {
			t.Fatalf("round %d: new followers start at seq %d with the Snapshot of seq %d", round, seq, snap.Seq())
		}
	}
}
