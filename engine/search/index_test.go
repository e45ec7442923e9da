package search

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

func openTestDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// model is what the lists should hold: doc -> its channel and terms.
type model map[int64]struct {
	ch    string
	terms []string
}

func (m model) want(exact, prefixes []string, visible func(string) bool) []int64 {
	var out []int64
	for doc, d := range m {
		if visible(d.ch) && holdsWords(d.terms, exact, prefixes) {
			out = append(out, doc)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// TestListsAgainstModel applies random adds, edits and removes to the posting lists and checks
// every query against a brute-force model: the same documents, newest first.
func TestListsAgainstModel(t *testing.T) {
	t.Run("badger", func(t *testing.T) {
		be, err := OpenBadger(openTestDB(t))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		vocab := []string{"alpha", "alps", "alpine", "beta", "bet", "gamma", "delta", "zeta", "eta", "common"}
		m := model{}
		var through uint64
		for round := range 8 {
			var ops []*storepb.SearchOp
			for range 300 {
				doc := int64(rng.IntN(600) + 1)
				if round < 2 {
					doc = int64(round*300+len(ops)) + 1 // mostly appends at first
				}
				if old, ok := m[doc]; ok {
					ops = append(ops, &storepb.SearchOp{Doc: doc, ChannelId: old.ch, Remove: true, Terms: old.terms})
					delete(m, doc)
					if rng.IntN(3) == 0 {
						continue // deleted
					}
				}
				ch := fmt.Sprintf("c%d", doc%7)
				var terms []string
				for _, v := range vocab {
					if v == "common" || rng.IntN(4) == 0 {
						terms = append(terms, v)
					}
				}
				slices.Sort(terms)
				terms = withStems(terms)
				m[doc] = struct {
					ch    string
					terms []string
				}{ch, terms}
				ops = append(ops, &storepb.SearchOp{Doc: doc, ChannelId: ch, Terms: terms})
			}
			through += uint64(len(ops))
			if err := be.Apply(ops, through); err != nil {
				t.Fatal(err)
			}
			if n, err := be.Applied(); err != nil || n != through {
				t.Fatalf("Applied = %d, %v; want %d", n, err, through)
			}
			all := func(string) bool { return true }
			some := func(ch string) bool { return ch == "c1" || ch == "c4" }
			for _, q := range []struct{ exact, prefixes []string }{
				{[]string{"common"}, nil},
				{[]string{"alpha"}, nil},
				{[]string{"alpha", "beta"}, nil},
				{[]string{"alpha", "beta", "gamma"}, nil},
				{nil, []string{"alp"}},
				{[]string{"delta"}, []string{"be"}},
				{nil, []string{"nothing"}},
				{[]string{"missing"}, nil},
				{nil, nil},
			} {
				for vi, vis := range []func(string) bool{all, some} {
					want := m.want(q.exact, q.prefixes, vis)
					var got []int64
					plan := Plan{Exact: q.exact, Prefixes: q.prefixes}
					for _, p := range q.prefixes {
						if s, ok := Stem(p); ok {
							plan.Stems = append(plan.Stems, s)
						}
					}
					err := be.Candidates(plan, vis, func(doc int64, ch string) bool {
						if d, ok := m[doc]; ok && d.ch != ch {
							t.Errorf("doc %d came with channel %s, not %s", doc, ch, d.ch)
						}
						got = append(got, doc)
						return true
					})
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("round %d, %v/%v visible %d: got %d docs %v..., want %d %v...", round, q.exact, q.prefixes, vi, len(got), head(got), len(want), head(want))
					}
				}
			}
		}
	})
}

// withStems adds the stems of the terms, as Analyze does.
func withStems(terms []string) []string {
	out := slices.Clone(terms)
	for _, t := range terms {
		if s, ok := Stem(t); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func head(s []int64) []int64 { return s[:min(len(s), 8)] }

// TestIndexFindsCommittedOps checks the index's own promise: an op is found from the moment it
// is handed over as committed, while it waits, after it is applied and after a restart.
func TestIndexFindsCommittedOps(t *testing.T) {
	db := openTestDB(t)
	be, err := OpenBadger(db)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(db, be, Options{ApplyAfter: time.Hour, ApplyAt: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	stage := func(ops ...*storepb.SearchOp) {
		b := db.NewBatch()
		var staged []Staged
		for _, op := range ops {
			s, err := ix.Stage(b, op)
			if err != nil {
				t.Fatal(err)
			}
			staged = append(staged, s)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Discard()
		ix.Committed(staged)
	}
	find := func(ix *Index, q string) []int64 {
		t.Helper()
		pq, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		err = ix.Candidates(context.Background(), pq, func(string) bool { return true }, func(doc int64, _ string) bool {
			got = append(got, doc)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for !ix.Ready() {
		time.Sleep(time.Millisecond)
	}
	stage(&storepb.SearchOp{Doc: 1, ChannelId: "a", Terms: Terms("hello world", nil)})
	stage(&storepb.SearchOp{Doc: 2, ChannelId: "a", Terms: Terms("hello there", nil)})
	if got := find(ix, "hello"); !slices.Equal(got, []int64{2, 1}) {
		t.Fatalf("before applying: %v", got)
	}
	if err := ix.applyWaiting(); err != nil {
		t.Fatal(err)
	}
	if got := find(ix, "hello"); !slices.Equal(got, []int64{2, 1}) || ix.Pending() != 0 {
		t.Fatalf("after applying: %v, %d pending", got, ix.Pending())
	}
	stage(&storepb.SearchOp{Doc: 3, ChannelId: "b", Terms: Terms("hello again", nil)})
	// Closing applies what waits; a restart finds it all in the lists.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	be2, err := OpenBadger(db)
	if err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(db, be2, Options{ApplyAfter: time.Hour, ApplyAt: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if got := find(ix2, "hello"); !slices.Equal(got, []int64{3, 2, 1}) || ix2.Pending() != 0 {
		t.Fatalf("after a restart: %v, %d pending", got, ix2.Pending())
	}
	if got := find(ix2, "wor"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("prefix: %v", got)
	}
}

// UndoOp takes out exactly what RemoveOp would, from the op that put it in, so that an edit
// analyzes the old text once.
func TestUndoOpIsRemoveOp(t *testing.T) {
	m := &svcv1.Message{CreatedSeq: 7, ChannelId: "c", Text: "Café au lait, 東京 :tada: <@0190c1d2-0000-7000-8000-000000000000>",
		Attachments: []*svcv1.Attachment{{Name: "menu-2026.pdf"}}}
	if got, want := UndoOp(AddOp(m)), RemoveOp(m); !proto.Equal(got, want) {
		t.Fatalf("UndoOp(AddOp(m)) = %v, want RemoveOp(m) = %v", got, want)
	}
	if UndoOp(nil) != nil {
		t.Fatal("UndoOp(nil) is not nil")
	}
}
