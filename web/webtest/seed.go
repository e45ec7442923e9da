package webtest

import (
	"fmt"
	"path/filepath"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Seeding writes rows straight into the database, for the states a test needs that no call can
// make yet (or that would take many calls): a rank, a block. The engine is stopped while
// the rows are written and started again on the same data, exactly as after a restart, so the
// running server sees them as if they had always been there. No events are logged for seeded
// rows. Seed before opening streams: a restart ends them.

// Seed stops the server, runs fn in one transaction of its database, and starts it again.
func (s *Server) Seed(fn func(b *store.Batch) error) {
	s.t.Helper()
	s.RestartAfter(func() {
		db, err := store.Open(filepath.Join(s.Dir, "db"), store.ProfileSmall, Logger())
		if err != nil {
			s.t.Fatal(err)
		}
		b := db.NewBatch()
		err = fn(b)
		if err == nil {
			err = b.Commit()
		}
		b.Discard()
		if err != nil {
			s.t.Fatalf("seed: %v", err)
		}
		if err := db.Close(); err != nil {
			s.t.Fatal(err)
		}
	})
}

// SeedRanks gives the members of clients the ranks asked for (and updates their Member).
func (s *Server) SeedRanks(ranks map[*Client]svcv1.MemberRole) {
	s.t.Helper()
	s.Seed(func(b *store.Batch) error {
		for c, rank := range ranks {
			rec, err := memberRecord(&b.Reader, c.Member.GetId())
			if err != nil {
				return err
			}
			rec.Member.Role = rank
			if err := b.PutMember(rec); err != nil {
				return err
			}
			c.Member.Role = rank
		}
		return nil
	})
}

// SeedBlock records that blocker blocked blocked (as BlockMember will).
func (s *Server) SeedBlock(blocker, blocked *Client) {
	s.t.Helper()
	s.Seed(func(b *store.Batch) error {
		return b.SetBlock(blocker.Member.GetId(), blocked.Member.GetId(), true)
	})
}

func memberRecord(r *store.Reader, id string) (*storepb.MemberRecord, error) {
	var found *storepb.MemberRecord
	err := r.Members(func(m *storepb.MemberRecord) error {
		if m.GetMember().GetId() == id {
			found = m
		}
		return nil
	})
	if err == nil && found == nil {
		err = fmt.Errorf("member %s is not in the database", id)
	}
	return found, err
}
