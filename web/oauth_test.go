package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/web/webtest"
)

// signedInCode runs a sign-in of username up to the code, which it returns with its client.
func signedInCode(t *testing.T, s *webtest.Server, username string) (*webtest.OAuth, string) {
	t.Helper()
	o := s.OAuth()
	id := o.Start(t, nil)
	return o, o.Code(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {username}, "password": {pw}}))
}

func wantGrantError(t *testing.T, tok webtest.Tokens, status int, want string) {
	t.Helper()
	if status != http.StatusBadRequest || tok.Error != want || tok.AccessToken != "" {
		t.Fatalf("got %d %+v, want 400 %s", status, tok, want)
	}
}

func TestDiscoveryNamesTheSignInEndpoints(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	o := s.OAuth()
	res := o.Get(t, "/.well-known/openid-configuration")
	var doc map[string]any
	if err := json.Unmarshal([]byte(res.Body), &doc); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"issuer":                 s.URL,
		"authorization_endpoint": s.URL + "/oauth/authorize",
		"token_endpoint":         s.URL + "/oauth/token",
		"revocation_endpoint":    s.URL + "/oauth/revoke",
		"jwks_uri":               s.URL + "/.well-known/jwks.json",
	} {
		if doc[k] != v {
			t.Fatalf("%s = %v, want %s", k, doc[k], v)
		}
	}
	if m, _ := doc["code_challenge_methods_supported"].([]any); len(m) != 1 || m[0] != "S256" {
		t.Fatalf("code_challenge_methods_supported = %v", doc["code_challenge_methods_supported"])
	}
}

// TestAuthorizationRefusesPKCEWithoutS256: without a challenge, or with the plain method, a
// code would be as good as a password to whoever sees it.
func TestAuthorizationRefusesPKCEWithoutS256(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	for _, tc := range []struct {
		name  string
		extra url.Values
		want  string
	}{
		{"no challenge", url.Values{"code_challenge": {""}, "code_challenge_method": {""}}, "code_challenge is required"},
		{"plain", url.Values{"code_challenge_method": {"plain"}}, "code_challenge_method must be S256"},
		{"no method", url.Values{"code_challenge_method": {""}}, "code_challenge_method must be S256"},
		{"prompt none", url.Values{"prompt": {"none"}}, "prompt=none"},
		{"fragment", url.Values{"response_mode": {"fragment"}}, "response_mode must be query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := s.OAuth()
			res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(tc.extra).Encode())
			loc := res.Location(t)
			q := loc.Query()
			if loc.Fragment != "" {
				q, _ = url.ParseQuery(loc.Fragment)
			}
			loc.RawQuery, loc.Fragment = "", ""
			if res.Status != http.StatusFound || loc.String() != o.RedirectURI || q.Get("code") != "" ||
				q.Get("error") == "" || !strings.Contains(q.Get("error_description"), tc.want) || q.Get("state") != o.State {
				t.Fatalf("got %d to %s", res.Status, res.Header.Get("Location"))
			}
		})
	}
}

func TestTokenExchangeRefusesWrongVerifier(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SignUp(t, "mia", pw, nil)
	o, code := signedInCode(t, s, "mia")
	good := o.Verifier
	o.Verifier = good + "x"
	tok, status := o.Exchange(t, code)
	wantGrantError(t, tok, status, "invalid_grant")
	// A failed exchange spends the code too.
	o.Verifier = good
	tok, status = o.Exchange(t, code)
	wantGrantError(t, tok, status, "invalid_grant")
}

func TestTokenExchangeRefusesAnotherRedirectURI(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SignUp(t, "nia", pw, nil)
	o, code := signedInCode(t, s, "nia")
	tok, status := s.TokenRequest(t, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {s.URL + "/elsewhere/"},
		"client_id": {"hearth-web"}, "code_verifier": {o.Verifier},
	})
	wantGrantError(t, tok, status, "invalid_grant")
}

// TestAuthorizationCodeWorksOnce: a code seen by someone else (a log, a referrer) is useless
// once used, and its second use revokes what the first one got.
func TestAuthorizationCodeWorksOnce(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SignUp(t, "olga", pw, nil)
	o, code := signedInCode(t, s, "olga")
	first, status := o.Exchange(t, code)
	if status != http.StatusOK {
		t.Fatalf("first exchange: %d %+v", status, first)
	}
	again, status := o.Exchange(t, code)
	wantGrantError(t, again, status, "invalid_grant")
	tok, status := s.Refresh(t, first.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
	if !strings.Contains(tok.Description, "revoked") {
		t.Fatalf("refresh after the code's reuse: %+v", tok)
	}
}

func TestCodeExpiresAfterFiveMinutes(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SignUp(t, "pia", pw, nil)
	o, code := signedInCode(t, s, "pia")
	clock.Advance(5*time.Minute + time.Second)
	tok, status := o.Exchange(t, code)
	wantGrantError(t, tok, status, "invalid_grant")
}

// TestSignInPageRefusesOtherRedirectURIs: the issuer hands codes only to the browser client's
// own pages, never to a URI an attacker names.
func TestSignInPageRefusesOtherRedirectURIs(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	for _, uri := range []string{
		"https://evil.example/app/",
		s.URL + "/app",          // no trailing slash
		s.URL + "/app/?next=x",  // a query
		s.URL + "/app/#/token",  // a fragment
		s.URL + "/app/../evil/", // another path
		s.URL + "/",             // -web-url is not set: {base}/app is the web URL
		strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/app/",
	} {
		o := s.OAuth()
		res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"redirect_uri": {uri}}).Encode())
		if res.Status != http.StatusBadRequest || res.Header.Get("Location") != "" {
			t.Fatalf("redirect_uri %s: %d to %q", uri, res.Status, res.Header.Get("Location"))
		}
	}
	o := s.OAuth()
	if res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"client_id": {"another-client"}}).Encode()); res.Status != http.StatusBadRequest || res.Header.Get("Location") != "" {
		t.Fatalf("unknown client: %d to %q", res.Status, res.Header.Get("Location"))
	}
}

func TestSignInRedirectsToWebURL(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SetWebURL("https://chat.example.net/hearth")
	s.SignUp(t, "quinn", pw, nil) // to {base}/app/, still allowed
	o := s.OAuth()
	o.RedirectURI = "https://chat.example.net/hearth/"
	id := o.Start(t, nil)
	tok := o.Finish(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"quinn"}, "password": {pw}}))
	me(t, s, tok)
	// The page's CSP lets its forms lead there.
	page := o.Get(t, "/oauth/login?id="+o.Start(t, nil))
	if !strings.Contains(page.Header.Get("Content-Security-Policy"), "form-action 'self' "+s.URL+" https://chat.example.net;") {
		t.Fatalf("CSP = %s", page.Header.Get("Content-Security-Policy"))
	}
}

// TestSpentRefreshTokenRevokesItsFamily: a stolen refresh token used by the thief and by the
// person (in either order) ends that sign-in for both.
func TestSpentRefreshTokenRevokesItsFamily(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	first := s.SignUp(t, "rae", pw, nil)
	other := s.SignIn(t, "rae", pw) // another device: another family

	second, status := s.Refresh(t, first.RefreshToken)
	if status != http.StatusOK || second.RefreshToken == "" || second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
		t.Fatalf("refresh: %d %+v", status, second)
	}
	me(t, s, second)
	third, status := s.Refresh(t, second.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh of the new token: %d %+v", status, third)
	}
	// The spent first token comes back: refused, and the newest of its family dies with it.
	tok, status := s.Refresh(t, first.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
	tok, status = s.Refresh(t, third.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
	// The other device's sign-in is another family: it goes on.
	if tok, status := s.Refresh(t, other.RefreshToken); status != http.StatusOK {
		t.Fatalf("the other family: %d %+v", status, tok)
	}
}

func TestRefreshTokensSurviveARestartAndExpire(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	first := s.SignUp(t, "sam", pw, nil)
	s.Restart()
	s.SetSignInClock(clock.Now)
	clock.Advance(29 * 24 * time.Hour)
	second, status := s.Refresh(t, first.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh after a restart: %d %+v", status, second)
	}
	// Each new refresh token lives 30 days from its own issue.
	clock.Advance(30*24*time.Hour - time.Second)
	third, status := s.Refresh(t, second.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh within 30 days of the last: %d %+v", status, third)
	}
	clock.Advance(30 * 24 * time.Hour)
	tok, status := s.Refresh(t, third.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
	if !strings.Contains(tok.Description, "expired") {
		t.Fatalf("description = %q", tok.Description)
	}
}

func TestSignOutRevokesEveryRefreshTokenOfTheAccount(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	phone := s.SignUp(t, "tia", pw, nil)
	laptop := s.SignIn(t, "tia", pw)
	uma := s.SignUp(t, "uma", pw, nil)
	revoke := func(form url.Values) int {
		res, err := http.PostForm(s.URL+"/oauth/revoke", form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// An unknown token is no error (RFC 7009) and changes nothing.
	if st := revoke(url.Values{"token": {"hr_nonsense"}, "token_type_hint": {"refresh_token"}, "client_id": {"hearth-web"}}); st != http.StatusOK {
		t.Fatalf("revoke an unknown token: %d", st)
	}
	if st := revoke(url.Values{"token": {phone.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {"hearth-web"}}); st != http.StatusOK {
		t.Fatalf("revoke: %d", st)
	}
	for _, tok := range []webtest.Tokens{phone, laptop} {
		res, status := s.Refresh(t, tok.RefreshToken)
		wantGrantError(t, res, status, "invalid_grant")
	}
	if _, status := s.Refresh(t, uma.RefreshToken); status != http.StatusOK {
		t.Fatal("signing tia out signed uma out")
	}
	// Signing out with an access token works the same.
	fresh := s.SignIn(t, "tia", pw)
	if st := revoke(url.Values{"token": {fresh.AccessToken}, "client_id": {"hearth-web"}}); st != http.StatusOK {
		t.Fatalf("revoke with the access token: %d", st)
	}
	res, status := s.Refresh(t, fresh.RefreshToken)
	wantGrantError(t, res, status, "invalid_grant")
	// A new sign-in after signing out works.
	if _, status := s.Refresh(t, s.SignIn(t, "tia", pw).RefreshToken); status != http.StatusOK {
		t.Fatal("a sign-in after sign-out has no working refresh token")
	}
}

// TestTokenEndpointRefusesOtherGrants: op implements more grants than this issuer offers; none
// of them may be reachable.
func TestTokenEndpointRefusesOtherGrants(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	for _, g := range []string{"urn:ietf:params:oauth:grant-type:jwt-bearer", "client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange", "urn:ietf:params:oauth:grant-type:device_code", "password", "implicit"} {
		tok, status := s.TokenRequest(t, url.Values{"grant_type": {g}, "client_id": {"hearth-web"}, "assertion": {"x"}, "subject_token": {"x"}})
		wantGrantError(t, tok, status, "unsupported_grant_type")
	}
	tok, status := s.TokenRequest(t, url.Values{"client_id": {"hearth-web"}})
	wantGrantError(t, tok, status, "invalid_request")
	// Op's other endpoints are not served.
	o := s.OAuth()
	for _, p := range []string{"/oauth/introspect", "/userinfo", "/end_session", "/oauth/authorize/callback?id=x", "/keys", "/device_authorization"} {
		if res := o.Get(t, p); res.Status != http.StatusNotFound {
			t.Fatalf("%s: %d", p, res.Status)
		}
	}
}
