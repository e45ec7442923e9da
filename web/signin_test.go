package web_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// pw is a password that meets the rules.
const pw = "correct horse battery"

// newOpenCommunity starts a server whose owner joined and finished the setup, so that people
// who sign up become plain members.
func newOpenCommunity(t *testing.T) (*webtest.Server, *webtest.Client) {
	t.Helper()
	s := webtest.Start(t)
	return s, s.Join("owner")
}

func settings(t *testing.T, owner *webtest.Client, r *svcv1.UpdateServerSettingsRequest) {
	t.Helper()
	if _, err := owner.Server.UpdateServerSettings(ctx, req(r)); err != nil {
		t.Fatal(err)
	}
}

func me(t *testing.T, s *webtest.Server, tok webtest.Tokens) *svcv1.Member {
	t.Helper()
	res, err := s.Client(tok.AccessToken).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatalf("GetMe with the access token: %v", err)
	}
	return res.Msg.GetMember()
}

// signUpForm is a sign-up's form for the page of request id.
func signUpForm(username, password string, more url.Values) url.Values {
	f := url.Values{"action": {"signup"}, "username": {username}, "password": {password}, "password2": {password}}
	for k, v := range more {
		f[k] = v
	}
	return f
}

// wantPage checks a page answer: its status and a text it shows.
func wantPage(t *testing.T, res webtest.Response, status int, text string) {
	t.Helper()
	if res.Status != status || !strings.Contains(res.Body, text) {
		t.Fatalf("got %d, want %d showing %q:\n%s", res.Status, status, text, res.Body)
	}
	if loc := res.Header.Get("Location"); loc != "" {
		t.Fatalf("a refusal redirected to %s", loc)
	}
}

func TestSignUpInOpenCommunityMakesAMemberAndTokensWork(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	tok := s.SignUp(t, "Alice", pw, url.Values{"display_name": {"Alice A."}})
	if tok.TokenType != "Bearer" || tok.ExpiresIn < 3590 || tok.ExpiresIn > 3600 || tok.RefreshToken == "" || tok.IDToken == "" {
		t.Fatalf("tokens = %+v", tok)
	}
	m := me(t, s, tok)
	// The first person in a new community becomes its owner, as with Join.
	if m.GetUsername() != "alice" || m.GetDisplayName() != "Alice A." || m.GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("member = %+v", m)
	}
	// The token carries the account's names and a subject that is not the username.
	claims := jwtClaims(t, tok.AccessToken)
	if claims["iss"] != s.URL || claims["sub"] == "alice" || claims["sub"] == "" || claims["preferred_username"] != "alice" || claims["name"] != "Alice A." {
		t.Fatalf("claims = %v", claims)
	}
	if aud, _ := claims["aud"].([]any); len(aud) == 0 || aud[0] != s.URL {
		t.Fatalf("aud = %v, want %s first", claims["aud"], s.URL)
	}
	// Signing in again reaches the same member, under the same stable subject.
	again := s.SignIn(t, "ALICE", pw)
	if me(t, s, again).GetId() != m.GetId() || jwtClaims(t, again.AccessToken)["sub"] != claims["sub"] {
		t.Fatal("a sign-in reached another member or subject")
	}
	// The accounts and the member survive a restart.
	s.Restart()
	if me(t, s, s.SignIn(t, "alice", pw)).GetId() != m.GetId() {
		t.Fatal("the account changed across a restart")
	}
}

func TestSignUpWithAnInviteLinkUsesTheInvite(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	on := true
	settings(t, owner, &svcv1.UpdateServerSettingsRequest{InviteOnly: &on})
	inv := createInvite(t, owner, 0, 1)
	o := s.OAuth()
	// The invite parameter opens the page on the sign-up form with the code filled in.
	res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(url.Values{"invite": {inv.GetCode()}}).Encode())
	page := o.Get(t, res.Location(t).String())
	if !strings.Contains(page.Body, `value="signup"`) || !strings.Contains(page.Body, `value="`+inv.GetCode()+`"`) {
		t.Fatalf("the page does not open on the sign-up with the invite:\n%s", page.Body)
	}
	id := webtest.RequestID(t, page)
	tok := o.Finish(t, o.Submit(t, id, signUpForm("bob", pw, url.Values{"invite": {strings.ToLower(inv.GetCode())}})))
	if me(t, s, tok).GetUsername() != "bob" {
		t.Fatal("bob is not a member")
	}
	invites, err := owner.Server.ListInvites(ctx, req(&svcv1.ListInvitesRequest{}))
	if err != nil || invites.Msg.GetInvites()[0].GetUses() != 1 {
		t.Fatalf("invites = %v, %v; want one use", invites, err)
	}
	// The invite is used up: the next sign-up with it is refused, and leaves no account.
	o2 := s.OAuth()
	id2 := o2.Start(t, url.Values{"invite": {inv.GetCode()}})
	wantPage(t, o2.Submit(t, id2, signUpForm("carol", pw, url.Values{"invite": {inv.GetCode()}})), http.StatusForbidden, "used up")
	wantNoAccount(t, s, "carol")
}

func TestSignUpRefusedInInviteOnlyCommunityWithoutInvite(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	on := true
	settings(t, owner, &svcv1.UpdateServerSettingsRequest{InviteOnly: &on})
	o := s.OAuth()
	id := o.Start(t, nil)
	signUp := o.Get(t, "/oauth/login?id="+id+"&mode=signup")
	if !strings.Contains(signUp.Body, `<label for="invite">Invite code</label>`) {
		t.Fatalf("the sign-up of an invite-only community asks for no invite:\n%s", signUp.Body)
	}
	wantPage(t, o.Submit(t, id, signUpForm("dave", pw, nil)), http.StatusForbidden, "invite only")
	wantPage(t, o.Submit(t, id, signUpForm("dave", pw, url.Values{"invite": {"AAAAAAAAAA"}})), http.StatusForbidden, "is not a valid invite")
	wantNoAccount(t, s, "dave")
}

// TestRefusedJoinLeavesNoAccount: an account exists only for people the community took, so a
// banned login, a bad invite or wrong answers cannot leave accounts (or taken usernames) behind.
func TestRefusedJoinLeavesNoAccount(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	settings(t, owner, &svcv1.UpdateServerSettingsRequest{JoinQuestions: []string{"Who invited you?", "Why join?"}, SetJoinQuestions: true})
	o := s.OAuth()
	id := o.Start(t, nil)
	page := o.Get(t, "/oauth/login?id="+id+"&mode=signup")
	for _, q := range []string{`<label for="answer0">Who invited you?</label>`, `<label for="answer1">Why join?</label>`} {
		if !strings.Contains(page.Body, q) {
			t.Fatalf("the sign-up page lacks %s:\n%s", q, page.Body)
		}
	}
	wantPage(t, o.Submit(t, id, signUpForm("erin", pw, url.Values{"answer": {"Frank"}})), http.StatusBadRequest, "You gave 1 answer; the community asks 2 questions.")
	wantNoAccount(t, s, "erin")
	// The username is free again: the same person answers both and gets in.
	tok := o.Finish(t, o.Submit(t, id, signUpForm("erin", pw, url.Values{"answer": {"Frank", "To chat"}})))
	if me(t, s, tok).GetUsername() != "erin" {
		t.Fatal("erin is not a member")
	}
}

func wantNoAccount(t *testing.T, s *webtest.Server, username string) {
	t.Helper()
	o := s.OAuth()
	id := o.Start(t, nil)
	wantPage(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {username}, "password": {pw}}), http.StatusUnauthorized, "Wrong username or password.")
}

func TestSignUpChecksUsernameAndPassword(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "taken", pw, nil)
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		text   string
		// keeps: the passwords typed are filled back in (the error is about another field).
		keeps bool
	}{
		{"short password", signUpForm("frank", "nine char", nil), http.StatusBadRequest, "The password has 9 characters; it needs at least 10.", false},
		{"passwords differ", url.Values{"action": {"signup"}, "username": {"frank"}, "password": {pw}, "password2": {pw + "!"}}, http.StatusBadRequest, "The two passwords differ.", false},
		{"username alphabet", signUpForm("frank smith", pw, nil), http.StatusBadRequest, "The username may only use a-z, 0-9, underscore, dot and hyphen.", true},
		{"username length", signUpForm("f", pw, nil), http.StatusBadRequest, "The username must be 2 to 32 characters long.", true},
		{"username taken", signUpForm("Taken", pw, nil), http.StatusConflict, "The username taken is taken.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := s.OAuth()
			id := o.Start(t, nil)
			res := o.Submit(t, id, tc.form)
			wantPage(t, res, tc.status, tc.text)
			if got := strings.Contains(res.Body, `value="`+pw+`"`); got != tc.keeps {
				t.Fatalf("the page shows the password back: %v, want %v", got, tc.keeps)
			}
		})
	}
}

// TestSignInDoesNotRevealWhetherAUsernameExists: a wrong password and an unknown username get
// the same status and the same page.
func TestSignInDoesNotRevealWhetherAUsernameExists(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "grace", pw, nil)
	o := s.OAuth()
	id := o.Start(t, nil)
	wrong := o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"grace"}, "password": {"not the password"}})
	unknown := o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"nobody"}, "password": {"not the password"}})
	wantPage(t, wrong, http.StatusUnauthorized, "Wrong username or password.")
	wantPage(t, unknown, http.StatusUnauthorized, "Wrong username or password.")
	if strings.ReplaceAll(wrong.Body, "grace", "nobody") != unknown.Body {
		t.Fatalf("the two answers differ beyond the username typed:\n%s\n---\n%s", wrong.Body, unknown.Body)
	}
	// The request is still usable after failures.
	o.Finish(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {"grace"}, "password": {pw}}))
}

func TestSignInLimits(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	s.SignUp(t, "heidi", pw, nil)
	o := s.OAuth()
	id := o.Start(t, nil)
	attempt := func(user, password string) webtest.Response {
		return o.Submit(t, id, url.Values{"action": {"signin"}, "username": {user}, "password": {password}})
	}
	// Right passwords do not count: only failures do.
	for range 12 {
		if res := attempt("heidi", pw); res.Status != http.StatusFound {
			t.Fatalf("a right password: %d", res.Status)
		}
		id = o.Start(t, nil)
	}
	// 10 failures per account and address in 15 minutes, whether or not the account exists,
	// from a browser that never signed in to either (one that did is held by this limit only).
	o = s.OAuth()
	id = o.Start(t, nil)
	for range 10 {
		wantPage(t, attempt("heidi", "wrong password"), http.StatusUnauthorized, "Wrong username or password.")
		wantPage(t, attempt("nobody", "wrong password"), http.StatusUnauthorized, "Wrong username or password.")
	}
	for _, user := range []string{"heidi", "nobody"} {
		res := attempt(user, "wrong password")
		wantPage(t, res, http.StatusTooManyRequests, "Too many sign-in attempts. Try again in 2 minutes.")
		if res.Header.Get("Retry-After") != "90" {
			t.Fatalf("Retry-After = %q, want 90", res.Header.Get("Retry-After"))
		}
	}
	// The right password does not get past the limit either, and is kept in its field.
	res := attempt("heidi", pw)
	wantPage(t, res, http.StatusTooManyRequests, "Too many sign-in attempts.")
	// 30 failures per address in 15 minutes, whatever the account: 20 so far.
	for i := range 10 {
		wantPage(t, attempt("judy"+strconv.Itoa(i%2), "wrong password"), http.StatusUnauthorized, "Wrong username or password.")
	}
	wantPage(t, attempt("kim", "wrong password"), http.StatusTooManyRequests, "Too many sign-in attempts. Try again in 1 minute.")
	clock.Advance(90 * time.Second)
	o.Finish(t, attempt("heidi", pw))
}

func TestSignInPageIsStrictAndAccessible(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	o := s.OAuth()
	id := o.Start(t, nil)
	for _, mode := range []string{"signin", "signup"} {
		page := o.Get(t, "/oauth/login?id="+id+"&mode="+mode)
		csp := page.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self' " + s.URL} {
			if !strings.Contains(csp, want) {
				t.Fatalf("CSP %q lacks %q", csp, want)
			}
		}
		if page.Header.Get("X-Frame-Options") != "DENY" || page.Header.Get("Cache-Control") != "no-store" || page.Header.Get("Set-Cookie") != "" {
			t.Fatalf("headers = %v", page.Header)
		}
		// One script, the pages' own; nothing from another host, a label for every input.
		if strings.Count(page.Body, "<script") != 1 || !strings.Contains(page.Body, `<script src="pages.js" defer></script>`) {
			t.Fatalf("the %s page has a script other than pages.js", mode)
		}
		for _, want := range []string{"script-src 'self'", "connect-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Fatalf("CSP %q lacks %q", csp, want)
			}
		}
		for _, bad := range []string{"<script>", "http://", "https://", "style=\"", "<iframe", "<img"} {
			if strings.Contains(page.Body, bad) {
				t.Fatalf("the %s page contains %q", mode, bad)
			}
		}
		if eventHandler.MatchString(page.Body) {
			t.Fatalf("the %s page has an event handler attribute", mode)
		}
		if !strings.Contains(page.Body, `<meta name="viewport" content="width=device-width, initial-scale=1">`) || !strings.Contains(page.Body, `<html lang="en">`) {
			t.Fatal("the page is not set up for phones or lacks its language")
		}
		for _, m := range inputID.FindAllStringSubmatch(page.Body, -1) {
			if !strings.Contains(page.Body, `<label for="`+m[1]+`"`) {
				t.Fatalf("input %s of the %s page has no label", m[1], mode)
			}
		}
	}
	css := o.Get(t, "/oauth/style.css")
	if css.Status != http.StatusOK || css.Header.Get("Content-Type") != "text/css; charset=utf-8" || strings.Contains(css.Body, "url(") || strings.Contains(css.Body, "@import") {
		t.Fatalf("style.css: %d %v", css.Status, css.Header)
	}
}

// TestSignInFormRefusesOtherOrigins: a page elsewhere cannot post the form (login CSRF).
func TestSignInFormRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "kim", pw, nil)
	o := s.OAuth()
	id := o.Start(t, nil)
	form := url.Values{"id": {id}, "action": {"signin"}, "username": {"kim"}, "password": {pw}}
	if res := o.PostFrom(t, "https://evil.example", "/oauth/login", form); res.Status != http.StatusForbidden {
		t.Fatalf("a form from another origin: %d %s", res.Status, res.Body)
	}
	if res := o.PostFrom(t, "https://evil.example", "/oauth/password", url.Values{"username": {"kim"}}); res.Status != http.StatusForbidden {
		t.Fatalf("a password form from another origin: %d", res.Status)
	}
	o.Code(t, o.Post(t, "/oauth/login", form))
}

func TestCancelledSignInGoesBackWithAccessDenied(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	o := s.OAuth()
	id := o.Start(t, nil)
	res := o.Submit(t, id, url.Values{"action": {"cancel"}})
	q := res.Location(t).Query()
	if res.Status != http.StatusFound || q.Get("error") != "access_denied" || q.Get("state") != o.State || q.Get("code") != "" {
		t.Fatalf("cancel: %d %s", res.Status, res.Header.Get("Location"))
	}
	// The request is gone.
	wantPage(t, o.Submit(t, id, url.Values{"action": {"signin"}}), http.StatusBadRequest, "This sign-in has expired.")
}

func TestPasswordChangeRevokesRefreshTokens(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	first := s.SignUp(t, "leo", pw, nil)
	second := s.SignIn(t, "leo", pw)
	o := s.OAuth()
	page := o.Get(t, "/oauth/password?username=leo")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, `value="leo"`) {
		t.Fatalf("password page: %d", page.Status)
	}
	change := func(current, next, next2 string) webtest.Response {
		return o.Post(t, "/oauth/password", url.Values{"username": {"leo"}, "password": {current}, "new_password": {next}, "new_password2": {next2}})
	}
	wantPage(t, change("wrong password", "a new password", "a new password"), http.StatusUnauthorized, "Wrong username or password.")
	wantPage(t, change(pw, "short", "short"), http.StatusBadRequest, "The new password has 5 characters; it needs at least 10.")
	wantPage(t, change(pw, "a new password", "another one!"), http.StatusBadRequest, "The two new passwords differ.")
	wantPage(t, change(pw, "a new password", "a new password"), http.StatusOK, "Your password is changed.")
	for _, tok := range []webtest.Tokens{first, second} {
		if res, status := s.Refresh(t, tok.RefreshToken); status != http.StatusBadRequest || res.Error != "invalid_grant" {
			t.Fatalf("refresh after the password change: %d %+v", status, res)
		}
	}
	wantNoAccount(t, s, "leo") // the old password is refused
	me(t, s, s.SignIn(t, "leo", "a new password"))
}

var (
	inputID      = regexp.MustCompile(`<(?:input|textarea) id="([^"]+)"`)
	eventHandler = regexp.MustCompile(`\son[a-z]+=`)
)

// jwtClaims reads a JWT's claims without checking it (the server checks tokens; tests look).
func jwtClaims(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}
