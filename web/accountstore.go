package web

import (
	"context"
	"errors"
	"time"

	"hearth/auth"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// accountStore is the built-in issuer's auth.AccountStore over the database's accounts
// (store.Accounts keeps them as storepb records and knows nothing of auth): it turns auth's
// types into the records and back, and the store's answers into auth's errors.
type accountStore struct{ a *store.Accounts }

// AccountStore is the built-in issuer's auth.AccountStore over a database's accounts, for
// commands that open the database themselves (hearth reset-link with the server stopped).
func AccountStore(a *store.Accounts) auth.AccountStore { return accountStore{a} }

var _ auth.AccountStore = accountStore{}

func (s accountStore) CreateAccount(_ context.Context, a auth.Account, staleBefore time.Time) error {
	return accountErr(s.a.CreateAccount(accountRecord(a), staleBefore))
}

func (s accountStore) Account(_ context.Context, subject string) (auth.Account, error) {
	return accountOf(s.a.Account(subject))
}

func (s accountStore) AccountByUsername(_ context.Context, username string) (auth.Account, error) {
	return accountOf(s.a.AccountByUsername(username))
}

func (s accountStore) ActivateAccount(_ context.Context, subject string) error {
	return accountErr(s.a.ActivateAccount(subject))
}

func (s accountStore) DeleteAccount(_ context.Context, subject string) error {
	return accountErr(s.a.DeleteAccount(subject))
}

func (s accountStore) SetPassword(_ context.Context, subject string, p auth.PasswordHash, at time.Time) error {
	return accountErr(s.a.SetPassword(subject, passwordRecord(p), at))
}

func (s accountStore) RevokeRefreshTokens(_ context.Context, subject string) error {
	return accountErr(s.a.RevokeRefreshTokens(subject))
}

func (s accountStore) PutRefreshToken(_ context.Context, t auth.RefreshToken) error {
	return s.a.PutRefreshToken(t.Hash, refreshRecord(t))
}

func (s accountStore) RefreshToken(_ context.Context, hash []byte) (auth.RefreshToken, error) {
	rec, familyRevoked, err := s.a.RefreshToken(hash)
	if err != nil {
		return auth.RefreshToken{}, tokenErr(err)
	}
	t := refreshTokenOf(hash, rec)
	t.FamilyRevoked = familyRevoked
	return t, nil
}

func (s accountStore) RotateRefreshToken(_ context.Context, oldHash []byte, next auth.RefreshToken) error {
	return tokenErr(s.a.RotateRefreshToken(oldHash, next.Hash, refreshRecord(next)))
}

func (s accountStore) RevokeFamily(_ context.Context, family string, until time.Time) error {
	return s.a.RevokeFamily(family, until)
}

// authErr is the store's answer in auth's words; a missing row is notFound (a missing account
// or a missing refresh token).
func authErr(err, notFound error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound
	case errors.Is(err, store.ErrUsernameTaken):
		return auth.ErrUsernameTaken
	case errors.Is(err, store.ErrTokenSpent):
		return auth.ErrTokenSpent
	}
	return err
}

func accountErr(err error) error { return authErr(err, auth.ErrAccountNotFound) }
func tokenErr(err error) error   { return authErr(err, auth.ErrTokenNotFound) }

func accountRecord(a auth.Account) *storepb.AccountRecord {
	rec := &storepb.AccountRecord{
		Subject:     a.Subject,
		Username:    a.Username,
		DisplayName: a.DisplayName,
		Password:    passwordRecord(a.Password),
		CreatedAtMs: a.CreatedAt.UnixMilli(),
		Pending:     a.Pending,
		TokenEpoch:  a.TokenEpoch,
	}
	if !a.PasswordChangedAt.IsZero() {
		rec.PasswordChangedAtMs = a.PasswordChangedAt.UnixMilli()
	}
	return rec
}

func accountOf(r *storepb.AccountRecord, err error) (auth.Account, error) {
	if err != nil {
		return auth.Account{}, accountErr(err)
	}
	a := auth.Account{
		Subject:     r.GetSubject(),
		Username:    r.GetUsername(),
		DisplayName: r.GetDisplayName(),
		CreatedAt:   time.UnixMilli(r.GetCreatedAtMs()),
		Pending:     r.GetPending(),
		TokenEpoch:  r.GetTokenEpoch(),
	}
	if p := r.GetPassword(); p != nil {
		a.Password = auth.PasswordHash{
			Algorithm:   p.GetAlgorithm(),
			Version:     p.GetVersion(),
			MemoryKiB:   p.GetMemoryKib(),
			Iterations:  p.GetIterations(),
			Parallelism: p.GetParallelism(),
			Salt:        p.GetSalt(),
			Hash:        p.GetHash(),
		}
	}
	if ms := r.GetPasswordChangedAtMs(); ms != 0 {
		a.PasswordChangedAt = time.UnixMilli(ms)
	}
	return a, nil
}

func passwordRecord(p auth.PasswordHash) *storepb.PasswordHash {
	return &storepb.PasswordHash{
		Algorithm:   p.Algorithm,
		Version:     p.Version,
		MemoryKib:   p.MemoryKiB,
		Iterations:  p.Iterations,
		Parallelism: p.Parallelism,
		Salt:        p.Salt,
		Hash:        p.Hash,
	}
}

func refreshRecord(t auth.RefreshToken) *storepb.RefreshTokenRecord {
	return &storepb.RefreshTokenRecord{
		Subject:     t.Subject,
		Family:      t.Family,
		Epoch:       t.Epoch,
		ClientId:    t.ClientID,
		Scopes:      t.Scopes,
		IssuedAtMs:  t.IssuedAt.UnixMilli(),
		ExpiresAtMs: t.Expires.UnixMilli(),
		AuthTimeMs:  t.AuthTime.UnixMilli(),
		Amr:         t.AMR,
		Spent:       t.Spent,
	}
}

func refreshTokenOf(hash []byte, r *storepb.RefreshTokenRecord) auth.RefreshToken {
	return auth.RefreshToken{
		Hash:     append([]byte(nil), hash...),
		Subject:  r.GetSubject(),
		Family:   r.GetFamily(),
		Epoch:    r.GetEpoch(),
		ClientID: r.GetClientId(),
		Scopes:   r.GetScopes(),
		IssuedAt: time.UnixMilli(r.GetIssuedAtMs()),
		Expires:  time.UnixMilli(r.GetExpiresAtMs()),
		AuthTime: time.UnixMilli(r.GetAuthTimeMs()),
		AMR:      r.GetAmr(),
		Spent:    r.GetSpent(),
	}
}
