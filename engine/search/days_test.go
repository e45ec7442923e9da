package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// TestDaysAgainstModelWithImportedHistory: before: and after: against a brute-force model when
// the documents' times do not grow with them, as after imports (runs of old messages written
// with new seqs between messages sent live), found by the lists and by the ops still in memory
// together, after batches of every size (one op, an import's thousand, many days at once).
func TestDaysAgainstModelWithImportedHistory(t *testing.T) {
	db, ix := openHeldIndex(t)
	rng := rand.New(rand.NewPCG(7, 8))
	type doc struct {
		at    int64
		ch    string
		terms []string
	}
	docs := map[int64]doc{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	live := start + 200*dayMs // the live clock; imports go back up to 200 days before it
	var staged []Staged
	b := db.NewBatch()
	n := int64(0)
	commit := func(flush bool) {
		t.Helper()
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Discard()
		b = db.NewBatch()
		ix.Committed(staged)
		staged = nil
		if flush {
			if err := ix.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	add := func(at int64, ch string) {
		t.Helper()
		n++
		d := doc{at: at, ch: ch, terms: []string{ChannelTerm(ch), AuthorTerm(fmt.Sprintf("m%d", rng.IntN(3)))}}
		slices.Sort(d.terms)
		docs[n] = d
		s, err := ix.Stage(b, &storepb.SearchOp{Doc: n, ChannelId: ch, Terms: d.terms, AtMs: at})
		if err != nil {
			t.Fatal(err)
		}
		staged = append(staged, s)
	}
	for run := range 40 {
		if rng.IntN(3) == 0 {
			// An import: a channel's history, oldest first, from up to 200 days back.
			at := live - rng.Int64N(200*dayMs)
			ch := fmt.Sprintf("imported%d", run)
			for range 1 + rng.IntN(150) {
				at += rng.Int64N(12 * 3600_000)
				add(min(at, live), ch)
			}
		} else {
			// Messages sent live, by up to 5 hours apart: some days have none.
			for range 1 + rng.IntN(60) {
				live += rng.Int64N(5 * 3600_000)
				add(live, fmt.Sprintf("c%d", rng.IntN(4)))
			}
		}
		// Applied at once, or left to pile up; the last runs stay in memory.
		commit(run < 36 && rng.IntN(2) == 0)
	}
	if ix.Pending() == 0 {
		t.Fatal("nothing waits in memory")
	}
	for i := range 400 {
		f := Filter{}
		if rng.IntN(3) != 0 {
			f.AfterMs = start + rng.Int64N(live-start+dayMs)
			if rng.IntN(2) == 0 {
				f.AfterMs -= f.AfterMs % dayMs
			}
		}
		if f.AfterMs == 0 || rng.IntN(2) == 0 {
			f.BeforeMs = start + rng.Int64N(live-start+2*dayMs)
			if rng.IntN(2) == 0 {
				f.BeforeMs -= f.BeforeMs % dayMs
			}
		}
		if rng.IntN(4) == 0 {
			f.AuthorID = fmt.Sprintf("m%d", rng.IntN(3))
		}
		visible := func(ch string) bool { return ch != "c3" }
		var want []int64
		for d := n; d >= 1; d-- {
			dd := docs[d]
			if visible(dd.ch) && f.inTime(dd.at) && (f.AuthorID == "" || slices.Contains(dd.terms, AuthorTerm(f.AuthorID))) {
				want = append(want, d)
			}
		}
		var got []int64
		err := ix.Candidates(context.Background(), &Query{Filter: f}, visible, func(d int64, _ string) bool {
			// The lists may propose a document outside the days: Find checks each by its time.
			if f.inTime(docs[d].at) {
				got = append(got, d)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d %+v: got %d docs %v..., want %d %v...", i, f, len(got), head(got), len(want), head(want))
		}
	}
}

// openHeldIndex opens an index over a new database that keeps its ops in memory until Flush,
// ready to take them; it is closed when the test ends.
func openHeldIndex(t *testing.T) (*store.DB, *Index) {
	t.Helper()
	db := openTestDB(t)
	be, err := OpenBadger(db)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(db, be, Options{ApplyAfter: time.Hour, ApplyAt: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	for !ix.Ready() {
		time.Sleep(time.Millisecond)
	}
	return db, ix
}
