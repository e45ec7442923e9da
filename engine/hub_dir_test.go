package engine

import (
	"sync"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// Typing and presence are published against the hub's newest Directory while the writer
// publishes commits. The hub must never go back to an older Directory: new streams replay
// and read with the cursor's Directory, and an old one would judge visibility against a
// community that no longer is (a member removed from a private channel would see it again).
func TestEphemeralPublishesNeverRestoreAnOlderDirectory(t *testing.T) {
	for round := range 200 {
		first := emptyDirectory()
		first.seq = 1
		h := newHub(8192, 1, first)
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
					h.publishEphemeral(&svcv1.Event{Kind: &svcv1.Event_Heartbeat{Heartbeat: true}}, toEveryone())
				}
			}()
		}
		var last *Directory
		for seq := int64(2); seq < 50; seq++ {
			d := emptyDirectory()
			d.seq = seq
			h.publish([]hubEntry{{frame: newFrame(&svcv1.Event{Seq: seq}), aud: toEveryone()}}, d)
			last = d
		}
		close(stop)
		wg.Wait()
		if c := h.cursor(); c.dir != last {
			t.Fatalf("round %d: the cursor is at seq %d with the Directory of seq %d", round, c.seq, c.dir.Seq())
		}
	}
}
