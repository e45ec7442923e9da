package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"hearth/auth"
)

var bg = context.Background()

func testAccount(sub, username string, created time.Time, pending bool) auth.Account {
	return auth.Account{
		Subject:   sub,
		Username:  username,
		CreatedAt: created,
		Pending:   pending,
		Password:  auth.PasswordHash{Algorithm: "argon2id", Version: 0x13, MemoryKiB: 1024, Iterations: 1, Parallelism: 1, Salt: []byte("salt"), Hash: []byte("hash")},
	}
}

func TestAccountsCreateReadAndTakeOverStalePending(t *testing.T) {
	a := openTestDB(t).Accounts()
	now := time.Now().Truncate(time.Millisecond)
	if err := a.CreateAccount(bg, testAccount("s1", "alice", now, true), now.Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := a.AccountByUsername(bg, "alice")
	if err != nil || got.Subject != "s1" || !got.Pending || string(got.Password.Hash) != "hash" || got.Password.MemoryKiB != 1024 || !got.CreatedAt.Equal(now) {
		t.Fatalf("AccountByUsername = %+v, %v", got, err)
	}
	// A fresh pending account holds its name; an active one too.
	if err := a.CreateAccount(bg, testAccount("s2", "alice", now, true), now.Add(-10*time.Minute)); !errors.Is(err, auth.ErrUsernameTaken) {
		t.Fatalf("second alice: %v", err)
	}
	// Once stale, it gives the name to a new sign-up, and is gone.
	if err := a.CreateAccount(bg, testAccount("s2", "alice", now, true), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Account(bg, "s1"); !errors.Is(err, auth.ErrAccountNotFound) {
		t.Fatalf("the stale account: %v", err)
	}
	// Deleting the stale account's subject again does not free the new holder's name.
	if err := a.DeleteAccount(bg, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := a.ActivateAccount(bg, "s2"); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateAccount(bg, testAccount("s3", "alice", now, true), now.Add(time.Hour)); !errors.Is(err, auth.ErrUsernameTaken) {
		t.Fatalf("an active account's name: %v", err)
	}
	if err := a.DeleteAccount(bg, "s2"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AccountByUsername(bg, "alice"); !errors.Is(err, auth.ErrAccountNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestAccountsPasswordAndSignOutMoveTheEpoch(t *testing.T) {
	a := openTestDB(t).Accounts()
	now := time.Now()
	if err := a.CreateAccount(bg, testAccount("s1", "bob", now, false), now); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeRefreshTokens(bg, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := a.SetPassword(bg, "s1", auth.PasswordHash{Algorithm: "argon2id", Hash: []byte("new")}, now); err != nil {
		t.Fatal(err)
	}
	got, err := a.Account(bg, "s1")
	if err != nil || got.TokenEpoch != 2 || string(got.Password.Hash) != "new" || got.PasswordChangedAt.IsZero() {
		t.Fatalf("account = %+v, %v", got, err)
	}
	if err := a.RevokeRefreshTokens(bg, "nobody"); !errors.Is(err, auth.ErrAccountNotFound) {
		t.Fatalf("unknown account: %v", err)
	}
}

func TestRefreshTokenRotationIsOnceOnly(t *testing.T) {
	db := openTestDB(t)
	a := db.Accounts()
	now := time.Now()
	tok := func(h string) auth.RefreshToken {
		return auth.RefreshToken{Hash: []byte(h), Subject: "s1", Family: "f1", ClientID: "hearth-web", IssuedAt: now, Expires: now.Add(time.Hour)}
	}
	if err := a.PutRefreshToken(bg, tok("h0")); err != nil {
		t.Fatal(err)
	}
	// Ten rotations of the same token at once: exactly one wins.
	var wg sync.WaitGroup
	results := make([]error, 10)
	for i := range results {
		wg.Go(func() { results[i] = a.RotateRefreshToken(bg, []byte("h0"), tok("h1-"+string(rune('a'+i)))) })
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, auth.ErrTokenSpent):
			t.Fatalf("rotation: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d rotations of one token succeeded", wins)
	}
	old, err := a.RefreshToken(bg, []byte("h0"))
	if err != nil || !old.Spent || old.FamilyRevoked {
		t.Fatalf("old token = %+v, %v", old, err)
	}
	if err := a.RevokeFamily(bg, "f1", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if old, err := a.RefreshToken(bg, []byte("h0")); err != nil || !old.FamilyRevoked {
		t.Fatalf("after revoking the family = %+v, %v", old, err)
	}
	if _, err := a.RefreshToken(bg, []byte("unknown")); !errors.Is(err, auth.ErrTokenNotFound) {
		t.Fatalf("unknown token: %v", err)
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
