package store

import (
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// The built-in issuer's rows beside its accounts (see doc.go): second factors and email
// addresses, signed-in devices and one-time tokens. Like accounts.go's, they are written only
// by Accounts, each call in a transaction of its own, never by the engine's writer. These
// methods speak the records of proto/store/v1/accountsecurity.proto; the web layer adapts them
// to the issuer's types (auth.SecurityStore).
const (
	prefixAccountSecurity byte = 0xD4
	prefixEmail           byte = 0xD5
	prefixDevice          byte = 0xD6
)

// AccountTokenKind is the kind of a one-time token, which is its key prefix.
type AccountTokenKind byte

// The kinds of one-time tokens.
const (
	ResetLinkTokens   AccountTokenKind = 0xD7
	EmailLinkTokens   AccountTokenKind = 0xD8
	DeviceCookieToken AccountTokenKind = 0xD9
)

// ErrEmailTaken answers an UpdateSecurity that verifies an address another account has.
var ErrEmailTaken = errors.New("the email address belongs to another account")

func securityKey(subject string) []byte { return key(prefixAccountSecurity, subject) }
func emailKey(address string) []byte    { return key(prefixEmail, address) }
func deviceKey(subject, family string) []byte {
	return key(prefixDevice, subject, family)
}
func tokenKey(kind AccountTokenKind, hash []byte) []byte {
	return append([]byte{byte(kind)}, hash...)
}

// Security reads an account's second factors and email address; an account with none gets an
// empty record.
func (a *Accounts) Security(subject string) (*storepb.AccountSecurityRecord, error) {
	rec := new(storepb.AccountSecurityRecord)
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		return getProtoTxn(txn, securityKey(subject), rec)
	})
	if errors.Is(err, ErrNotFound) {
		return rec, nil
	}
	return rec, err
}

// UpdateSecurity changes an account's record with change, in one transaction, and keeps the
// index of verified addresses in step: an address another account holds is ErrEmailTaken and
// changes nothing. change may run more than once (a conflict is retried).
func (a *Accounts) UpdateSecurity(subject string, change func(*storepb.AccountSecurityRecord) error) error {
	return a.update(func(txn *badger.Txn) error {
		rec := new(storepb.AccountSecurityRecord)
		if err := getProtoTxn(txn, securityKey(subject), rec); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		old := rec.GetEmail()
		if err := change(rec); err != nil {
			return err
		}
		if email := rec.GetEmail(); email != old {
			if email != "" {
				holder, err := txn.Get(emailKey(email))
				switch {
				case errors.Is(err, badger.ErrKeyNotFound):
				case err != nil:
					return err
				default:
					sub, err := holder.ValueCopy(nil)
					if err != nil {
						return err
					}
					if string(sub) != subject {
						return ErrEmailTaken
					}
				}
				if err := txn.Set(emailKey(email), []byte(subject)); err != nil {
					return err
				}
			}
			if old != "" {
				if err := txn.Delete(emailKey(old)); err != nil {
					return err
				}
			}
		}
		return setProto(txn, securityKey(subject), rec, time.Time{})
	})
}

// SubjectByEmail finds the account whose verified address is address (ErrNotFound if none).
func (a *Accounts) SubjectByEmail(address string) (string, error) {
	var sub string
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(emailKey(address))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		sub = string(v)
		return err
	})
	return sub, err
}

// PutAccountToken stores a one-time token under its hash; Badger drops it at its expiry.
func (a *Accounts) PutAccountToken(kind AccountTokenKind, hash []byte, rec *storepb.AccountTokenRecord) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, tokenKey(kind, hash), rec, time.UnixMilli(rec.GetExpiresAtMs()))
	})
}

// AccountToken reads a token (ErrNotFound if none); take also deletes it in the same
// transaction, so that of two concurrent takes one fails.
func (a *Accounts) AccountToken(kind AccountTokenKind, hash []byte, take bool) (*storepb.AccountTokenRecord, error) {
	rec := new(storepb.AccountTokenRecord)
	read := func(txn *badger.Txn) error {
		if err := getProtoTxn(txn, tokenKey(kind, hash), rec); err != nil {
			return err
		}
		if take {
			return txn.Delete(tokenKey(kind, hash))
		}
		return nil
	}
	if !take {
		return rec, a.db.bdb.View(read)
	}
	// No retry: losing a conflict means another take of the same token won.
	err := a.db.bdb.Update(read)
	if errors.Is(err, badger.ErrConflict) {
		return nil, ErrNotFound
	}
	return rec, err
}

// PutDevice stores a signed-in device; Badger drops it when its refresh tokens expire.
func (a *Accounts) PutDevice(subject string, rec *storepb.DeviceRecord) error {
	return a.update(func(txn *badger.Txn) error {
		return setProto(txn, deviceKey(subject, rec.GetFamily()), rec, time.UnixMilli(rec.GetExpiresAtMs()))
	})
}

// TouchDevice records a use of a device (a refresh) and its new expiry; a device not stored
// (signed out meanwhile) stays so.
func (a *Accounts) TouchDevice(subject, family string, at, expires time.Time) error {
	return a.update(func(txn *badger.Txn) error {
		rec := new(storepb.DeviceRecord)
		err := getProtoTxn(txn, deviceKey(subject, family), rec)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rec.LastUsedAtMs, rec.ExpiresAtMs = at.UnixMilli(), expires.UnixMilli()
		return setProto(txn, deviceKey(subject, family), rec, expires)
	})
}

// Devices lists an account's devices, in family order.
func (a *Accounts) Devices(subject string) ([]*storepb.DeviceRecord, error) {
	var out []*storepb.DeviceRecord
	err := a.db.bdb.View(func(txn *badger.Txn) error {
		r := &Reader{txn: txn}
		return scanProto(r, key(prefixDevice, subject, ""), func() *storepb.DeviceRecord { return new(storepb.DeviceRecord) },
			func(_ []byte, m *storepb.DeviceRecord) error {
				out = append(out, m)
				return nil
			})
	})
	return out, err
}

// DeleteDevices deletes the named devices of an account, or all of them when none is named.
func (a *Accounts) DeleteDevices(subject string, families ...string) error {
	return a.update(func(txn *badger.Txn) error {
		if len(families) == 0 {
			r := &Reader{txn: txn}
			err := r.scan(key(prefixDevice, subject, ""), nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
				families = append(families, string(k[len(key(prefixDevice, subject, "")):]))
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		for _, f := range families {
			if err := txn.Delete(deviceKey(subject, f)); err != nil {
				return err
			}
		}
		return nil
	})
}
