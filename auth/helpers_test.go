package auth_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"hearth/auth"
	"hearth/auth/authtest"
	"hearth/engine/outbound"
)

// audience is the base URL of the server the tokens in these tests are for.
const audience = "https://chat.example.com"

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newVerifier trusts the given issuers, for the audience, on clk.
func newVerifier(t *testing.T, clk *clock, issuers ...string) *auth.Verifier {
	t.Helper()
	return newVerifierFor(t, audience, clk, issuers...)
}

// newVerifierFor is newVerifier for another audience. Its background work ends with the test.
func newVerifierFor(t *testing.T, aud string, clk *clock, issuers ...string) *auth.Verifier {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v, err := auth.NewVerifier(ctx, auth.VerifierConfig{
		Audience:       aud,
		TrustedIssuers: issuers,
		HTTPClient:     outbound.New(outbound.Options{Policy: outbound.Operator, Timeout: 5 * time.Second}).HTTPClient(),
		Now:            clk.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// claims are valid claims from iss for the audience at now, changed by edits.
func claims(iss *authtest.Issuer, now time.Time, edits ...func(map[string]any)) map[string]any {
	c := map[string]any{
		"iss": iss.URL(),
		"sub": "alice",
		"aud": []string{audience},
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	for _, edit := range edits {
		edit(c)
	}
	return c
}

func set(name string, value any) func(map[string]any) {
	return func(c map[string]any) { c[name] = value }
}

func without(name string) func(map[string]any) {
	return func(c map[string]any) { delete(c, name) }
}

// wantError checks that Verify failed with exactly msg, and is of kind.
func wantError(t *testing.T, err error, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Verify succeeded; want error %q", msg)
	}
	if err.Error() != msg {
		t.Fatalf("Verify error = %q; want %q", err, msg)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("Verify error %q is not %v", err, kind)
	}
}

// failingTransport fails the test on any request: for verifications that must not use HTTP.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("unexpected request: %s %s", r.Method, r.URL)
	return nil, errors.New("no requests allowed in this test")
}
