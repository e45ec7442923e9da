package engine

import (
	"io"
	"log/slog"
	"testing"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// TestBeyondNewestCountsEventsAcrossRestoreGaps: on a log with a pruned start and two restore
// gaps, for every n the seq beyondNewest gives leaves exactly the newest n events above it
// (all of them once n reaches the log's length) and the rest at or below it.
func TestBeyondNewestCountsEventsAcrossRestoreGaps(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.ProfileSmall, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seqs []int64
	for seq := int64(3); seq <= 7; seq++ {
		seqs = append(seqs, seq)
	}
	for seq := int64(7) + restoreSeqGap; seq <= 9+restoreSeqGap; seq++ {
		seqs = append(seqs, seq)
	}
	seqs = append(seqs, 9+2*restoreSeqGap) // a restore straight after a restore
	for seq := int64(9) + 3*restoreSeqGap; seq <= 12+3*restoreSeqGap; seq++ {
		seqs = append(seqs, seq)
	}
	b := db.NewBatch()
	for _, seq := range seqs {
		if err := b.AppendEvent(&storepb.LoggedEvent{Event: &svcv1.Event{Seq: seq}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	last := seqs[len(seqs)-1]
	for n := int64(1); n <= int64(len(seqs))+2; n++ {
		var from int64
		if err := db.View(func(r *store.Reader) (err error) {
			from, err = beyondNewest(r, last, n)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		above := 0
		for _, seq := range seqs {
			if seq > from {
				above++
			}
		}
		if want := min(int(n), len(seqs)); above != want {
			t.Errorf("n %d: beyondNewest %d leaves %d events above it, want %d", n, from, above, want)
		}
	}
	var empty int64 = -1
	if err := db.View(func(r *store.Reader) (err error) {
		empty, err = beyondNewest(r, 0, 10)
		return err
	}); err != nil || empty != 0 {
		t.Fatalf("an empty log: %d, %v; want 0", empty, err)
	}
}
