package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"hearth/engine/store/storepb"
)

// TestHereReached: the members an <!here> reached are found by a binary search in one row,
// whatever their order and repeats, and nobody else is; Mentions puts the kinds of mention
// together.
func TestHereReached(t *testing.T) {
	db := openTestDB(t)
	rng := rand.New(rand.NewPCG(1, 1))
	var reached, others []string
	for i := range 2000 {
		id := fmt.Sprintf("0190f0a0-0000-7000-8000-%012d", rng.IntN(1_000_000_000))
		if i%2 == 0 {
			reached = append(reached, id, id) // repeats are dropped
		} else if !slices.Contains(reached, id) {
			others = append(others, id)
		}
	}
	commit(t, db, func(b *Batch) error { return b.PutHere("c", 7, append(reached, "not-a-uuid")) })
	err := db.View(func(r *Reader) error {
		for _, id := range reached {
			if ok, err := r.HereReached("c", 7, id); err != nil || !ok {
				t.Fatalf("%s: %v %v, want reached", id, ok, err)
			}
		}
		for _, id := range append(others, "not-a-uuid") {
			if ok, err := r.HereReached("c", 7, id); err != nil || ok {
				t.Fatalf("%s: %v %v, want not reached", id, ok, err)
			}
		}
		if ok, _ := r.HereReached("c", 8, reached[0]); ok {
			t.Fatal("another message's <!here> reached them too")
		}
		e := &storepb.MessageEntry{MentionIds: []string{"m"}, ReplyToAuthorId: "r"}
		for _, tc := range []struct {
			e    *storepb.MessageEntry
			id   string
			want bool
		}{
			{e, "m", true},
			{e, "r", true},
			{e, reached[0], false},
			{&storepb.MessageEntry{MentionsEveryone: true}, "anyone", true},
			{&storepb.MessageEntry{MentionsHere: true}, reached[0], true},
			{&storepb.MessageEntry{MentionsHere: true}, others[0], false},
		} {
			if got, err := r.Mentions("c", 7, tc.e, tc.id); err != nil || got != tc.want {
				t.Errorf("Mentions(%v, %s) = %v %v, want %v", tc.e, tc.id, got, err, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, db, func(b *Batch) error { return b.DeleteHere("c", 7) })
	err = db.View(func(r *Reader) error {
		if ok, _ := r.HereReached("c", 7, reached[0]); ok {
			t.Fatal("reached after DeleteHere")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
