package store

import (
	"context"
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/auth"
	"hearth/engine/store/storepb"
)

// Accounts is the built-in issuer's auth.AccountStore in this database. Its rows live under
// prefixes of their own (0xD0-0xDF) that the engine's writer never reads or writes, and each
// method is one Badger transaction of its own: Badger checks every transaction for conflicts
// with the keys it read, so these writes can neither lose the writer's nor lose each other's
// (two rotations of one refresh token cannot both succeed).
type Accounts struct{ db *DB }

// Accounts returns the account store of db.
func (db *DB) Accounts() *Accounts { return &Accounts{db: db} }

var _ auth.AccountStore = (*Accounts)(nil)

// conflictRetries bounds how often an account write is retried after losing a conflict.
const conflictRetries = 5

// update runs fn in a read-write transaction, again when it lost a conflict with another
// transaction of the same keys.
func (a *Accounts) update(fn func(txn *badger.Txn) error) error {
	var err error
	for range conflictRetries {
		err = a.db.bdb.Update(fn)
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
	}
	return err
}

func accountKey(subject string) []byte   { return key(prefixAccount, subject) }
func usernameKey(username string) []byte { return key(prefixUsername, username) }
func refreshKey(hash []byte) []byte      { return append([]byte{prefixRefreshToken}, hash...) }
func familyKey(family string) []byte     { return key(prefixRevokedFamily, family) }

func getProtoTxn(txn *badger.Txn, k []byte, m proto.Message) error {
	return (&Reader{txn: txn}).getProto(k, m)
}

func setProto(txn *badger.Txn, k []byte, m proto.Message, expiresAt time.Time) error {
	v, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	e := badger.NewEntry(k, v)
	if !expiresAt.IsZero() {
		// Badger drops the row by itself after this (Unix seconds, wall clock).
		e.ExpiresAt = uint64(max(expiresAt.Unix(), 1))
	}
	return txn.SetEntry(e)
}

func (a *Accounts) CreateAccount(ctx context.Context, acc auth.Account, staleBefore time.Time) error {
	return a.update(func(txn *badger.Txn) error {
		holder := new(storepb.AccountRecord)
		var sub []byte
		item, err := txn.Get(usernameKey(acc.Username))
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return err
		default:
			if sub, err = item.ValueCopy(nil); err != nil {
				return err
			}
			err := getProtoTxn(txn, accountKey(string(sub)), holder)
			switch {
			case errors.Is(err, ErrNotFound):
				// An index row without its account: nobody holds the name.
			case err != nil:
				return err
			case holder.GetPending() && time.UnixMilli(holder.GetCreatedAtMs()).Before(staleBefore):
				if err := txn.Delete(accountKey(string(sub))); err != nil {
					return err
				}
			default:
				return auth.ErrUsernameTaken
			}
		}
		if err := txn.Set(usernameKey(acc.Username), []byte(acc.Subject)); err != nil {
			return err
		}
		return setProto(txn, accountKey(acc.Subject), accountRecord(acc), time.Time{})
	})
}

func (a *Accounts) Account(ctx context.Context, subject string) (auth.Account, error) {
	var out auth.Account
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		var err error
		out, err = readAccount(txn, subject)
		return err
	})
	return out, err
}

func (a *Accounts) AccountByUsername(ctx context.Context, username string) (auth.Account, error) {
	var out auth.Account
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(usernameKey(username))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return auth.ErrAccountNotFound
		}
		if err != nil {
			return err
		}
		sub, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		out, err = readAccount(txn, string(sub))
		return err
	})
	return out, err
}

func readAccount(txn *badger.Txn, subject string) (auth.Account, error) {
	rec := new(storepb.AccountRecord)
	err := getProtoTxn(txn, accountKey(subject), rec)
	if errors.Is(err, ErrNotFound) {
		return auth.Account{}, auth.ErrAccountNotFound
	}
	if err != nil {
		return auth.Account{}, err
	}
	return accountOf(rec), nil
}

// changeAccount reads, changes and writes one account row.
func (a *Accounts) changeAccount(subject string, change func(*storepb.AccountRecord)) error {
	return a.update(func(txn *badger.Txn) error {
		rec := new(storepb.AccountRecord)
		err := getProtoTxn(txn, accountKey(subject), rec)
		if errors.Is(err, ErrNotFound) {
			return auth.ErrAccountNotFound
		}
		if err != nil {
			return err
		}
		change(rec)
		return setProto(txn, accountKey(subject), rec, time.Time{})
	})
}

func (a *Accounts) ActivateAccount(ctx context.Context, subject string) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) { r.Pending = false })
}

func (a *Accounts) SetPassword(ctx context.Context, subject string, p auth.PasswordHash, at time.Time) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) {
		r.Password = passwordRecord(p)
		r.PasswordChangedAtMs = at.UnixMilli()
		r.TokenEpoch++
	})
}

func (a *Accounts) RevokeRefreshTokens(ctx context.Context, subject string) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) { r.TokenEpoch++ })
}

func (a *Accounts) DeleteAccount(ctx context.Context, subject string) error {
	return a.update(func(txn *badger.Txn) error {
		rec := new(storepb.AccountRecord)
		err := getProtoTxn(txn, accountKey(subject), rec)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		// The username row goes only if it still names this account (a stale pending account
		// may have lost its name to a newer sign-up).
		item, err := txn.Get(usernameKey(rec.GetUsername()))
		if err == nil {
			held, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if string(held) == subject {
				if err := txn.Delete(usernameKey(rec.GetUsername())); err != nil {
					return err
				}
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		return txn.Delete(accountKey(subject))
	})
}

// refreshRowExpiry keeps a refresh token row a while past its expiry: a spent token is read
// until then to recognise a reuse.
const refreshRowMargin = time.Hour

func (a *Accounts) PutRefreshToken(ctx context.Context, t auth.RefreshToken) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, refreshKey(t.Hash), refreshRecord(t), t.Expires.Add(refreshRowMargin))
	})
}

func (a *Accounts) RefreshToken(ctx context.Context, hash []byte) (auth.RefreshToken, error) {
	var out auth.RefreshToken
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		rec := new(storepb.RefreshTokenRecord)
		err := getProtoTxn(txn, refreshKey(hash), rec)
		if errors.Is(err, ErrNotFound) {
			return auth.ErrTokenNotFound
		}
		if err != nil {
			return err
		}
		out = refreshTokenOf(hash, rec)
		_, err = txn.Get(familyKey(rec.GetFamily()))
		switch {
		case err == nil:
			out.FamilyRevoked = true
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		return nil
	})
	return out, err
}

func (a *Accounts) RotateRefreshToken(ctx context.Context, oldHash []byte, next auth.RefreshToken) error {
	// No retry on a conflict: losing one means another rotation of the same token committed
	// first, and this one is a reuse.
	err := a.db.bdb.Update(func(txn *badger.Txn) error {
		rec := new(storepb.RefreshTokenRecord)
		item, err := txn.Get(refreshKey(oldHash))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return auth.ErrTokenNotFound
		}
		if err != nil {
			return err
		}
		if err := item.Value(func(v []byte) error { return proto.Unmarshal(v, rec) }); err != nil {
			return err
		}
		if rec.GetSpent() {
			return auth.ErrTokenSpent
		}
		rec.Spent = true
		if err := setProto(txn, refreshKey(oldHash), rec, time.UnixMilli(rec.GetExpiresAtMs()).Add(refreshRowMargin)); err != nil {
			return err
		}
		return setProto(txn, refreshKey(next.Hash), refreshRecord(next), next.Expires.Add(refreshRowMargin))
	})
	if errors.Is(err, badger.ErrConflict) {
		return auth.ErrTokenSpent
	}
	return err
}

func (a *Accounts) RevokeFamily(ctx context.Context, family string, until time.Time) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, familyKey(family), &storepb.RevokedFamilyRecord{RevokedAtMs: time.Now().UnixMilli()}, until.Add(refreshRowMargin))
	})
}

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

func accountOf(r *storepb.AccountRecord) auth.Account {
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
	return a
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
