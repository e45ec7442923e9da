package store

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

func openTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), ProfileSmall, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func commit(t *testing.T, db *DB, fn func(b *Batch) error) {
	t.Helper()
	b := db.NewBatch()
	defer b.Discard()
	if err := fn(b); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFirstKeptEntryMatchesAScan: on channels of sparse seqs (other channels take the seqs in
// between) and growing times, the binary search finds what a scan from the start finds, for
// every cutoff around every message's time.
func TestFirstKeptEntryMatchesAScan(t *testing.T) {
	db := openTestDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 64, 200} {
		ch := fmt.Sprint("ch-", n)
		var seqs, times []int64
		seq, at := int64(0), int64(1000)
		commit(t, db, func(b *Batch) error {
			for i := range n {
				seq += 1 + rng.Int64N(50)
				at += rng.Int64N(3) // equal times happen: a batch shares its clock
				seqs, times = append(seqs, seq), append(times, at)
				if err := b.PutEntry(ch, seq, &storepb.MessageEntry{MessageId: fmt.Sprint(i), CreatedAtMs: at}); err != nil {
					return err
				}
			}
			return nil
		})
		err := db.View(func(r *Reader) error {
			for cutoff := int64(999); cutoff <= at+2; cutoff++ {
				want := int64(0)
				for i := range seqs {
					if times[i] >= cutoff {
						want = seqs[i]
						break
					}
				}
				got, err := r.FirstKeptEntry(ch, cutoff)
				if err != nil {
					return err
				}
				if got != want {
					t.Errorf("%d messages, cutoff %d: FirstKeptEntry = %d, want %d", n, cutoff, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestLastKeptMessageSeqSkipsRepliesOfOldRoots: the newest message kept is not a reply whose
// root is past the cutoff, however new the reply.
func TestLastKeptMessageSeqSkipsRepliesOfOldRoots(t *testing.T) {
	db := openTestDB(t)
	commit(t, db, func(b *Batch) error {
		for _, e := range []struct {
			seq      int64
			at, root int64
		}{
			{1, 100, 0},   // old root
			{2, 200, 0},   // kept
			{3, 300, 100}, // a late reply of the old root
			{4, 310, 100},
		} {
			en := &storepb.MessageEntry{CreatedAtMs: e.at, ThreadReply: e.root > 0, RootCreatedAtMs: e.root}
			if err := b.PutEntry("c", e.seq, en); err != nil {
				return err
			}
		}
		return nil
	})
	err := db.View(func(r *Reader) error {
		for _, tc := range []struct{ cutoff, below, want int64 }{
			{0, 10, 4},
			{150, 10, 2},
			{150, 1, 0},
			{250, 10, 0},
			{50, 10, 4},
		} {
			got, err := r.LastKeptMessageSeq("c", tc.below, tc.cutoff)
			if err != nil {
				return err
			}
			if got != tc.want {
				t.Errorf("cutoff %d, at or below %d: %d, want %d", tc.cutoff, tc.below, got, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheckMessagesFindsDanglingRows: the checker the purge's tests rely on does see each kind
// of dangling row.
func TestCheckMessagesFindsDanglingRows(t *testing.T) {
	db := openTestDB(t)
	root := &svcv1.Message{Id: "root", ChannelId: "c", CreatedSeq: 1}
	reply := &svcv1.Message{Id: "reply", ChannelId: "c", CreatedSeq: 2, ThreadRootId: "root"}
	commit(t, db, func(b *Batch) error {
		if err := b.AddMessage(root, &storepb.MessageEntry{MessageId: "root"}); err != nil {
			return err
		}
		return b.AddMessage(reply, &storepb.MessageEntry{MessageId: "reply", ThreadReply: true})
	})
	check := func() MessageCheck {
		t.Helper()
		var out MessageCheck
		if err := db.View(func(r *Reader) (err error) { out, err = r.CheckMessages(); return err }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := check(); got.Messages != 2 || got.Replies != 1 || len(got.Problems) != 0 {
		t.Fatalf("a whole store: %+v", got)
	}
	// The root's row alone goes: the reply outlives it, and the root's index rows dangle.
	commit(t, db, func(b *Batch) error { return b.delete(key(prefixMessage, "root")) })
	if got := check(); len(got.Problems) != 3 {
		t.Fatalf("after deleting the root's row only: %q, want the orphan reply and two dangling index rows", got.Problems)
	}
	commit(t, db, func(b *Batch) error { return b.DeleteMessage(root) })
	commit(t, db, func(b *Batch) error { return b.delete(seqKey(prefixChanLog, "c", 2)) })
	if got := check(); len(got.Problems) != 2 {
		t.Fatalf("after deleting the reply's entry: %q, want the orphan reply and its missing entry", got.Problems)
	}
}
