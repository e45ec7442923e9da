package auth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"hearth/auth"
	"hearth/auth/authtest"
)

func TestVerifyValidToken(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now(), set("preferred_username", "alice_w"), set("name", "Alice W.")))
	id, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{Issuer: iss.URL(), Subject: "alice", PreferredUsername: "alice_w", Name: "Alice W."}
	if id != want {
		t.Fatalf("Verify = %+v, want %+v", id, want)
	}
}

func TestVerifyIgnoresNonStringNames(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	tok := iss.Sign(claims(iss, clk.Now(), set("preferred_username", 42), set("name", []string{"A"})))
	id, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if id.PreferredUsername != "" || id.Name != "" {
		t.Fatalf("Verify = %+v, want no names", id)
	}
}

// A trusted issuer configured with a trailing slash matches tokens whose iss has none, and
// the reverse; the identity carries the issuer as configured, without the slash.
func TestVerifyIssuerTrailingSlash(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL()+"/")
	for _, tokIss := range []string{iss.URL(), iss.URL() + "/"} {
		id, err := v.Verify(context.Background(), iss.Sign(claims(iss, clk.Now(), set("iss", tokIss))))
		if err != nil {
			t.Fatalf("iss %q: %v", tokIss, err)
		}
		if id.Issuer != iss.URL() {
			t.Fatalf("iss %q: Identity.Issuer = %q, want %q", tokIss, id.Issuer, iss.URL())
		}
	}
}

func TestVerifyAcceptsSkewedNotBeforeAndIssuedAt(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	soon := clk.Now().Add(59 * time.Second).Unix()
	if _, err := v.Verify(context.Background(), iss.Sign(claims(iss, clk.Now(), set("nbf", soon), set("iat", soon)))); err != nil {
		t.Fatal(err)
	}
}

// The refusals: each check on its own, with the message the client gets.
func TestVerifyRefuses(t *testing.T) {
	clk := newClock()
	iss := authtest.NewIssuer(t)
	v := newVerifier(t, clk, iss.URL())
	now := clk.Now()
	tests := []struct {
		name  string
		token string
		kind  error
		msg   string
	}{
		{"garbage", "not-a-token", auth.ErrMalformed, "malformed token"},
		{"three garbage parts", "a.b.c", auth.ErrMalformed, "malformed token"},
		{"JWE shape", "a.b.c.d.e", auth.ErrMalformed, "malformed token"},
		{"unsigned JSON", `{"iss":"x"}`, auth.ErrMalformed, "malformed token"},
		{"too long", strings.Repeat("a", 20000) + ".b.c", auth.ErrMalformed, "malformed token: longer than 16384 bytes"},
		{"expired", iss.Sign(claims(iss, now, set("exp", now.Add(-time.Second).Unix()))), auth.ErrExpired, "token expired"},
		{"expires now", iss.Sign(claims(iss, now, set("exp", now.Unix()))), auth.ErrExpired, "token expired"},
		{"not yet valid", iss.Sign(claims(iss, now, set("nbf", now.Add(61*time.Second).Unix()))), auth.ErrNotYetValid, "token is not valid yet"},
		{"issued in the future", iss.Sign(claims(iss, now, set("iat", now.Add(2*time.Minute).Unix()))), auth.ErrNotYetValid, "token was issued in the future"},
		{"missing exp", iss.Sign(claims(iss, now, without("exp"))), auth.ErrMissingClaim, "token has no expiry (exp)"},
		{"wrong audience", iss.Sign(claims(iss, now, set("aud", []string{"https://other.example.com"}))), auth.ErrAudience, "token audience does not include " + audience},
		{"no audience", iss.Sign(claims(iss, now, without("aud"))), auth.ErrAudience, "token audience does not include " + audience},
		{"missing sub", iss.Sign(claims(iss, now, without("sub"))), auth.ErrMissingClaim, "token has no subject (sub)"},
		{"missing iss", iss.Sign(claims(iss, now, without("iss"))), auth.ErrMissingClaim, "token has no issuer (iss)"},
		{"exp not a number", iss.Sign(claims(iss, now, set("exp", "tomorrow"))), auth.ErrMalformed, "malformed token"},
		{"alg none", iss.SignNone(claims(iss, now)), auth.ErrAlgorithm, "unsupported signing algorithm none"},
		{"HS256 with the public key", iss.SignHS256WithPublicKey(claims(iss, now)), auth.ErrAlgorithm, "unsupported signing algorithm HS256"},
		{"alg other than the key's", iss.SignAlg("RS384", claims(iss, now)), auth.ErrAlgorithm, "signing algorithm RS384 does not fit signing key k1"},
		{"tampered claims", tamper(iss.Sign(claims(iss, now)), claims(iss, now, set("sub", "mallory"))), auth.ErrSignature, "invalid token signature"},
		{"tampered header", tamperHeader(iss.Sign(claims(iss, now))), auth.ErrSignature, "invalid token signature"},
		{"another token's signature", swapSignature(iss.Sign(claims(iss, now, set("sub", "mallory"))), iss.Sign(claims(iss, now))), auth.ErrSignature, "invalid token signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tt.token)
			wantError(t, err, tt.kind, tt.msg)
		})
	}
}

// tamper replaces the payload of a signed token, keeping its header and signature.
// tamperHeader adds a field to token's header, keeping its claims and signature.
func tamperHeader(token string) string {
	parts := strings.Split(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		panic(err)
	}
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		panic(err)
	}
	h["x-tampered"] = true
	if b, err = json.Marshal(h); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b) + "." + parts[1] + "." + parts[2]
}

// swapSignature is token with the signature of another.
func swapSignature(token, another string) string {
	return token[:strings.LastIndex(token, ".")] + another[strings.LastIndex(another, "."):]
}

func tamper(token string, claims map[string]any) string {
	parts := strings.Split(token, ".")
	b, err := json.Marshal(claims)
	if err != nil {
		panic(err)
	}
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
}
