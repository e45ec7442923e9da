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
	"github.com/pquerna/otp/totp"

	"hearth/engine/mail/mailtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// accountMember signs up username on the built-in issuer and returns its client (Member set).
func accountMember(t *testing.T, s *webtest.Server, username string) (*webtest.Client, webtest.Tokens) {
	t.Helper()
	tok := s.SignUp(t, username, pw, nil)
	c := s.Client(tok.AccessToken)
	c.Member = me(t, s, tok)
	return c, tok
}

func resetLink(t *testing.T, c *webtest.Client, memberID string) (*svcv1.CreatePasswordResetLinkResponse, error) {
	t.Helper()
	res, err := c.Server.CreatePasswordResetLink(ctx, req(&svcv1.CreatePasswordResetLinkRequest{MemberId: memberID}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// TestPasswordResetLinkRanks: an admin or the owner makes links for members of lower rank with
// an account here; nobody else, and for nobody else.
func TestPasswordResetLinkRanks(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner, _ := accountMember(t, s, "olive")
	done := true
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	admin, _ := accountMember(t, s, "adam")
	mod, _ := accountMember(t, s, "mona")
	member, _ := accountMember(t, s, "mia")
	admin2, _ := accountMember(t, s, "abel")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{
		admin: svcv1.MemberRole_MEMBER_ROLE_ADMIN, admin2: svcv1.MemberRole_MEMBER_ROLE_ADMIN,
		mod: svcv1.MemberRole_MEMBER_ROLE_MODERATOR,
	})
	people := map[string]*webtest.Client{"owner": owner, "admin": admin, "admin2": admin2, "moderator": mod, "member": member}
	for _, tc := range []struct {
		caller, target string
		code           connect.Code // 0: allowed
	}{
		{"owner", "admin", 0}, {"owner", "moderator", 0}, {"owner", "member", 0},
		{"admin", "moderator", 0}, {"admin", "member", 0},
		{"admin", "admin2", connect.CodePermissionDenied}, {"admin", "owner", connect.CodePermissionDenied},
		{"admin", "admin", connect.CodePermissionDenied}, {"owner", "owner", connect.CodePermissionDenied},
		{"moderator", "member", connect.CodePermissionDenied}, {"member", "member", connect.CodePermissionDenied},
		{"member", "moderator", connect.CodePermissionDenied},
	} {
		res, err := resetLink(t, people[tc.caller], people[tc.target].Member.GetId())
		if tc.code == 0 {
			if err != nil || !strings.HasPrefix(res.GetUrl(), s.URL+"/oauth/reset?token=") ||
				time.Until(time.UnixMilli(res.GetExpiresAtMs())).Round(time.Hour) != 24*time.Hour {
				t.Fatalf("%s for %s: %v %v", tc.caller, tc.target, res, err)
			}
			continue
		}
		if connect.CodeOf(err) != tc.code {
			t.Fatalf("%s for %s: %v, want %s", tc.caller, tc.target, err, tc.code)
		}
	}
	// Who has no password here: a login of hearth token, a bot; who is not here.
	tokenOnly := s.Join("ted")
	bot := s.CreateBot(owner, "helper")
	for _, tc := range []struct {
		id   string
		code connect.Code
		msg  string
	}{
		{tokenOnly.Member.GetId(), connect.CodeFailedPrecondition, "no account with a password"},
		{bot.Member.GetId(), connect.CodeFailedPrecondition, "is a bot"},
		{"0190aaaa-0000-7000-8000-000000000000", connect.CodeNotFound, "does not exist"},
		{"", connect.CodeInvalidArgument, "member_id is required"},
	} {
		_, err := resetLink(t, owner, tc.id)
		if connect.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Fatalf("link for %q: %v, want %s %q", tc.id, err, tc.code, tc.msg)
		}
	}
	if _, err := member.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	if _, err := resetLink(t, owner, member.Member.GetId()); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("a member who left: %v", err)
	}
}

var tokenField = regexp.MustCompile(`name="token" value="([^"]+)"`)

// useResetLink opens a link and sets password with it, returning the last page.
func useResetLink(t *testing.T, s *webtest.Server, link, password string) webtest.Response {
	t.Helper()
	o := s.OAuth()
	page := o.Get(t, link)
	m := tokenField.FindStringSubmatch(page.Body)
	if page.Status != http.StatusOK || m == nil {
		return page
	}
	return o.Post(t, "/oauth/reset", url.Values{"token": {m[1]}, "new_password": {password}, "new_password2": {password}})
}

// TestPasswordResetLinkSetsAPasswordOnceAndSignsOutEverywhere: a link works once, for 24
// hours; the new password works, the old one does not, and every refresh token is revoked.
func TestPasswordResetLinkSetsAPasswordOnceAndSignsOutEverywhere(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	clock := webtest.NewClockAt(time.Now())
	s.SetSignInClock(clock.Now)
	_, tok := accountMember(t, s, "pia")
	other := s.SignIn(t, "pia", pw)
	pia := s.Client(tok.AccessToken)
	pia.Member = me(t, s, tok)
	link, err := resetLink(t, owner, pia.Member.GetId())
	if err != nil {
		t.Fatal(err)
	}
	page := s.OAuth().Get(t, link.GetUrl())
	wantPage(t, page, http.StatusOK, "For the account <strong>pia</strong>.")
	// Two new passwords that differ: nothing is used up.
	m := tokenField.FindStringSubmatch(page.Body)
	res := s.OAuth().Post(t, "/oauth/reset", url.Values{"token": {m[1]}, "new_password": {"a new password"}, "new_password2": {"another one!"}})
	wantPage(t, res, http.StatusBadRequest, "The two new passwords differ.")

	wantPage(t, useResetLink(t, s, link.GetUrl(), "a new password"), http.StatusOK, "The password of <strong>pia</strong> is set.")
	for _, rt := range []string{tok.RefreshToken, other.RefreshToken} {
		got, status := s.Refresh(t, rt)
		wantGrantError(t, got, status, "invalid_grant")
	}
	wantPage(t, signIn(t, s.OAuth(), "pia", pw), http.StatusUnauthorized, "Wrong username or password.")
	s.SignIn(t, "pia", "a new password")
	// Once only.
	wantPage(t, useResetLink(t, s, link.GetUrl(), "a third password"), http.StatusBadRequest, "This link does not work (any more)")

	// 24 hours only.
	late, err := resetLink(t, owner, pia.Member.GetId())
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(24*time.Hour + time.Second)
	wantPage(t, useResetLink(t, s, late.GetUrl(), "a third password"), http.StatusBadRequest, "This link does not work (any more)")

	// A password change voids the links made before it.
	early, err := resetLink(t, owner, pia.Member.GetId())
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	res = s.OAuth().Post(t, "/oauth/password", url.Values{"username": {"pia"}, "password": {"a new password"}, "new_password": {"the fourth password"}, "new_password2": {"the fourth password"}})
	wantPage(t, res, http.StatusOK, "Your password is changed.")
	wantPage(t, useResetLink(t, s, early.GetUrl(), "a fifth password"), http.StatusBadRequest, "This link does not work (any more)")
}

// TestForgotPasswordAnswersTheSameAndMailsAVerifiedAddress: "Forgot password" answers the same
// whether the account exists, has a verified address or not; only a verified address gets a
// link, and the link works.
func TestForgotPasswordAnswersTheSameAndMailsAVerifiedAddress(t *testing.T) {
	t.Parallel()
	ms := mailtest.Start(t, mailtest.Options{})
	s := webtest.StartConfig(t, webtest.WithMail(ms))
	s.SetTrustedProxies("127.0.0.1/32")
	s.Join("owner")
	s.SignUp(t, "quinn", pw, nil)
	s.SignUp(t, "rita", pw, nil) // no address

	// Quinn adds an address on the account page and opens the link mailed to it.
	o := s.OAuth()
	accountSignIn(t, o, "quinn", pw)
	res := o.Post(t, "/oauth/account", url.Values{"action": {"email"}, "email": {"quinn@example.org"}})
	wantPage(t, res, http.StatusOK, "A link is on its way to quinn@example.org.")
	verify := ms.Wait(t, 1)
	if verify.To[0] != "quinn@example.org" || !strings.Contains(verify.Subject, "Confirm your email address") {
		t.Fatalf("mail %+v", verify)
	}
	link := verify.Link(t, "/oauth/verify-email")
	page := o.Get(t, link)
	wantPage(t, page, http.StatusOK, "Use <strong>quinn@example.org</strong>")
	res = o.Post(t, "/oauth/verify-email", url.Values{"token": {tokenField.FindStringSubmatch(page.Body)[1]}})
	wantPage(t, res, http.StatusOK, "is your account's email address now")
	if page := o.Get(t, link); page.Status != http.StatusBadRequest {
		t.Fatalf("a verification link worked twice: %d", page.Status)
	}
	if addr, err := s.SignInProvider().VerifiedEmail(ctx, s.URL, s.AccountSubject(t, "quinn")); err != nil || addr != "quinn@example.org" {
		t.Fatalf("VerifiedEmail = %q, %v", addr, err)
	}

	asked := 0
	forgot := func(who string) webtest.Response {
		asked++ // from another address each time: an address may ask 5 times in 15 minutes
		return from(s.OAuth(), "203.0.113."+strconv.Itoa(asked)).Post(t, "/oauth/forgot", url.Values{"who": {who}})
	}
	var pages []string
	for _, who := range []string{"quinn", "rita", "nobody", "quinn@example.org", "nobody@example.org"} {
		res := forgot(who)
		wantPage(t, res, http.StatusOK, "If that account has a confirmed email address, a link to choose a new password is on its way there.")
		pages = append(pages, strings.ReplaceAll(res.Body, who, "WHO"))
	}
	for _, p := range pages[1:] {
		if p != pages[0] {
			t.Fatalf("the answers differ:\n%s\n---\n%s", pages[0], p)
		}
	}
	// Two mails to quinn (by username and by address), none for the others.
	first, second := ms.Wait(t, 2), ms.Wait(t, 3)
	time.Sleep(200 * time.Millisecond)
	if ms.Count() != 3 || first.To[0] != "quinn@example.org" || second.To[0] != "quinn@example.org" {
		t.Fatalf("%d mails: %+v %+v", ms.Count(), first, second)
	}
	wantPage(t, useResetLink(t, s, first.Link(t, "/oauth/reset"), "quinn's new password"), http.StatusOK, "is set")
	s.SignIn(t, "quinn", "quinn's new password")
	// 3 an hour per account, whoever asks, with the same answer past it; 5 in 15 minutes per
	// address.
	forgot("quinn")
	wantPage(t, forgot("quinn"), http.StatusOK, "If that account has a confirmed email address")
	// The third mail of the hour is sent as the first ask is answered, on a loaded machine
	// later than 200 ms: waited for, then no fourth after it.
	ms.Wait(t, 4)
	time.Sleep(200 * time.Millisecond)
	if ms.Count() != 4 {
		t.Fatalf("%d mails, want 4 (3 an hour for one account)", ms.Count())
	}
}

// TestForgotPasswordIsOnlyOfferedWithMail: without -smtp-url there is no "Forgot password".
func TestForgotPasswordIsOnlyOfferedWithMail(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	o := s.OAuth()
	page := o.Get(t, "/oauth/login?id="+o.Start(t, nil))
	if strings.Contains(page.Body, "Forgot your password?") {
		t.Fatal("the sign-in page offers a mail the server cannot send")
	}
	if res := o.Get(t, "/oauth/forgot"); res.Status != http.StatusNotFound {
		t.Fatalf("/oauth/forgot: %d", res.Status)
	}
	ms := mailtest.Start(t, mailtest.Options{})
	s2 := webtest.StartConfig(t, webtest.WithMail(ms))
	o = s2.OAuth()
	page = o.Get(t, "/oauth/login?id="+o.Start(t, nil))
	if !strings.Contains(page.Body, "Forgot your password?") {
		t.Fatal("no Forgot password with mail on")
	}
}

func TestForgotPasswordIsLimitedPerAddress(t *testing.T) {
	t.Parallel()
	ms := mailtest.Start(t, mailtest.Options{})
	s := webtest.StartConfig(t, webtest.WithMail(ms))
	o := s.OAuth()
	for i := range 5 {
		wantPage(t, o.Post(t, "/oauth/forgot", url.Values{"who": {"user" + strconv.Itoa(i)}}), http.StatusOK, "If that account has a confirmed email address")
	}
	wantPage(t, o.Post(t, "/oauth/forgot", url.Values{"who": {"user9"}}), http.StatusTooManyRequests, "Too many reset mails were asked for from your address. Try again in 3 minutes.")
}

var secretField = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)

// TestAccountPageSignInTakesTheSecondStep: the account page's own sign-in asks for the code
// too (it is where two-step sign-in is turned off), and the password page refuses a password
// change by password alone once two-step sign-in is on.
func TestAccountPageSignInTakesTheSecondStep(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SignUp(t, "hal", pw, nil)
	o := s.OAuth()
	accountSignIn(t, o, "hal", pw)
	page := o.Post(t, "/oauth/account", url.Values{"action": {"totp-start"}})
	m := secretField.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no secret on the setup: %s", page.Body)
	}
	c, err := totp.GenerateCode(m[1], time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wantPage(t, o.Post(t, "/oauth/account", url.Values{"action": {"totp-confirm"}, "code": {c}}), http.StatusOK, "Two-step sign-in is on.")

	fresh := s.OAuth()
	page = fresh.Get(t, "/oauth/account")
	res := fresh.Post(t, "/oauth/login", url.Values{"id": {webtest.RequestID(t, page)}, "action": {"signin"}, "username": {"hal"}, "password": {pw}})
	wantPage(t, res, http.StatusOK, "Code from your authenticator app")
	c, _ = totp.GenerateCode(m[1], time.Now().Add(30*time.Second))
	res = fresh.Post(t, "/oauth/login", url.Values{"id": {webtest.RequestID(t, res)}, "action": {"code"}, "code": {c}})
	if res.Status != http.StatusFound || res.Header.Get("Location") != "/oauth/account" {
		t.Fatalf("the second step: %d to %q", res.Status, res.Header.Get("Location"))
	}
	wantPage(t, fresh.Get(t, "/oauth/account"), http.StatusOK, "Signed in as <strong>hal</strong>")

	res = s.OAuth().Post(t, "/oauth/password", url.Values{"username": {"hal"}, "password": {pw}, "new_password": {"a new password"}, "new_password2": {"a new password"}})
	wantPage(t, res, http.StatusForbidden, "This account has two-step sign-in: change its password on your account page")
	// And the password alone no longer signs in to a client.
	wantPage(t, signIn(t, s.OAuth(), "hal", pw), http.StatusOK, "Code from your authenticator app")
}
