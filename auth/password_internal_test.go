package auth

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
)

func TestPasswordHashKeepsItsParameters(t *testing.T) {
	ctx := context.Background()
	h := newHasher(DefaultPasswordParams)
	stored, err := h.hash(ctx, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if stored.Algorithm != "argon2id" || stored.Version != argon2.Version || stored.MemoryKiB != 7*1024 || stored.Iterations != 5 ||
		stored.Parallelism != 1 || len(stored.Salt) != 16 || len(stored.Hash) != 32 {
		t.Fatalf("hash = %+v", stored)
	}
	again, _ := h.hash(ctx, "correct horse battery")
	if string(again.Salt) == string(stored.Salt) || string(again.Hash) == string(stored.Hash) {
		t.Fatal("two hashes of one password share a salt")
	}
	// A hasher with other parameters still checks the old hash by its own parameters.
	cheap := newHasher(PasswordParams{MemoryKiB: 1024, Iterations: 1, Parallelism: 1})
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := cheap.verify(ctx, stored, pw); err != nil || ok != want {
			t.Fatalf("verify %q = %v, %v", pw, ok, err)
		}
	}
	// A hash this code cannot check never matches.
	for _, bad := range []PasswordHash{
		{Algorithm: "bcrypt", Version: argon2.Version, MemoryKiB: 1024, Iterations: 1, Parallelism: 1, Hash: stored.Hash},
		{Algorithm: "argon2id", Version: argon2.Version, MemoryKiB: 1 << 30, Iterations: 1, Parallelism: 1, Hash: stored.Hash},
		{},
	} {
		if ok, err := cheap.verify(ctx, bad, "correct horse battery"); ok || err != nil {
			t.Fatalf("verify against %+v = %v, %v", bad, ok, err)
		}
	}
}

func TestNewPasswordRules(t *testing.T) {
	for pw, want := range map[string]string{
		"123456789":               "the password has 9 characters; it needs at least 10",
		"ééééééééé":               "the password has 9 characters; it needs at least 10",
		"éééééééééé":              "",
		"0123456789":              "",
		strings.Repeat("x", 1025): "the password is longer than 1024 bytes",
	} {
		err := checkNewPassword(pw)
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Fatalf("checkNewPassword(%d bytes) = %v, want %q", len(pw), err, want)
		}
	}
}

func TestParseOIDCClient(t *testing.T) {
	for in, want := range map[string]string{
		"https://login.example.com=hearth":     "https://login.example.com hearth",
		" https://login.example.com/ = a=b ":   "https://login.example.com a=b",
		"http://127.0.0.1:9000=x":              "http://127.0.0.1:9000 x",
		"https://login.example.com":            "error",
		"=hearth":                              "error",
		"http://login.example.com=hearth":      "error",
		"https://login.example.com?x=1=hearth": "error",
	} {
		c, err := ParseOIDCClient(in)
		got := c.Issuer + " " + c.ClientID
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Fatalf("ParseOIDCClient(%q) = %q (%v), want %q", in, got, err, want)
		}
	}
}
