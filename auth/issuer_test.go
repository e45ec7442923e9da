package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"hearth/auth"
)

// localVerifier verifies the tokens of iss and fails the test on any HTTP request.
func localVerifier(t *testing.T, iss *auth.Issuer, clk *clock) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{
		Audience:       iss.URL(),
		TrustedIssuers: []string{iss.URL()},
		HTTPClient:     &http.Client{Transport: failingTransport{t}},
		Now:            clk.Now,
		Issuer:         iss,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLocalIssuerTokensVerifyWithoutHTTP(t *testing.T) {
	clk := newClock()
	// Nothing listens there: a request would fail, and failingTransport reports it anyway.
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://192.0.2.1:8080/", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if iss.URL() != "http://192.0.2.1:8080" {
		t.Fatalf("URL = %q", iss.URL())
	}
	v := localVerifier(t, iss, clk)
	tok, err := iss.Mint("alice", "Alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if want := (auth.Identity{Issuer: iss.URL(), Subject: "alice", Name: "Alice"}); id != want {
		t.Fatalf("Verify = %+v, want %+v", id, want)
	}

	msg, err := jws.Parse([]byte(tok))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Signatures()[0].ProtectedHeaders()
	if h.KeyID() == "" || h.Algorithm().String() != "ES256" {
		t.Fatalf("header kid %q alg %q, want a kid and ES256", h.KeyID(), h.Algorithm())
	}
	var claims map[string]any
	if err := json.Unmarshal(msg.Payload(), &claims); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"iss", "sub", "aud", "iat", "nbf", "exp", "name"} {
		if _, ok := claims[name]; !ok {
			t.Errorf("claim %s missing from %v", name, claims)
		}
	}
	if _, ok := claims["preferred_username"]; ok {
		t.Errorf("preferred_username set in %v", claims)
	}

	clk.Advance(time.Hour)
	_, err = v.Verify(context.Background(), tok)
	wantError(t, err, auth.ErrExpired, "token expired")
}

func TestLocalIssuerOmitsEmptyName(t *testing.T) {
	clk := newClock()
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://localhost:8080", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.Mint("bob", "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := jws.Parse([]byte(tok))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(msg.Payload()), `"name"`) {
		t.Fatalf("payload %s has a name", msg.Payload())
	}
}

func TestMintRefusesBadInput(t *testing.T) {
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://localhost:8080", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iss.Mint("", "", time.Hour); err == nil || err.Error() != "auth: a token needs a subject" {
		t.Errorf("Mint without sub: %v", err)
	}
	if _, err := iss.Mint("alice", "", 0); err == nil || err.Error() != "auth: token lifetime 0s must be positive" {
		t.Errorf("Mint with ttl 0: %v", err)
	}
}

// Another server (another key) at the same base URL: its tokens are not ours.
func TestLocalIssuerRefusesAnotherKey(t *testing.T) {
	clk := newClock()
	const base = "http://localhost:8080"
	ours, err := auth.LoadOrCreateIssuer(t.TempDir(), base, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := auth.LoadOrCreateIssuer(t.TempDir(), base, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := theirs.Mint("alice", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, err = localVerifier(t, ours, clk).Verify(context.Background(), tok)
	wantError(t, err, auth.ErrUnknownKey, "unknown signing key")
}

func TestLoadOrCreateIssuerReusesKey(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	first, err := auth.LoadOrCreateIssuer(dir, "http://localhost:8080", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "issuer-key"))
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Fatalf("issuer-key mode = %o, want 600", mode)
	}
	before, err := os.ReadFile(filepath.Join(dir, "issuer-key"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := first.Mint("alice", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	second, err := auth.LoadOrCreateIssuer(dir, "http://localhost:8080", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, "issuer-key"))
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatal("the second load rewrote issuer-key")
	}
	if _, err := localVerifier(t, second, clk).Verify(context.Background(), tok); err != nil {
		t.Fatalf("a token minted before the restart: %v", err)
	}
	if a, b := jwksOf(t, first), jwksOf(t, second); a != b {
		t.Fatalf("JWKS changed across loads:\n%s\n%s", a, b)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("data directory holds %d entries, want only issuer-key", len(entries))
	}
}

func TestLoadOrCreateIssuerCorruptKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "issuer-key")
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := auth.LoadOrCreateIssuer(dir, "http://localhost:8080", nil)
	want := path + ` is not a valid issuer key (expected one PEM block of type "PRIVATE KEY"); if it is damaged, move it away and a new key will be made (every login token signed with the old key then stops working)`
	if err == nil || err.Error() != want {
		t.Fatalf("LoadOrCreateIssuer = %v, want %q", err, want)
	}
	if data, _ := os.ReadFile(path); string(data) != "not a key\n" {
		t.Fatal("the corrupt key was replaced")
	}
}

func TestNewVerifierNeedsLocalIssuerTrusted(t *testing.T) {
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://localhost:8080", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.NewVerifier(context.Background(), auth.VerifierConfig{Audience: iss.URL(), Issuer: iss})
	if want := "auth: the local issuer http://localhost:8080 is not among the trusted issuers"; err == nil || err.Error() != want {
		t.Fatalf("NewVerifier = %v, want %q", err, want)
	}
}

// The well-known documents are usable by a standard verifier (jwx on its own), and by our
// Verifier treating the server as a remote issuer over HTTP.
func TestIssuerHandlerServesDiscoveryAndKeys(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	clk := newClock()
	iss, err := auth.LoadOrCreateIssuer(t.TempDir(), "http://"+srv.Listener.Addr().String(), clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /.well-known/", iss.Handler())
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	if srv.URL != iss.URL() {
		t.Fatalf("server at %s, issuer %s", srv.URL, iss.URL())
	}

	var doc struct {
		Issuer  string   `json:"issuer"`
		JWKSURI string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	getJSON(t, srv.URL+"/.well-known/openid-configuration", &doc)
	if doc.Issuer != srv.URL || doc.JWKSURI != srv.URL+"/.well-known/jwks.json" || len(doc.Algs) != 1 || doc.Algs[0] != "ES256" {
		t.Fatalf("discovery document = %+v", doc)
	}

	set, err := jwk.Fetch(context.Background(), doc.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 1 {
		t.Fatalf("JWKS has %d keys, want 1", set.Len())
	}
	key, _ := set.Key(0)
	if key.KeyID() == "" || key.Algorithm().String() != "ES256" {
		t.Fatalf("key kid %q alg %q", key.KeyID(), key.Algorithm())
	}
	if private, err := jwk.IsPrivateKey(key); err != nil || private {
		t.Fatalf("the JWKS publishes a private key (%v)", err)
	}

	tok, err := iss.Mint("alice", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := jwt.Parse([]byte(tok), jwt.WithKeySet(set), jwt.WithIssuer(srv.URL), jwt.WithAudience(srv.URL))
	if err != nil {
		t.Fatalf("jwx refuses the token: %v", err)
	}
	if parsed.Subject() != "alice" {
		t.Fatalf("sub = %q", parsed.Subject())
	}

	if _, err := newVerifierFor(t, srv.URL, clk, srv.URL).Verify(context.Background(), tok); err != nil {
		t.Fatalf("Verify over HTTP: %v", err)
	}

	for path, code := range map[string]int{
		"/.well-known/other":                http.StatusNotFound,
		"/.well-known/jwks.json/x":          http.StatusNotFound,
		"/.well-known/openid-configuration": http.StatusOK,
		"/.well-known/jwks.json":            http.StatusOK,
	} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != code {
			t.Errorf("GET %s = %d, want %d", path, res.StatusCode, code)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s = %s, %s", url, res.Status, res.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
}

func jwksOf(t *testing.T, iss *auth.Issuer) string {
	t.Helper()
	rec := httptest.NewRecorder()
	iss.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/jwks.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET jwks.json = %d", rec.Code)
	}
	return rec.Body.String()
}
