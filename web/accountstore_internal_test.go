package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"hearth/auth"
	"hearth/engine/store"
)

// TestAccountStoreKeepsEveryFieldAndSpeaksAuthsErrors: what the built-in issuer stores
// through the adapter comes back whole (every field of an account and of a refresh token,
// times to the millisecond), and the store's answers come back as auth's errors, which the
// issuer tells apart (a taken name, a missing account, a reused refresh token).
func TestAccountStoreKeepsEveryFieldAndSpeaksAuthsErrors(t *testing.T) {
	t.Parallel()
	db, err := store.Open(t.TempDir(), store.ProfileSmall, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := accountStore{db.Accounts()}
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli())

	acc := auth.Account{
		Subject:     "s1",
		Username:    "alice",
		DisplayName: "Alice",
		Password: auth.PasswordHash{
			Algorithm: "argon2id", Version: 0x13, MemoryKiB: 19456, Iterations: 2, Parallelism: 1,
			Salt: []byte("salt"), Hash: []byte("hash"),
		},
		CreatedAt:         now.Add(-time.Hour),
		Pending:           true,
		TokenEpoch:        3,
		PasswordChangedAt: now.Add(-time.Minute),
	}
	if err := s.CreateAccount(ctx, acc, now.Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, get := range []func() (auth.Account, error){
		func() (auth.Account, error) { return s.Account(ctx, "s1") },
		func() (auth.Account, error) { return s.AccountByUsername(ctx, "alice") },
	} {
		if got, err := get(); err != nil || !reflect.DeepEqual(got, acc) {
			t.Fatalf("read back %+v, %v; want %+v", got, err, acc)
		}
	}
	if err := s.CreateAccount(ctx, auth.Account{Subject: "s2", Username: "alice", CreatedAt: now}, now.Add(-2*time.Hour)); !errors.Is(err, auth.ErrUsernameTaken) {
		t.Fatalf("a held username: %v", err)
	}
	if _, err := s.Account(ctx, "nobody"); !errors.Is(err, auth.ErrAccountNotFound) {
		t.Fatalf("Account of nobody: %v", err)
	}
	if _, err := s.AccountByUsername(ctx, "nobody"); !errors.Is(err, auth.ErrAccountNotFound) {
		t.Fatalf("AccountByUsername of nobody: %v", err)
	}
	for name, change := range map[string]func() error{
		"ActivateAccount":     func() error { return s.ActivateAccount(ctx, "nobody") },
		"SetPassword":         func() error { return s.SetPassword(ctx, "nobody", acc.Password, now) },
		"RevokeRefreshTokens": func() error { return s.RevokeRefreshTokens(ctx, "nobody") },
	} {
		if err := change(); !errors.Is(err, auth.ErrAccountNotFound) {
			t.Errorf("%s of nobody: %v", name, err)
		}
	}
	newPassword := auth.PasswordHash{Algorithm: "argon2id", Version: 0x13, Salt: []byte("salt2"), Hash: []byte("hash2")}
	if err := s.SetPassword(ctx, "s1", newPassword, now); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Account(ctx, "s1"); err != nil || !reflect.DeepEqual(got.Password, newPassword) || !got.PasswordChangedAt.Equal(now) || got.TokenEpoch != 4 {
		t.Fatalf("after SetPassword: %+v, %v", got, err)
	}

	tok := auth.RefreshToken{
		Hash:     []byte("h0"),
		Subject:  "s1",
		Family:   "f1",
		Epoch:    4,
		ClientID: "hearth-web",
		Scopes:   []string{"openid", "offline_access"},
		IssuedAt: now,
		Expires:  now.Add(time.Hour),
		AuthTime: now.Add(-time.Minute),
		AMR:      []string{"pwd"},
	}
	if err := s.PutRefreshToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RefreshToken(ctx, tok.Hash); err != nil || !reflect.DeepEqual(got, tok) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, tok)
	}
	next := tok
	next.Hash = []byte("h1")
	if err := s.RotateRefreshToken(ctx, tok.Hash, next); err != nil {
		t.Fatal(err)
	}
	if err := s.RotateRefreshToken(ctx, tok.Hash, next); !errors.Is(err, auth.ErrTokenSpent) {
		t.Fatalf("a second rotation: %v", err)
	}
	if err := s.RotateRefreshToken(ctx, []byte("unknown"), next); !errors.Is(err, auth.ErrTokenNotFound) {
		t.Fatalf("rotating an unknown token: %v", err)
	}
	if _, err := s.RefreshToken(ctx, []byte("unknown")); !errors.Is(err, auth.ErrTokenNotFound) {
		t.Fatalf("reading an unknown token: %v", err)
	}
	if err := s.RevokeFamily(ctx, "f1", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RefreshToken(ctx, tok.Hash); err != nil || !got.Spent || !got.FamilyRevoked {
		t.Fatalf("the first token after the family's revocation: %+v, %v", got, err)
	}
}
