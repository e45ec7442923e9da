package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/auth"
	"hearth/auth/authtest"
)

// Regression test: iss comes from an unverified token, so an untrusted one must never make
// the server send a request (SSRF), nor may a forged algorithm get as far as a key fetch.
func TestVerifyUntrustedIssuerMakesNoRequest(t *testing.T) {
	clk := newClock()
	attacker := authtest.NewIssuer(t)
	v := newVerifier(t, clk, "https://accounts.example.com")
	_, err := v.Verify(context.Background(), attacker.Sign(claims(attacker, clk.Now())))
	wantError(t, err, auth.ErrUntrustedIssuer, fmt.Sprintf("issuer %s is not trusted", attacker.URL()))
	if n := attacker.Requests(); n != 0 {
		t.Fatalf("the untrusted issuer got %d requests, want 0", n)
	}
}

func TestVerifyForgedAlgorithmMakesNoRequest(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	for _, tok := range []string{iss.SignNone(claims(iss, clk.Now())), iss.SignHS256WithPublicKey(claims(iss, clk.Now()))} {
		if _, err := v.Verify(context.Background(), tok); err == nil {
			t.Fatal("Verify accepted a forged token")
		}
	}
	if n := iss.Requests(); n != 0 {
		t.Fatalf("the issuer got %d requests, want 0", n)
	}
}

func TestVerifyFetchesKeysOnce(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	if n := iss.Requests(); n != 0 {
		t.Fatalf("NewVerifier made %d requests; discovery must wait for the first token", n)
	}
	tok := iss.Sign(claims(iss, clk.Now()))
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if d, k := iss.DiscoveryFetches(), iss.JWKSFetches(); d != 1 || k != 1 {
		t.Fatalf("100 verifications made %d discovery and %d JWKS fetches, want 1 and 1", d, k)
	}
}

// Regression test: an unknown kid is under the attacker's control; it may cost the issuer one
// JWKS fetch per rate-limit window, no more.
func TestVerifyUnknownKidRefreshesOnce(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	if _, err := v.Verify(context.Background(), iss.Sign(claims(iss, clk.Now()))); err != nil {
		t.Fatal(err)
	}
	clk.Advance(11 * time.Second)

	_, err := v.Verify(context.Background(), iss.SignWithUnknownKid(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("JWKS fetches = %d after an unknown kid, want 2 (one refresh)", n)
	}

	clk.Advance(5 * time.Second)
	_, err = v.Verify(context.Background(), iss.SignWithUnknownKid(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("JWKS fetches = %d after a second unknown kid within 10 s, want still 2", n)
	}

	clk.Advance(6 * time.Second)
	_, err = v.Verify(context.Background(), iss.SignWithUnknownKid(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	if n := iss.JWKSFetches(); n != 3 {
		t.Fatalf("JWKS fetches = %d after the window, want 3", n)
	}
	if n := iss.DiscoveryFetches(); n != 1 {
		t.Fatalf("discovery fetches = %d, want 1", n)
	}
}

func TestVerifyPicksUpKeyRotation(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	old := iss.Sign(claims(iss, clk.Now()))
	if _, err := v.Verify(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	clk.Advance(11 * time.Second)
	if kid := iss.RotateKey(); kid != "k2" {
		t.Fatalf("RotateKey = %q", kid)
	}
	id, err := v.Verify(context.Background(), iss.Sign(claims(iss, clk.Now(), set("sub", "bob"))))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "bob" {
		t.Fatalf("Subject = %q", id.Subject)
	}
	if _, err := v.Verify(context.Background(), old); err != nil {
		t.Fatalf("a token signed with the old, still published key: %v", err)
	}
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("JWKS fetches = %d, want 2 (the first and one refresh)", n)
	}
}

func TestVerifyIssuerDownAtStart(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	iss.SetDown(true)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now().Add(time.Minute)))
	down := fmt.Sprintf("cannot get the signing keys of issuer %s: GET %s/.well-known/openid-configuration: 503 Service Unavailable", iss.URL(), iss.URL())

	_, err := v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrKeysUnavailable, down)

	iss.SetDown(false)
	_, err = v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrKeysUnavailable, down)
	if n := iss.DiscoveryFetches(); n != 1 {
		t.Fatalf("discovery fetches = %d within the retry window, want 1", n)
	}

	clk.Advance(11 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the issuer came back: %v", err)
	}
	if d, k := iss.DiscoveryFetches(), iss.JWKSFetches(); d != 2 || k != 1 {
		t.Fatalf("%d discovery and %d JWKS fetches, want 2 and 1", d, k)
	}
}

// jwx's cache keeps no key set after a failed first fetch and would not try again until its
// next scheduled refresh, many minutes later; the verifier retries after the window.
func TestVerifyKeySetDownAtFirstFetch(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	iss.SetKeysDown(true)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now().Add(time.Minute)))
	down := fmt.Sprintf("cannot get the signing keys of issuer %s: GET %s/.well-known/jwks.json: 503 Service Unavailable", iss.URL(), iss.URL())

	_, err := v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrKeysUnavailable, down)
	iss.SetKeysDown(false)
	_, err = v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrKeysUnavailable, down)

	clk.Advance(11 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the key set came back: %v", err)
	}
	if d, k := iss.DiscoveryFetches(), iss.JWKSFetches(); d != 1 || k != 2 {
		t.Fatalf("%d discovery and %d JWKS fetches, want 1 and 2", d, k)
	}
}

// Keys already fetched keep working while the issuer is down, even when an unknown kid
// makes the verifier try to refresh them.
func TestVerifyKeepsKeysWhileIssuerIsDown(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now()))
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	iss.SetDown(true)
	clk.Advance(11 * time.Second)
	_, err := v.Verify(context.Background(), iss.SignWithUnknownKid(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("a known key after a failed refresh: %v", err)
	}
}

// Some issuers publish keys without "alg". Such a key is used only for the algorithms of its
// own kind: jwx would refuse it, or infer any algorithm for it.
func TestVerifyKeysWithoutAlg(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	iss.OmitKeyAlg()
	v := newVerifier(t, clk, iss.URL())
	for _, alg := range []string{"RS256", "PS384"} {
		if _, err := v.Verify(context.Background(), iss.SignAlg(alg, claims(iss, clk.Now()))); err != nil {
			t.Fatalf("%s with an RSA key without alg: %v", alg, err)
		}
	}
	_, err := v.Verify(context.Background(), iss.SignHS256WithPublicKey(claims(iss, clk.Now())))
	wantError(t, err, auth.ErrAlgorithm, "unsupported signing algorithm HS256")
}

// Regression test: a huge discovery document (or key set) must not be read into memory.
func TestVerifyBoundsResponseBodies(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q,"padding":"%s"}`, srv.URL, srv.URL+"/keys", strings.Repeat("x", 1<<20))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, srv.URL)
	_, err := v.Verify(context.Background(), iss.Sign(claims(iss, clk.Now(), set("iss", srv.URL))))
	wantError(t, err, auth.ErrKeysUnavailable, fmt.Sprintf("cannot get the signing keys of issuer %s: GET %s/.well-known/openid-configuration: the response is larger than 65536 bytes", srv.URL, srv.URL))
}

// OpenID Connect Discovery: a document naming another issuer is refused, so that one issuer
// cannot pass off keys as another's.
func TestVerifyRefusesDiscoveryOfAnotherIssuer(t *testing.T) {
	other := authtest.NewIssuer(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, other.URL(), other.URL()+"/.well-known/jwks.json")
	}))
	t.Cleanup(srv.Close)
	clk := newClock()
	v := newVerifier(t, clk, srv.URL)
	_, err := v.Verify(context.Background(), other.Sign(claims(other, clk.Now(), set("iss", srv.URL))))
	wantError(t, err, auth.ErrKeysUnavailable, fmt.Sprintf("cannot get the signing keys of issuer %s: %s/.well-known/openid-configuration names issuer %q, not %s", srv.URL, srv.URL, other.URL(), srv.URL))
	if n := other.JWKSFetches(); n != 0 {
		t.Fatalf("the other issuer's keys were fetched %d times", n)
	}
}

func TestNewVerifierRefusesPlainHTTPIssuer(t *testing.T) {
	_, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Audience: audience, TrustedIssuers: []string{"http://idp.example.com"}})
	want := `auth: trusted issuer: issuer URL "http://idp.example.com" must be an absolute https URL (http only for the loopback hosts 127.0.0.1, ::1 and localhost)`
	if err == nil || err.Error() != want {
		t.Fatalf("NewVerifier = %v, want %q", err, want)
	}
}
