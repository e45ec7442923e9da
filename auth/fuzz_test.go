package auth_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"hearth/auth"
	"hearth/engine/outbound"
)

// FuzzTokenFront feeds any Authorization header to what reads a token before its signature is
// checked: BearerToken, then the verifier's parsing of the compact JWS, its header (alg, crit)
// and its claims (iss picks the keys). Whatever the header, nothing panics, no request leaves
// the process (the only trusted issuer is the local one, whose keys are in memory), and a token
// is accepted only if the local issuer signed it. Seeds in testdata/fuzz (malformed, unsigned,
// re-signed, nested and oversized tokens); CI runs it with -fuzz for 30 s (.ci/run).
func FuzzTokenFront(f *testing.F) {
	const base = "https://chat.example.com"
	iss, err := auth.LoadOrCreateIssuer(f.TempDir(), base, time.Now)
	if err != nil {
		f.Fatal(err)
	}
	valid, err := iss.Mint("alice", "Alice", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Bearer " + valid)
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	v, err := auth.NewVerifier(ctx, auth.VerifierConfig{
		Audience:       base,
		TrustedIssuers: []string{base},
		// Any fetch would fail: nothing may be fetched for a token.
		HTTPClient: outbound.New(outbound.Options{Policy: outbound.Public, Timeout: time.Second}).HTTPClient(),
		Now:        time.Now,
		Issuer:     iss,
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header string) {
		h := http.Header{}
		h.Set("Authorization", header)
		token, err := auth.BearerToken(h)
		if err != nil {
			return
		}
		if auth.IsBotToken(token) {
			auth.HashBotToken(token)
			return
		}
		id, err := v.Verify(ctx, token)
		if err != nil {
			return
		}
		// Accepted: it must carry the local issuer's signature over the one token it signed
		// (for alice); a fuzzer cannot forge one.
		if id.Issuer != base || id.Subject != "alice" {
			t.Fatalf("accepted %q as %+v", token, id)
		}
	})
}
