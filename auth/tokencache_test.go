package auth_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hearth/auth"
	"hearth/auth/authtest"
)

// newLocal is a local issuer (ES256, as the server's own logins) and a verifier for it that
// makes no HTTP request, both on clk.
func newLocal(t testing.TB, clk *clock) (*auth.Issuer, *auth.Verifier) {
	t.Helper()
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://127.0.0.1:8080", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{
		Audience:       iss.URL(),
		TrustedIssuers: []string{iss.URL()},
		Now:            clk.Now,
		Issuer:         iss,
	})
	if err != nil {
		t.Fatal(err)
	}
	return iss, v
}

func mint(t testing.TB, iss *auth.Issuer, sub, name string, ttl time.Duration) string {
	t.Helper()
	tok, err := iss.Mint(sub, name, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// verifyAs verifies tok and checks who it names.
func verifyAs(t *testing.T, v *auth.Verifier, tok string, want auth.Identity) {
	t.Helper()
	id, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if id != want {
		t.Fatalf("Verify = %+v, want %+v", id, want)
	}
}

func wantFull(t *testing.T, v *auth.Verifier, n int64) {
	t.Helper()
	if got := v.FullVerifications(); got != n {
		t.Fatalf("full verifications = %d, want %d", got, n)
	}
}

// The second Verify of a token is answered from the cache, with the same identity, until the
// TTL has passed; then the token is verified in full again.
func TestVerifyCachesToken(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	tok := mint(t, iss, "alice", "Alice", time.Hour)
	want := auth.Identity{Issuer: iss.URL(), Subject: "alice", Name: "Alice"}

	verifyAs(t, v, tok, want)
	wantFull(t, v, 1)
	for range 10 {
		verifyAs(t, v, tok, want)
	}
	wantFull(t, v, 1)

	clk.Advance(auth.TokenCacheTTL - time.Second)
	verifyAs(t, v, tok, want)
	wantFull(t, v, 1)

	clk.Advance(time.Second)
	verifyAs(t, v, tok, want)
	wantFull(t, v, 2)
	verifyAs(t, v, tok, want)
	wantFull(t, v, 2)
}

// Regression test: a cached token that expires while in the cache is refused at once, not at
// the end of the TTL.
func TestVerifyCachedTokenExpires(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	tok := mint(t, iss, "alice", "", 30*time.Second)
	verifyAs(t, v, tok, auth.Identity{Issuer: iss.URL(), Subject: "alice"})
	clk.Advance(29 * time.Second)
	verifyAs(t, v, tok, auth.Identity{Issuer: iss.URL(), Subject: "alice"})
	wantFull(t, v, 1)

	clk.Advance(time.Second)
	_, err := v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrExpired, "token expired")
}

// VerifyExpiry gives the token's exp whether it verifies the token in full or answers from
// the cache, whose entries end earlier (at the TTL): a stream opened with a cached token ends
// at the token's exp, not the entry's.
func TestVerifyExpiryIsTheTokensFromTheCacheToo(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	want := clk.Now().Add(time.Hour).Unix()
	tok := mint(t, iss, "alice", "", time.Hour)
	for i := range 3 {
		id, exp, err := v.VerifyExpiry(context.Background(), tok)
		if err != nil || id.Subject != "alice" || exp.Unix() != want {
			t.Fatalf("VerifyExpiry %d = %+v, exp %d, %v; want alice, exp %d", i, id, exp.Unix(), err, want)
		}
		clk.Advance(time.Second)
	}
	wantFull(t, v, 1)
}

// Two tokens of one subject are two entries: each is verified, and each gets its own claims.
func TestVerifyCacheKeysByToken(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	first := mint(t, iss, "alice", "Alice", time.Hour)
	second := mint(t, iss, "alice", "Alice W.", time.Hour)
	firstID := auth.Identity{Issuer: iss.URL(), Subject: "alice", Name: "Alice"}
	secondID := auth.Identity{Issuer: iss.URL(), Subject: "alice", Name: "Alice W."}

	verifyAs(t, v, first, firstID)
	verifyAs(t, v, second, secondID)
	wantFull(t, v, 2)
	verifyAs(t, v, first, firstID)
	verifyAs(t, v, second, secondID)
	wantFull(t, v, 2)
	if n := v.CachedTokens(); n != 2 {
		t.Fatalf("cached tokens = %d, want 2", n)
	}
}

// Failures are not cached: a refused token costs a full check each time, and a token that
// failed because its key was not known yet verifies once the key is fetched.
func TestVerifyDoesNotCacheFailures(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	bad := tamper(iss.Sign(claims(iss, clk.Now())), claims(iss, clk.Now(), set("sub", "mallory")))
	for range 3 {
		_, err := v.Verify(context.Background(), bad)
		wantError(t, err, auth.ErrSignature, "invalid token signature")
	}
	if n := v.CachedTokens(); n != 0 {
		t.Fatalf("cached tokens = %d after failures, want 0", n)
	}

	// The verifier has k1; the issuer starts signing with k2, which a refresh within the rate
	// limit cannot fetch yet.
	iss.RotateKey()
	tok := iss.Sign(claims(iss, clk.Now()))
	_, err := v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	clk.Advance(5 * time.Second)
	_, err = v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	clk.Advance(6 * time.Second)
	verifyAs(t, v, tok, auth.Identity{Issuer: iss.URL(), Subject: "alice"})
	wantFull(t, v, 1)
}

// Regression test: the cache never holds more than its size, however many tokens verify.
func TestVerifyCacheBounded(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	const size = 64
	v.SetTokenCacheSize(size)
	toks := make([]string, 5*size)
	for i := range toks {
		toks[i] = mint(t, iss, fmt.Sprintf("user%d", i), "", time.Hour)
		verifyAs(t, v, toks[i], auth.Identity{Issuer: iss.URL(), Subject: fmt.Sprintf("user%d", i)})
		if n := v.CachedTokens(); n > size {
			t.Fatalf("after %d tokens the cache holds %d, more than %d", i+1, n, size)
		}
	}
	wantFull(t, v, int64(len(toks)))
	// Evicted tokens still verify, in full.
	for i, tok := range toks {
		verifyAs(t, v, tok, auth.Identity{Issuer: iss.URL(), Subject: fmt.Sprintf("user%d", i)})
	}
	if n := v.CachedTokens(); n > size {
		t.Fatalf("the cache holds %d, more than %d", n, size)
	}
	if n := v.FullVerifications(); n <= int64(len(toks)) || n > 2*int64(len(toks)) {
		t.Fatalf("full verifications = %d, want more than %d (some were evicted), at most %d", n, len(toks), 2*len(toks))
	}
}

// The default size holds: filling the cache past it leaves it at most full.
func TestVerifyCacheBoundedAtDefaultSize(t *testing.T) {
	if testing.Short() {
		t.Skip("mints and verifies thousands of tokens")
	}
	clk := newClock()
	iss, v := newLocal(t, clk)
	n := auth.TokenCacheSize + auth.TokenCacheSize/4
	for i := range n {
		if _, err := v.Verify(context.Background(), mint(t, iss, fmt.Sprintf("user%d", i), "", time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if got := v.CachedTokens(); got > auth.TokenCacheSize || got < auth.TokenCacheSize/2 {
		t.Fatalf("after %d tokens the cache holds %d, want at most %d (and not nearly empty)", n, got, auth.TokenCacheSize)
	}
}

// A key removed from the issuer's JWKS stops working as soon as the verifier fetches the new
// set, even for a token verified with it a moment before (well within the cache's TTL).
func TestVerifyCacheDroppedWhenKeyRemoved(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	old := iss.Sign(claims(iss, clk.Now()))
	verifyAs(t, v, old, auth.Identity{Issuer: iss.URL(), Subject: "alice"})

	// The issuer retires k1 for k2; the verifier learns of it from the first k2 token.
	iss.RotateKey()
	iss.Unpublish("k1")
	clk.Advance(11 * time.Second)
	verifyAs(t, v, iss.Sign(claims(iss, clk.Now(), set("sub", "bob"))), auth.Identity{Issuer: iss.URL(), Subject: "bob"})

	_, err := v.Verify(context.Background(), old)
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
}

// A key added to the set also drops the cache (anything that changes the set does); a refetch
// that returns the same set does not.
func TestVerifyCacheKeptWhenKeysUnchanged(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now()))
	want := auth.Identity{Issuer: iss.URL(), Subject: "alice"}
	verifyAs(t, v, tok, want)

	// An unknown kid makes the verifier refetch; the set it gets is the same.
	clk.Advance(11 * time.Second)
	_, err := v.Verify(context.Background(), iss.SignWithUnknownKid(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("JWKS fetches = %d, want 2", n)
	}
	verifyAs(t, v, tok, want)
	wantFull(t, v, 1)

	// A new key: the set changed, so the old token is checked again (and still verifies).
	iss.RotateKey()
	clk.Advance(11 * time.Second)
	verifyAs(t, v, iss.Sign(claims(iss, clk.Now(), set("sub", "bob"))), auth.Identity{Issuer: iss.URL(), Subject: "bob"})
	wantFull(t, v, 2)
	verifyAs(t, v, tok, want)
	wantFull(t, v, 3)
}

// Many goroutines verifying the same and different tokens at once; run with -race.
func TestVerifyCacheConcurrent(t *testing.T) {
	clk := newClock()
	iss, v := newLocal(t, clk)
	v.SetTokenCacheSize(32)
	toks := make([]string, 64)
	for i := range toks {
		toks[i] = mint(t, iss, fmt.Sprintf("user%d", i), "", time.Hour)
	}
	errs := make(chan error, 8)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				k := (g*7 + i) % len(toks)
				id, err := v.Verify(context.Background(), toks[k])
				if err == nil && id.Subject != fmt.Sprintf("user%d", k) {
					err = fmt.Errorf("token %d verified as %q", k, id.Subject)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := v.CachedTokens(); n > 32 {
		t.Fatalf("the cache holds %d, more than 32", n)
	}
}

// BenchmarkVerifyCached is the send path's Verify with the cache (the same token each call);
// BenchmarkVerifyUncached the same without it: the ES256 check and the parsing each time.
func BenchmarkVerifyCached(b *testing.B) {
	benchmarkVerify(b, auth.TokenCacheSize, false)
}

func BenchmarkVerifyUncached(b *testing.B) {
	benchmarkVerify(b, 0, false)
}

func BenchmarkVerifyCachedParallel(b *testing.B) {
	benchmarkVerify(b, auth.TokenCacheSize, true)
}

func BenchmarkVerifyUncachedParallel(b *testing.B) {
	benchmarkVerify(b, 0, true)
}

func benchmarkVerify(b *testing.B, cacheSize int, parallel bool) {
	clk := newClock()
	iss, v := newLocal(b, clk)
	v.SetTokenCacheSize(cacheSize)
	// As many tokens as the load runs have senders.
	toks := make([]string, 1500)
	for i := range toks {
		toks[i] = mint(b, iss, fmt.Sprintf("user%d", i), "", time.Hour)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for i := 0; b.Loop(); i++ {
			if _, err := v.Verify(ctx, toks[i%len(toks)]); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := v.Verify(ctx, toks[i%len(toks)]); err != nil {
				b.Error(err)
				return
			}
			i += 7
		}
	})
}
