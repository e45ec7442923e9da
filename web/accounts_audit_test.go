package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
	t.Parallel()
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

var autofocused = regexp.MustCompile(`<(?:input|textarea|p)\s[^>]*\bautofocus\b[^>]*>`)

// focusedID is the id of the one element of a page that takes the focus when it loads.
func focusedID(t *testing.T, res webtest.Response) string {
	t.Helper()
	all := autofocused.FindAllString(res.Body, -1)
	if len(all) != 1 {
		t.Fatalf("%d elements take the focus, want 1: %q\n%s", len(all), all, res.Body)
	}
	m := regexp.MustCompile(`\sid="([^"]+)"`).FindStringSubmatch(all[0])
	if m == nil {
		t.Fatalf("the focused element has no id: %s", all[0])
	}
	if m[1] != "form-error" && (!strings.Contains(all[0], `aria-invalid="true"`) || !strings.Contains(all[0], `aria-describedby="form-error`)) {
		t.Fatalf("the field in error is not marked invalid and described by the message: %s", all[0])
	}
	return m[1]
}

// TestSignInPagesFocusTheFieldInError: after a failed submission the page comes back with the
// focus on the field the error is about (marked invalid and described by the message), or on
// the message when it is about no field, so that a keyboard or screen reader user starts there.
// The pages run no script: autofocus does it.
func TestSignInPagesFocusTheFieldInError(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SignUp(t, "taken", pw, nil)
	o := s.OAuth()
	id := o.Start(t, nil)
	if fresh := o.Get(t, "/oauth/login?id="+id+"&mode=signup"); autofocused.MatchString(fresh.Body) {
		t.Fatal("a page with no error takes the focus somewhere")
	}
	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"username taken", signUpForm("Taken", pw, nil), "username"},
		{"username alphabet", signUpForm("a b", pw, nil), "username"},
		{"short password", signUpForm("frank", "nine char", nil), "password"},
		{"passwords differ", url.Values{"action": {"signup"}, "username": {"frank"}, "password": {pw}, "password2": {pw + "!"}}, "password2"},
		{"display name", signUpForm("frank", pw, url.Values{"display_name": {strings.Repeat("n", 65)}}), "display_name"},
		{"wrong password", url.Values{"action": {"signin"}, "username": {"taken"}, "password": {"wrong password"}}, "password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := focusedID(t, o.Submit(t, id, tc.form)); got != tc.want {
				t.Fatalf("focus on %s, want %s", got, tc.want)
			}
		})
	}
	// Refusals of the Join: the invite, the answers. (Each group of attempts gets a fresh
	// minute: 10 a minute from one address is the limit.)
	clock.Advance(time.Minute)
	on := true
	settings(t, owner, &svcv1.UpdateServerSettingsRequest{InviteOnly: &on, JoinQuestions: []string{"Who invited you?", "Why join?"}, SetJoinQuestions: true})
	inv := createInvite(t, owner, 0, 0)
	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"no invite", signUpForm("gina", pw, url.Values{"answer": {"a", "b"}}), "invite"},
		{"bad invite", signUpForm("gina", pw, url.Values{"invite": {"AAAAAAAAAA"}, "answer": {"a", "b"}}), "invite"},
		{"too few answers", signUpForm("gina", pw, url.Values{"invite": {inv.GetCode()}, "answer": {"a"}}), "answer0"},
		{"long answer", signUpForm("gina", pw, url.Values{"invite": {inv.GetCode()}, "answer": {"a", strings.Repeat("b", 1001)}}), "answer1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := focusedID(t, o.Submit(t, id, tc.form)); got != tc.want {
				t.Fatalf("focus on %s, want %s", got, tc.want)
			}
		})
	}
	// The password page.
	clock.Advance(time.Minute)
	change := func(current, next, next2 string) webtest.Response {
		return o.Post(t, "/oauth/password", url.Values{"username": {"taken"}, "password": {current}, "new_password": {next}, "new_password2": {next2}})
	}
	for _, tc := range []struct {
		name string
		res  webtest.Response
		want string
	}{
		{"wrong current password", change("wrong password", "a new password", "a new password"), "password"},
		{"short new password", change(pw, "short", "short"), "new_password"},
		{"new passwords differ", change(pw, "a new password", "another one!"), "new_password2"},
	} {
		if got := focusedID(t, tc.res); got != tc.want {
			t.Fatalf("%s: focus on %s, want %s", tc.name, got, tc.want)
		}
	}
	// A refusal about no field: the message takes the focus.
	for range 12 {
		res := o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"taken"}, "password": {"wrong password"}})
		if res.Status == http.StatusTooManyRequests {
			if got := focusedID(t, res); got != "form-error" || !strings.Contains(res.Body, `tabindex="-1"`) {
				t.Fatalf("rate limited: focus on %s", got)
			}
			return
		}
	}
	t.Fatal("the sign-in attempts were never limited")
}

// TestSignInFormsRefuseCrossSiteNullOrigin: a page on another site can post the forms from a
// sandboxed frame, whose Origin is "null" as the sign-in page's own is (its Referrer-Policy is
// no-referrer); the browser's Sec-Fetch-Site tells them apart. The page's own posts (same-origin)
// and clients that send neither header still work.
func TestSignInFormsRefuseCrossSiteNullOrigin(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "kit", pw, nil)
	o := s.OAuth()
	id := o.Start(t, nil)
	post := func(path, site string, form url.Values) int {
		r, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "null")
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	signIn := url.Values{"id": {id}, "action": {"signin"}, "username": {"kit"}, "password": {pw}}
	for _, site := range []string{"cross-site", "same-site", "none"} {
		if st := post("/oauth/login", site, signIn); st != http.StatusForbidden {
			t.Fatalf("sign-in form with Sec-Fetch-Site %s: %d, want 403", site, st)
		}
		if st := post("/oauth/password", site, url.Values{"username": {"kit"}, "password": {pw}, "new_password": {"a new password"}, "new_password2": {"a new password"}}); st != http.StatusForbidden {
			t.Fatalf("password form with Sec-Fetch-Site %s: %d, want 403", site, st)
		}
	}
	if st := post("/oauth/login", "same-origin", signIn); st != http.StatusFound {
		t.Fatalf("the page's own sign-in: %d, want a redirect", st)
	}
}

// TestPasswordsAreUnicodeNormalized: the same password typed with "é" as one code point (NFC)
// or as "e" and a combining accent (NFD, as some keyboards and systems produce) signs in
// either way, and the 10-character minimum counts characters of the normalized form. Long
// passwords (1,024 bytes) work; one byte more is refused with the limit named.
func TestPasswordsAreUnicodeNormalized(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	const nfc, nfd = "caf\u00e9 caf\u00e9 caf\u00e9", "cafe\u0301 cafe\u0301 cafe\u0301"
	s.SignUp(t, "nora", nfc, nil)
	s.SignIn(t, "nora", nfd)
	s.SignUp(t, "otto", nfd, nil)
	s.SignIn(t, "otto", nfc)
	s.SignIn(t, "otto", nfd)
	o := s.OAuth()
	id := o.Start(t, nil)
	// Nine "é" in NFD are 18 code points, but nine characters.
	wantPage(t, o.Submit(t, id, signUpForm("pete", "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301", nil)), http.StatusBadRequest, "The password has 9 characters; it needs at least 10.")
	long := strings.Repeat("\u00e9", 512) // 1,024 bytes
	s.SignUp(t, "quin", long, nil)
	s.SignIn(t, "quin", long)
	wantPage(t, o.Submit(t, id, signUpForm("rosa", long+"x", nil)), http.StatusBadRequest, "The password is longer than 1024 bytes.")
	wantPage(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"quin"}, "password": {long + "x"}}), http.StatusUnauthorized, "Wrong username or password.")
}

// TestTokenEndpointAnswersClientMistakesWithInvalidClient: a refresh with an unknown or
// missing client_id, or with a client assertion (the one client is public), is the client's
// mistake: 401 invalid_client (RFC 6749, 5.2), not a 500, and the refresh token is not spent.
func TestTokenEndpointAnswersClientMistakesWithInvalidClient(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	tok := s.SignUp(t, "vic", pw, nil)
	for name, form := range map[string]url.Values{
		"unknown client":   {"client_id": {"another-client"}},
		"no client":        {},
		"client assertion": {"client_id": {"hearth-web"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {"a.b.c"}},
	} {
		form.Set("grant_type", "refresh_token")
		form.Set("refresh_token", tok.RefreshToken)
		res, status := s.TokenRequest(t, form)
		if status != http.StatusUnauthorized || res.Error != "invalid_client" || res.AccessToken != "" {
			t.Fatalf("%s: %d %+v, want 401 invalid_client", name, status, res)
		}
	}
	if res, status := s.Refresh(t, tok.RefreshToken); status != http.StatusOK {
		t.Fatalf("the refresh token after refused requests: %d %+v", status, res)
	}
}

// TestSignUpPageWordsJoinRefusals: a Join refused on the sign-up page is told in the page's
// words, not the API's field names (invite_code, answers[1]).
func TestSignUpPageWordsJoinRefusals(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClockAt(time.Now())
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	on := true
	settings(t, owner, &svcv1.UpdateServerSettingsRequest{InviteOnly: &on, JoinQuestions: []string{"Who invited you?", "Why join?"}, SetJoinQuestions: true})
	expired := createInvite(t, owner, 60, 0)
	clock.Advance(time.Minute)
	good := createInvite(t, owner, 0, 0)
	o := s.OAuth()
	id := o.Start(t, nil)
	for _, tc := range []struct {
		form   url.Values
		status int
		text   string
	}{
		{signUpForm("wes", pw, url.Values{"invite": {expired.GetCode()}, "answer": {"a", "b"}}), http.StatusForbidden, `The invite code &#34;` + expired.GetCode() + `&#34; has expired.`},
		{signUpForm("wes", pw, url.Values{"invite": {"AAAAAAAAAA"}, "answer": {"a", "b"}}), http.StatusForbidden, `The invite code &#34;AAAAAAAAAA&#34; is not a valid invite.`},
		{signUpForm("wes", pw, url.Values{"invite": {good.GetCode()}, "answer": {"a"}}), http.StatusBadRequest, "You gave 1 answer; the community asks 2 questions."},
		{signUpForm("wes", pw, url.Values{"invite": {good.GetCode()}, "answer": {"a", strings.Repeat("b", 1001)}}), http.StatusBadRequest, "Answer 2 is 1,001 characters; the limit is 1,000."},
		{signUpForm("wes", pw, url.Values{"invite": {good.GetCode()}, "answer": {"a", "b"}, "display_name": {"Wes\u202e"}}), http.StatusBadRequest, "The display name must not contain"},
	} {
		res := o.Submit(t, id, tc.form)
		wantPage(t, res, tc.status, tc.text)
		if strings.Contains(res.Body, "invite_code") || strings.Contains(res.Body, "answers") || strings.Contains(res.Body, "display_name must") {
			t.Fatalf("the page names an API field:\n%s", res.Body)
		}
	}
	wantNoAccount(t, s, "wes")
}

// TestPasswordPageDoesNotRevealWhetherAUsernameExists: the password page is a sign-in attempt
// too; a known username with a wrong password and an unknown username get the same status and
// page, and so do their rate-limited answers (10 failures per username and address).
func TestPasswordPageDoesNotRevealWhetherAUsernameExists(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SignUp(t, "yara", pw, nil)
	clock.Advance(time.Minute) // the sign-up was an attempt from this address
	o := s.OAuth()
	change := func(user string) webtest.Response {
		return o.Post(t, "/oauth/password", url.Values{"username": {user}, "password": {"not the password"}, "new_password": {"a new password"}, "new_password2": {"a new password"}})
	}
	same := func(known, unknown webtest.Response, status int) {
		t.Helper()
		if known.Status != status || unknown.Status != status || known.Header.Get("Retry-After") != unknown.Header.Get("Retry-After") ||
			strings.ReplaceAll(known.Body, "yara", "zoe") != unknown.Body {
			t.Fatalf("known %d, unknown %d (want %d); pages:\n%s\n---\n%s", known.Status, unknown.Status, status, known.Body, unknown.Body)
		}
	}
	for range 10 {
		same(change("yara"), change("zoe"), http.StatusUnauthorized)
	}
	same(change("yara"), change("zoe"), http.StatusTooManyRequests)
}

// TestAuthorizationRequestsAreBoundedPerAddress: anyone can start authorization requests, and
// they are kept (at most 10,000) until the page is filled in. One host looping over the
// authorize endpoint drops its own oldest requests once it has 100 (an IPv6 /64 counting as
// one host), never the page someone else is filling in.
func TestAuthorizationRequestsAreBoundedPerAddress(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SetTrustedProxies("127.0.0.1/32")
	// The authorize endpoint takes one request every 2 seconds from an address after 30.
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SignUp(t, "abe", pw, nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	start := func(o *webtest.OAuth, from string) string {
		t.Helper()
		r, _ := http.NewRequest(http.MethodGet, s.URL+"/oauth/authorize?"+o.AuthorizeQuery(nil).Encode(), nil)
		r.Header.Set("X-Forwarded-For", from)
		res, err := noRedirect.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, err := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != http.StatusFound || err != nil || loc.Query().Get("id") == "" {
			t.Fatalf("authorize from %s: %d %q", from, res.StatusCode, res.Header.Get("Location"))
		}
		return loc.Query().Get("id")
	}
	person := s.OAuth()
	personID := start(person, "203.0.113.7")
	flood := s.OAuth()
	var ids []string
	for i := range 130 {
		ids = append(ids, start(flood, "2001:db8:1:2::"+strconv.FormatInt(int64(i+1), 16)))
		clock.Advance(2 * time.Second)
	}
	open := func(id string) bool {
		return flood.Get(t, "/oauth/login?id="+id).Status == http.StatusOK
	}
	for i, id := range ids {
		if want := i >= 30; open(id) != want {
			t.Fatalf("the flood's request %d open = %v, want %v: the host keeps its newest 100", i, !want, want)
		}
	}
	person.Code(t, person.Submit(t, personID, url.Values{"action": {"signin"}, "username": {"abe"}, "password": {pw}}))
}
