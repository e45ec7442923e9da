package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// Password rules of the built-in issuer's accounts.
const (
	passwordMinChars = 10
	// passwordMaxBytes bounds what a sign-in can make the server hash.
	passwordMaxBytes = 1024
)

// PasswordParams are argon2id's cost parameters. They are stored with every hash, so new
// parameters apply to new hashes while old ones still verify.
type PasswordParams struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint32
}

// DefaultPasswordParams are the least memory of OWASP's equally strong argon2id choices
// (7 MiB, 5 passes, 1 lane; the others trade memory for passes up to 46 MiB and 1 pass): a
// hash takes about 30 ms of one core and 7 MiB while it runs, and at most hashSlots run at
// once. The 19 MiB choice left a small server's heap 60 MB larger after a few sign-ins.
var DefaultPasswordParams = PasswordParams{MemoryKiB: 7 * 1024, Iterations: 5, Parallelism: 1}

const (
	algArgon2id = "argon2id"
	saltBytes   = 16
	hashBytes   = 32
	hashSlots   = 2
)

// hasher makes and checks password hashes, a bounded number at a time.
type hasher struct {
	params PasswordParams
	slots  chan struct{}
	// dummy is checked against when a username is unknown, so that a wrong username costs the
	// same time as a wrong password.
	dummyOnce sync.Once
	dummy     PasswordHash
}

func newHasher(p PasswordParams) *hasher {
	return &hasher{params: p, slots: make(chan struct{}, hashSlots)}
}

// normalizePassword is the form of a password that is hashed: Unicode NFC (RFC 8265's rule
// for passwords), so that "é" typed as one code point on one device and as "e" and a
// combining accent on another is the same password.
func normalizePassword(pw string) string { return norm.NFC.String(pw) }

// checkNewPassword applies the password rules; the error is for the person. Characters are
// counted in the normalized form, as it is hashed.
func checkNewPassword(pw string) error {
	if n := utf8.RuneCountInString(normalizePassword(pw)); n < passwordMinChars {
		return fmt.Errorf("the password has %d characters; it needs at least %d", n, passwordMinChars)
	}
	if len(pw) > passwordMaxBytes {
		return fmt.Errorf("the password is longer than %d bytes", passwordMaxBytes)
	}
	return nil
}

// take waits for a hashing slot; ctx ends the wait.
func (h *hasher) take(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *hasher) release() { <-h.slots }

// hash makes a new hash of pw, normalized, with a fresh salt.
func (h *hasher) hash(ctx context.Context, pw string) (PasswordHash, error) {
	pw = normalizePassword(pw)
	salt := make([]byte, saltBytes)
	rand.Read(salt)
	if err := h.take(ctx); err != nil {
		return PasswordHash{}, err
	}
	defer h.release()
	p := h.params
	return PasswordHash{
		Algorithm:   algArgon2id,
		Version:     argon2.Version,
		MemoryKiB:   p.MemoryKiB,
		Iterations:  p.Iterations,
		Parallelism: p.Parallelism,
		Salt:        salt,
		Hash:        argon2.IDKey([]byte(pw), salt, p.Iterations, p.MemoryKiB, uint8(p.Parallelism), hashBytes),
	}, nil
}

// verify tells whether pw matches stored, with the parameters stored beside it. A hash this
// code cannot check (another algorithm, absurd parameters) never matches.
//
// pw is checked normalized, as hashes are made; hashes made before passwords were normalized
// hold the password as it was typed, so a password that normalization changes is also checked
// as typed. (Only such a password costs a second hash, the same for every account and for
// none: it says nothing about whether a username exists.)
func (h *hasher) verify(ctx context.Context, stored PasswordHash, pw string) (bool, error) {
	n := normalizePassword(pw)
	ok, err := h.verifyExact(ctx, stored, n)
	if ok || err != nil || n == pw {
		return ok, err
	}
	return h.verifyExact(ctx, stored, pw)
}

// verifyExact checks pw exactly as given.
func (h *hasher) verifyExact(ctx context.Context, stored PasswordHash, pw string) (bool, error) {
	if stored.Algorithm != algArgon2id || stored.Version != argon2.Version ||
		stored.Iterations == 0 || stored.Iterations > 16 || stored.MemoryKiB == 0 || stored.MemoryKiB > 256*1024 ||
		stored.Parallelism == 0 || stored.Parallelism > 16 || len(stored.Hash) == 0 {
		return false, nil
	}
	if err := h.take(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(pw), stored.Salt, stored.Iterations, stored.MemoryKiB, uint8(stored.Parallelism), uint32(len(stored.Hash)))
	return subtle.ConstantTimeCompare(got, stored.Hash) == 1, nil
}

// verifyNobody spends the time of a verification for a username that has no account.
func (h *hasher) verifyNobody(ctx context.Context, pw string) error {
	h.dummyOnce.Do(func() {
		h.dummy, _ = h.hash(context.Background(), "no account has this password")
	})
	_, err := h.verify(ctx, h.dummy, pw)
	return err
}
