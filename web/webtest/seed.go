package webtest

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"hearth/auth"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Seeding writes rows straight into the database, for the states a test needs that no call can
// make yet (or that would take many calls): a rank, a bot, a block. The engine is stopped while
// the rows are written and started again on the same data, exactly as after a restart, so the
// running server sees them as if they had always been there. No events are logged for seeded
// rows. Seed before opening streams: a restart ends them.

// Seed stops the server, runs fn in one transaction of its database, and starts it again.
func (s *Server) Seed(fn func(b *store.Batch) error) {
	s.t.Helper()
	s.app.CloseStreams()
	s.close()
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
	s.open()
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

// SeedBot adds a bot member with a fresh token and returns a client logged in as it.
func (s *Server) SeedBot(username string) *Client {
	s.t.Helper()
	token, hash, err := auth.NewBotToken()
	if err != nil {
		s.t.Fatal(err)
	}
	m := &svcv1.Member{
		Id:          uuid.Must(uuid.NewV7()).String(),
		Kind:        svcv1.MemberKind_MEMBER_KIND_BOT,
		Role:        svcv1.MemberRole_MEMBER_ROLE_MEMBER,
		Username:    username,
		DisplayName: username,
		JoinedAtMs:  time.Now().UnixMilli(),
	}
	s.Seed(func(b *store.Batch) error {
		return b.PutMember(&storepb.MemberRecord{
			Member:       m,
			State:        storepb.MemberState_MEMBER_STATE_ACTIVE,
			BotTokenHash: hash[:],
		})
	})
	c := s.Client(token)
	c.Member = m
	return c
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
