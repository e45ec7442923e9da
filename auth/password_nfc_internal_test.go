package auth

import (
	"context"
	"crypto/rand"
	"testing"

	"golang.org/x/crypto/argon2"
)

// TestPasswordHashesMadeBeforeNormalizationStillVerify: a hash of a password as typed, from
// before passwords were normalized, still matches that password typed the same way; the
// normalized form does not match it (it is another string), and nothing else does.
func TestPasswordHashesMadeBeforeNormalizationStillVerify(t *testing.T) {
	ctx := context.Background()
	h := newHasher(PasswordParams{MemoryKiB: 1024, Iterations: 1, Parallelism: 1})
	const nfd = "cafe\u0301 cafe\u0301 cafe\u0301" // e + combining acute
	salt := rand.Text()
	legacy := PasswordHash{Algorithm: algArgon2id, Version: argon2.Version, MemoryKiB: 1024, Iterations: 1, Parallelism: 1,
		Salt: []byte(salt), Hash: argon2.IDKey([]byte(nfd), []byte(salt), 1, 1024, 1, hashBytes)}
	for pw, want := range map[string]bool{nfd: true, "caf\u00e9 caf\u00e9 caf\u00e9": false, "cafe cafe cafe": false} {
		if ok, err := h.verify(ctx, legacy, pw); err != nil || ok != want {
			t.Fatalf("verify %q against a hash of the NFD form = %v, %v; want %v", pw, ok, err, want)
		}
	}
}
