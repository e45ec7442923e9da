package web_test

import (
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBuiltInIssuerIDTokenIsNotAnAccessToken: the built-in issuer's ID tokens name the person
// (sub), as OpenID requires, and carry the same
// audience as its access tokens, so only their own claims (azp, at_hash) tell them apart. An
// ID token is refused as a bearer token, after a refresh too; the access tokens and `hearth
// token`'s tokens still work.
func TestBuiltInIssuerIDTokenIsNotAnAccessToken(t *testing.T) {
	s := webtest.Start(t)
	s.Join("owner") // a Mint token, as `hearth token` prints
	tok := s.SignUp(t, "ida", pw, nil)
	refreshed, status := s.Refresh(t, tok.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %+v", status, refreshed)
	}
	for _, pair := range []webtest.Tokens{tok, refreshed} {
		me(t, s, pair)
		id := jwtClaims(t, pair.IDToken)
		// OpenID requires sub in an ID token: the person's, as in the access token.
		if sub := jwtClaims(t, pair.AccessToken)["sub"]; id["sub"] != sub || sub == nil {
			t.Fatalf("the ID token's sub is %v, want the access token's %v", id["sub"], sub)
		}
		if id["azp"] != "hearth-web" || id["at_hash"] == nil {
			t.Fatalf("the ID token's claims changed (op no longer sets azp and at_hash?): %v", id)
		}
		_, err := s.Client(pair.IDToken).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
		if connect.CodeOf(err) != connect.CodeUnauthenticated || !strings.Contains(err.Error(), "an ID token is not an access token") {
			t.Fatalf("GetMe with the ID token: %v, want unauthenticated", err)
		}
	}
	if _, err := s.Client(s.Token("owner")).Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("GetMe with a minted token: %v", err)
	}
	// Upload and the emoji endpoint take the same bearer token: plain HTTP answers 401.
	r, _ := http.NewRequest(http.MethodPost, s.URL+"/upload", strings.NewReader("x"))
	r.Header.Set("Authorization", "Bearer "+tok.IDToken)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("upload with the ID token: %d, want 401", res.StatusCode)
	}
}
