package store

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

func testAccount(sub, username string, created time.Time, pending bool) *storepb.AccountRecord {
	return &storepb.AccountRecord{
		Subject:     sub,
		Username:    username,
		CreatedAtMs: created.UnixMilli(),
		Pending:     pending,
		Password:    &storepb.PasswordHash{Algorithm: "argon2id", Version: 0x13, MemoryKib: 1024, Iterations: 1, Parallelism: 1, Salt: []byte("salt"), Hash: []byte("hash")},
	}
}

func TestAccountsCreateReadAndTakeOverStalePending(t *testing.T) {
	a := openTestDB(t).Accounts()
	now := time.Now().Truncate(time.Millisecond)
	if err := a.CreateAccount(testAccount("s1", "alice", now, true), now.Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := a.AccountByUsername("alice")
	if err != nil || got.GetSubject() != "s1" || !got.GetPending() || string(got.GetPassword().GetHash()) != "hash" || got.GetPassword().GetMemoryKib() != 1024 || got.GetCreatedAtMs() != now.UnixMilli() {
		t.Fatalf("AccountByUsername = %v, %v", got, err)
	}
	// A fresh pending account holds its name; an active one too.
	if err := a.CreateAccount(testAccount("s2", "alice", now, true), now.Add(-10*time.Minute)); !errors.Is(err, ErrUsernameTaken) {
		t.Fatalf("second alice: %v", err)
	}
	// Once stale, it gives the name to a new sign-up, and is gone.
	if err := a.CreateAccount(testAccount("s2", "alice", now, true), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Account("s1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the stale account: %v", err)
	}
	// Deleting the stale account's subject again does not free the new holder's name.
	if err := a.DeleteAccount("s1"); err != nil {
		t.Fatal(err)
	}
	if err := a.ActivateAccount("s2"); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateAccount(testAccount("s3", "alice", now, true), now.Add(time.Hour)); !errors.Is(err, ErrUsernameTaken) {
		t.Fatalf("an active account's name: %v", err)
	}
	if err := a.DeleteAccount("s2"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AccountByUsername("alice"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestAccountsPasswordAndSignOutMoveTheEpoch(t *testing.T) {
	a := openTestDB(t).Accounts()
	now := time.Now()
	if err := a.CreateAccount(testAccount("s1", "bob", now, false), now); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeRefreshTokens("s1"); err != nil {
		t.Fatal(err)
	}
	if err := a.SetPassword("s1", &storepb.PasswordHash{Algorithm: "argon2id", Hash: []byte("new")}, now); err != nil {
		t.Fatal(err)
	}
	got, err := a.Account("s1")
	if err != nil || got.GetTokenEpoch() != 2 || string(got.GetPassword().GetHash()) != "new" || got.GetPasswordChangedAtMs() != now.UnixMilli() {
		t.Fatalf("account = %v, %v", got, err)
	}
	if err := a.RevokeRefreshTokens("nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown account: %v", err)
	}
	if err := a.SetPassword("nobody", &storepb.PasswordHash{}, now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown account's password: %v", err)
	}
}

func TestRefreshTokenRotationIsOnceOnly(t *testing.T) {
	db := openTestDB(t)
	a := db.Accounts()
	now := time.Now()
	tok := &storepb.RefreshTokenRecord{Subject: "s1", Family: "f1", ClientId: "hearth-web", IssuedAtMs: now.UnixMilli(), ExpiresAtMs: now.Add(time.Hour).UnixMilli()}
	if err := a.PutRefreshToken([]byte("h0"), tok); err != nil {
		t.Fatal(err)
	}
	// Ten rotations of the same token at once: exactly one wins.
	var wg sync.WaitGroup
	results := make([]error, 10)
	for i := range results {
		wg.Go(func() { results[i] = a.RotateRefreshToken([]byte("h0"), []byte("h1-"+string(rune('a'+i))), tok) })
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, ErrTokenSpent):
			t.Fatalf("rotation: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d rotations of one token succeeded", wins)
	}
	old, revoked, err := a.RefreshToken([]byte("h0"))
	if err != nil || !old.GetSpent() || revoked || old.GetClientId() != "hearth-web" {
		t.Fatalf("old token = %v, revoked %v, %v", old, revoked, err)
	}
	if err := a.RevokeFamily("f1", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, revoked, err := a.RefreshToken([]byte("h0")); err != nil || !revoked {
		t.Fatalf("after revoking the family: revoked %v, %v", revoked, err)
	}
	if _, _, err := a.RefreshToken([]byte("unknown")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	if err := a.RotateRefreshToken([]byte("unknown"), []byte("h2"), tok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rotating an unknown token: %v", err)
	}
	// Rows carry a TTL past their expiry, so Badger drops them by itself.
	err = db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(refreshKey([]byte("h0")))
		if err != nil {
			return err
		}
		if want := uint64(now.Add(time.Hour + refreshRowMargin).Unix()); item.ExpiresAt() != want {
			t.Errorf("ExpiresAt = %d, want %d", item.ExpiresAt(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
