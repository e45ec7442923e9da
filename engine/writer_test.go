package engine

import (
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

func openTestEngine(t *testing.T, dir string) *Engine {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(dir, "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		db.Close()
	})
	return e
}

func role(id string) *svcv1.Role { return &svcv1.Role{Id: id, Name: id} }

// TestAFailedChangeLeavesNoTrace: in one batch, a change that fails before writing, one that
// fails after writing and one that panics leave nothing behind, and the others commit with
// consecutive seqs.
func TestAFailedChangeLeavesNoTrace(t *testing.T) {
	e := openTestEngine(t, t.TempDir())
	start := e.Seq()
	good := func(id string) func(tx *Tx) (any, error) {
		return func(tx *Tx) (any, error) {
			if err := tx.putRole(role(id)); err != nil {
				return nil, err
			}
			_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_RoleUpdated{RoleUpdated: role(id)}})
			return id, err
		}
	}
	changes := []func(tx *Tx) (any, error){
		good("a"),
		func(tx *Tx) (any, error) { return nil, invalid("refused before writing") },
		good("b"),
		func(tx *Tx) (any, error) {
			tx.putRole(role("half"))
			return nil, invalid("refused after writing")
		},
		good("c"),
		func(tx *Tx) (any, error) {
			tx.putRole(role("panicked"))
			panic("boom")
		},
		good("d"),
	}
	// Queue them all before the writer runs, so they share a batch.
	results := make([]result, len(changes))
	var wg sync.WaitGroup
	hold := make(chan struct{})
	go submit(e, func(tx *Tx) (struct{}, error) { <-hold; return struct{}{}, nil })
	for i, fn := range changes {
		wg.Add(1)
		c := &change{fn: fn, res: make(chan result, 1)}
		e.queue <- c
		go func() {
			defer wg.Done()
			results[i] = <-c.res
		}()
	}
	close(hold)
	wg.Wait()
	for i, want := range []string{"a", "", "b", "", "c", "", "d"} {
		r := results[i]
		if (want == "") != (r.err != nil) || (want != "" && r.v != want) {
			t.Errorf("change %d: %v, %v", i, r.v, r.err)
		}
	}
	var ee *Error
	if !errors.As(results[5].err, &ee) || ee.Code != CodeInternal || ee.Msg != "internal error" {
		t.Errorf("the panic's error is %v, want a plain internal error", results[5].err)
	}
	d := e.Snapshot()
	for _, id := range []string{"half", "panicked"} {
		if d.Role(id) != nil {
			t.Errorf("role %q of a failed change is in the Snapshot", id)
		}
	}
	var seqs []int64
	var stored []string
	err := e.db.View(func(r *store.Reader) error {
		if err := r.Events(start, 1<<62, func(le *storepb.LoggedEvent) (bool, error) {
			seqs = append(seqs, le.GetEvent().GetSeq())
			return true, nil
		}); err != nil {
			return err
		}
		return r.Roles(func(r *svcv1.Role) error {
			stored = append(stored, r.GetId())
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 4 || seqs[3] != start+4 || e.Seq() != start+4 {
		t.Fatalf("events %v after seq %d (now %d), want 4 consecutive", seqs, start, e.Seq())
	}
	if len(stored) != 4 {
		t.Fatalf("stored roles %v, want a b c d", stored)
	}
}

// TestDraftNeverTouchesAPublishedSnapshot: a draft clones what it changes, maps and inner sets
// alike, and a dropped draft leaves the published Snapshot as it was.
func TestDraftNeverTouchesAPublishedSnapshot(t *testing.T) {
	pub := emptySnapshot()
	d := pub.newDraft()
	d.setBlock("a", "b", true)
	d.setJoined("c1", "m1", true)
	d.setRole(role("r1"))
	first := d.publish(1)
	if !first.Blocked("a", "b") || !first.Joined("c1", "m1") || first.Role("r1") == nil {
		t.Fatal("the draft's changes are not in what it published")
	}
	if pub.Blocked("a", "b") || pub.Joined("c1", "m1") || pub.Role("r1") != nil {
		t.Fatal("the draft changed the Snapshot it was made from")
	}
	d = first.newDraft()
	d.setBlock("a", "c", true)
	d.setBlock("a", "b", false)
	d.setJoined("c1", "m2", true)
	d.deleteRole("r1")
	if !first.Blocked("a", "b") || first.Blocked("a", "c") || first.Joined("c1", "m2") || first.Role("r1") == nil {
		t.Fatal("a second draft changed the published Snapshot's inner sets")
	}
	second := d.publish(2)
	if second.Blocked("a", "b") || !second.Blocked("a", "c") || !second.Joined("c1", "m2") || second.Role("r1") != nil {
		t.Fatal("the second draft's changes are missing")
	}
}

func TestSnapshotIndexesFollowMembers(t *testing.T) {
	d := emptySnapshot().newDraft()
	hash := [32]byte{1}
	bot := &storepb.MemberRecord{
		Member:       &svcv1.Member{Id: "b1", Username: "Helper", Kind: svcv1.MemberKind_MEMBER_KIND_BOT},
		State:        storepb.MemberState_MEMBER_STATE_ACTIVE,
		BotTokenHash: hash[:],
	}
	d.setMember(bot)
	if !d.usernameTaken("helper", "") || d.botByTokenHash(hash) == nil {
		t.Fatal("a new bot is not indexed")
	}
	deleted := &storepb.MemberRecord{Member: bot.Member, State: storepb.MemberState_MEMBER_STATE_DELETED, BotTokenHash: hash[:]}
	d.setMember(deleted)
	if d.usernameTaken("helper", "") || d.botByTokenHash(hash) != nil {
		t.Fatal("a deleted bot still holds its username or token")
	}
	person := &storepb.MemberRecord{
		Member: &svcv1.Member{Id: "p1", Username: "alice"}, Issuer: "https://id", Subject: "a",
		State: storepb.MemberState_MEMBER_STATE_LEFT,
	}
	d.setMember(person)
	if d.memberByLogin("https://id", "a") == nil || !d.usernameTaken("alice", "") || d.usernameTaken("alice", "p1") {
		t.Fatal("a member who left lost their login or username")
	}
}
