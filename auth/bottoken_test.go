package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"hearth/auth"
)

func TestNewBotToken(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok, hash, err := auth.NewBotToken()
		if err != nil {
			t.Fatal(err)
		}
		if !auth.IsBotToken(tok) {
			t.Fatalf("IsBotToken(%q) = false", tok)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, "hb_"))
		if err != nil {
			t.Fatalf("token %q is not hb_ + unpadded base64url: %v", tok, err)
		}
		if len(raw) < 32 {
			t.Fatalf("token %q carries %d random bytes, want at least 32", tok, len(raw))
		}
		if hash != sha256.Sum256([]byte(tok)) || hash != auth.HashBotToken(tok) {
			t.Fatalf("hash of %q is not its SHA-256", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q made twice", tok)
		}
		seen[tok] = true
	}
}

func TestIsBotToken(t *testing.T) {
	for tok, want := range map[string]bool{
		"hb_abc":            true,
		"eyJhbGciOiJFUzI1N": false,
		"HB_abc":            false,
		"":                  false,
	} {
		if got := auth.IsBotToken(tok); got != want {
			t.Errorf("IsBotToken(%q) = %v, want %v", tok, got, want)
		}
	}
}
