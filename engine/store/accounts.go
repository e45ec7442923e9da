package store

import (
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
)

// Accounts keeps the built-in issuer's accounts and refresh tokens in this database, as
// storepb records (web adapts it to auth.AccountStore). Its rows live under prefixes of their
// own (0xD0-0xDF) that the engine's writer never reads or writes, and each method is one
// Badger transaction of its own: Badger checks every transaction for conflicts with the keys
// it read, so these writes can neither lose the writer's nor lose each other's (two rotations
// of one refresh token cannot both succeed). A missing account or refresh token is
// ErrNotFound.
type Accounts struct{ db *DB }

// Accounts returns the account store of db.
func (db *DB) Accounts() *Accounts { return &Accounts{db: db} }

// The account store's answers that are not failures of the store itself.
var (
	// ErrUsernameTaken answers CreateAccount for a username another account holds.
	ErrUsernameTaken = errors.New("username taken")
	// ErrTokenSpent answers a rotation of a refresh token that was rotated already.
	ErrTokenSpent = errors.New("refresh token already used")
)

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

// CreateAccount stores a new account under its subject and username. A username held by a
// pending account created before staleBefore is taken over (the stale account is deleted);
// any other holder makes it ErrUsernameTaken.
func (a *Accounts) CreateAccount(acc *storepb.AccountRecord, staleBefore time.Time) error {
	return a.update(func(txn *badger.Txn) error {
		holder := new(storepb.AccountRecord)
		var sub []byte
		item, err := txn.Get(usernameKey(acc.GetUsername()))
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
				return ErrUsernameTaken
			}
		}
		if err := txn.Set(usernameKey(acc.GetUsername()), []byte(acc.GetSubject())); err != nil {
			return err
		}
		return setProto(txn, accountKey(acc.GetSubject()), acc, time.Time{})
	})
}

// Account reads the account of a subject.
func (a *Accounts) Account(subject string) (*storepb.AccountRecord, error) {
	var out *storepb.AccountRecord
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		var err error
		out, err = readAccount(txn, subject)
		return err
	})
	return out, err
}

// AccountByUsername reads the account that holds a username.
func (a *Accounts) AccountByUsername(username string) (*storepb.AccountRecord, error) {
	var out *storepb.AccountRecord
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(usernameKey(username))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return ErrNotFound
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

func readAccount(txn *badger.Txn, subject string) (*storepb.AccountRecord, error) {
	rec := new(storepb.AccountRecord)
	if err := getProtoTxn(txn, accountKey(subject), rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// changeAccount reads, changes and writes one account row.
func (a *Accounts) changeAccount(subject string, change func(*storepb.AccountRecord)) error {
	return a.update(func(txn *badger.Txn) error {
		rec, err := readAccount(txn, subject)
		if err != nil {
			return err
		}
		change(rec)
		return setProto(txn, accountKey(subject), rec, time.Time{})
	})
}

// ActivateAccount clears Pending.
func (a *Accounts) ActivateAccount(subject string) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) { r.Pending = false })
}

// SetPassword replaces the password and moves TokenEpoch on, in one write.
func (a *Accounts) SetPassword(subject string, p *storepb.PasswordHash, at time.Time) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) {
		r.Password = p
		r.PasswordChangedAtMs = at.UnixMilli()
		r.TokenEpoch++
	})
}

// RevokeRefreshTokens moves TokenEpoch on: every refresh token of the account is revoked.
func (a *Accounts) RevokeRefreshTokens(subject string) error {
	return a.changeAccount(subject, func(r *storepb.AccountRecord) { r.TokenEpoch++ })
}

// DeleteAccount deletes an account and frees its username. Deleting a missing account is
// fine.
func (a *Accounts) DeleteAccount(subject string) error {
	return a.update(func(txn *badger.Txn) error {
		rec, err := readAccount(txn, subject)
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

// refreshRowMargin keeps a refresh token row a while past its expiry: a spent token is read
// until then to recognise a reuse.
const refreshRowMargin = time.Hour

// refreshRowExpiry is when Badger drops a refresh token's row.
func refreshRowExpiry(t *storepb.RefreshTokenRecord) time.Time {
	return time.UnixMilli(t.GetExpiresAtMs()).Add(refreshRowMargin)
}

// PutRefreshToken stores a new refresh token under the SHA-256 of the token; the store drops
// it after it expires.
func (a *Accounts) PutRefreshToken(hash []byte, t *storepb.RefreshTokenRecord) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, refreshKey(hash), t, refreshRowExpiry(t))
	})
}

// RefreshToken reads a refresh token by its hash, and whether its family was revoked.
func (a *Accounts) RefreshToken(hash []byte) (t *storepb.RefreshTokenRecord, familyRevoked bool, err error) {
	err = a.db.bdb.View(func(txn *badger.Txn) error {
		rec := new(storepb.RefreshTokenRecord)
		if err := getProtoTxn(txn, refreshKey(hash), rec); err != nil {
			return err
		}
		t = rec
		_, err := txn.Get(familyKey(rec.GetFamily()))
		switch {
		case err == nil:
			familyRevoked = true
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return t, familyRevoked, nil
}

// RotateRefreshToken marks the token oldHash spent and stores next under nextHash, in one
// transaction. A token already spent (by an earlier or a concurrent rotation) is
// ErrTokenSpent and changes nothing.
func (a *Accounts) RotateRefreshToken(oldHash, nextHash []byte, next *storepb.RefreshTokenRecord) error {
	// No retry on a conflict: losing one means another rotation of the same token committed
	// first, and this one is a reuse.
	err := a.db.bdb.Update(func(txn *badger.Txn) error {
		rec := new(storepb.RefreshTokenRecord)
		if err := getProtoTxn(txn, refreshKey(oldHash), rec); err != nil {
			return err
		}
		if rec.GetSpent() {
			return ErrTokenSpent
		}
		rec.Spent = true
		if err := setProto(txn, refreshKey(oldHash), rec, refreshRowExpiry(rec)); err != nil {
			return err
		}
		return setProto(txn, refreshKey(nextHash), next, refreshRowExpiry(next))
	})
	if errors.Is(err, badger.ErrConflict) {
		return ErrTokenSpent
	}
	return err
}

// RevokeFamily revokes every refresh token of a family; the mark is kept until until, when
// no token of the family can be valid any more.
func (a *Accounts) RevokeFamily(family string, until time.Time) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, familyKey(family), &storepb.RevokedFamilyRecord{RevokedAtMs: time.Now().UnixMilli()}, until.Add(refreshRowMargin))
	})
}
