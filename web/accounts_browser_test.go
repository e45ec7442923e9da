package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"hearth/engine/mail/mailtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The built-in issuer's pages in Chromium, as a person uses them: the account page (devices,
// two-step sign-in, passkeys), signing in with a code, a recovery code or a passkey, a reset
// link. HEARTH_SCREENSHOTS=$PWD/docs/screenshots writes the pages' screenshots there.

// tab is one browser tab on the issuer's pages.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func newTab(t *testing.T) *tab {
	t.Helper()
	browser := webtest.StartChromium(t, chromedp.WindowSize(520, 900))
	ctx, cancel := context.WithTimeout(browser, 2*time.Minute)
	t.Cleanup(cancel)
	b := &tab{t: t, ctx: ctx}
	b.do(chromedp.EmulateViewport(520, 900))
	return b
}

func (b *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

func (b *tab) eval(js string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor polls a condition (a JS expression) for up to 10 s.
func (b *tab) waitFor(what, cond string) {
	b.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waiting for %s (%v): the page is %s\n%s", what, err, b.eval(`location.href`), b.eval(`document.body ? document.body.innerText : ""`))
		}
	}
}

// type_ types into a field, as a person does.
func (b *tab) type_(id, text string) {
	b.t.Helper()
	b.do(chromedp.WaitVisible(chromedp.CSS("#"+id)), chromedp.SendKeys(chromedp.CSS("#"+id), text))
}

// press clicks the button whose text is text (the first one).
func (b *tab) press(text string) {
	b.t.Helper()
	js, _ := json.Marshal(text)
	b.waitFor("the button "+text, `[...document.querySelectorAll("button")].find(x => x.textContent.trim() === `+string(js)+`)`)
	b.eval(`[...document.querySelectorAll("button")].find(x => x.textContent.trim() === ` + string(js) + `).click(), ""`)
}

func (b *tab) sees(text string) {
	b.t.Helper()
	js, _ := json.Marshal(text)
	b.waitFor("the text "+text, `document.body && document.body.innerText.includes(`+string(js)+`)`)
}

func (b *tab) shot(name string) {
	b.t.Helper()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// signInToAccount signs the tab in to the account page with a password.
func (b *tab) signInToAccount(s *webtest.Server, username, password string) {
	b.t.Helper()
	b.do(chromedp.Navigate(s.URL + "/oauth/account"))
	b.type_("username", username)
	b.type_("password", password)
	b.press("Sign in")
	b.waitFor("the account page", `document.getElementById("h-devices")`)
}

// authorize opens a client's sign-in (redirect URI {base}/done/) and returns its OAuth.
func (b *tab) authorize(s *webtest.Server) *webtest.OAuth {
	b.t.Helper()
	o := s.OAuth()
	o.RedirectURI = s.URL + "/done/"
	b.do(chromedp.Navigate(s.URL + "/oauth/authorize?" + o.AuthorizeQuery(nil).Encode()))
	b.waitFor("the sign-in page", `document.getElementById("username")`)
	return o
}

// signedIn waits for the redirect back to the client and exchanges its code.
func (b *tab) signedIn(s *webtest.Server, o *webtest.OAuth) webtest.Tokens {
	b.t.Helper()
	b.waitFor("the way back to the client", `location.href.startsWith(`+jsString(s.URL+"/done/?code=")+`)`)
	u, err := url.Parse(b.eval(`location.href`))
	if err != nil {
		b.t.Fatal(err)
	}
	tok, status := o.Exchange(b.t, u.Query().Get("code"))
	if status != http.StatusOK {
		b.t.Fatalf("exchange: %d %+v", status, tok)
	}
	return tok
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// issuerServer serves the community as http://localhost (passkeys need a domain) with a client
// page at {base}/done/ that the test reads the code off.
func issuerServer(t *testing.T, configs ...func(*webConfig)) *webtest.Server {
	t.Helper()
	s := webtest.StartConfig(t, func(c *webConfig) {
		for _, f := range configs {
			f(c)
		}
	}, webtest.WithLocalhost())
	s.SetWebURL(s.URL + "/done")
	s.Join("owner")
	return s
}

func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTwoStepSignInWithACodeAndRecoveryCodesInABrowser: TOTP is turned on from the account page
// (the QR code's key, a code computed here), the sign-in then asks for a code, a recovery code
// works once, and turning TOTP off needs a code.
func TestTwoStepSignInWithACodeAndRecoveryCodesInABrowser(t *testing.T) {
	t.Parallel()
	s := issuerServer(t)
	s.SignUp(t, "ada", pw, nil)
	b := newTab(t)
	b.signInToAccount(s, "ada", pw)
	b.press("Turn on two-step sign-in")
	b.waitFor("the QR code", `document.querySelector(".qr img") && document.querySelector(".qr img").naturalWidth > 0`)
	b.shot("account-totp-setup.png")
	secret := b.eval(`document.getElementById("totp-secret").textContent`)
	b.type_("code", code(t, secret, time.Now()))
	b.press("Turn on")
	b.waitFor("the recovery codes", `document.querySelectorAll("#recovery-codes li").length === 10`)
	b.shot("account-recovery-codes.png")
	var codes []string
	if err := json.Unmarshal([]byte(b.eval(`JSON.stringify([...document.querySelectorAll("#recovery-codes code")].map(c => c.textContent))`)), &codes); err != nil {
		t.Fatal(err)
	}
	b.sees("On: signing in with your password also asks for a code")

	t.Log("signing in asks for a code after the password")
	o := b.authorize(s)
	b.type_("username", "ada")
	b.type_("password", pw)
	b.press("Sign in")
	b.waitFor("the second step", `document.getElementById("code")`)
	b.shot("signin-two-step.png")
	b.type_("code", "000000")
	b.press("Sign in")
	b.sees("That code is not right.")
	// The code of the next 30 seconds (one step of skew): the current one was used to turn on.
	b.eval(`document.getElementById("code").value = "", ""`)
	b.type_("code", code(t, secret, time.Now().Add(30*time.Second)))
	b.press("Sign in")
	me(t, s, b.signedIn(s, o))

	t.Log("a recovery code signs in once")
	for i, want := range []bool{true, false} {
		o := b.authorize(s)
		b.type_("username", "ada")
		b.type_("password", pw)
		b.press("Sign in")
		b.type_("code", strings.ToUpper(codes[0]))
		b.press("Sign in")
		if want {
			me(t, s, b.signedIn(s, o))
		} else {
			b.sees("That code is not right.")
		}
		_ = i
	}

	t.Log("turning it off takes a code")
	b.do(chromedp.Navigate(s.URL + "/oauth/account"))
	b.type_("code", "123456")
	b.press("Turn off")
	b.sees("That code is not right.")
	b.type_("code", codes[1])
	b.press("Turn off")
	b.sees("Two-step sign-in is off.")
	s.SignIn(t, "ada", pw)
}

// TestPasskeysInABrowser: a passkey added on the account page (Chromium's virtual
// authenticator) signs in without a password, and is the second step after one.
func TestPasskeysInABrowser(t *testing.T) {
	t.Parallel()
	s := issuerServer(t)
	s.SignUp(t, "bo", pw, nil)
	b := newTab(t)
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
		return err
	}))
	b.signInToAccount(s, "bo", pw)
	b.type_("passkey-name", "Test laptop")
	b.press("Add a passkey")
	b.sees("The passkey is added.")
	b.waitFor("the passkey listed", `document.querySelector("#passkeys li") && document.querySelector("#passkeys li").innerText.includes("Test laptop")`)
	b.shot("account-passkeys.png")

	t.Log("a passkey alone signs in")
	o := b.authorize(s)
	b.shot("signin.png")
	b.press("Sign in with a passkey")
	me(t, s, b.signedIn(s, o))

	t.Log("after a password, the passkey is the second step")
	o = b.authorize(s)
	b.type_("username", "bo")
	b.type_("password", pw)
	b.press("Sign in")
	b.press("Use your passkey")
	me(t, s, b.signedIn(s, o))
	// Without a second step, a password alone does not sign in any more.
	res := signIn(t, s.OAuth(), "bo", pw)
	wantPage(t, res, http.StatusOK, "Use your passkey")
}

// TestDevicesAndSignOutEverywhereInABrowser: the account page lists the signed-in devices by
// their browser, signs one out (its refresh token stops working, the other's does not), then
// all of them.
func TestDevicesAndSignOutEverywhereInABrowser(t *testing.T) {
	t.Parallel()
	s := issuerServer(t)
	s.SignUp(t, "cy", pw, nil)
	phone := s.OAuth()
	phone.Header = http.Header{"User-Agent": {"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36"}}
	onPhone := phone.Finish(t, signIn(t, phone, "cy", pw))
	laptop := s.OAuth()
	laptop.Header = http.Header{"User-Agent": {"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}}
	onLaptop := laptop.Finish(t, signIn(t, laptop, "cy", pw))

	b := newTab(t)
	b.signInToAccount(s, "cy", pw)
	b.waitFor("two devices", `document.querySelectorAll("#devices li").length === 3`)
	b.sees("Chrome on Android")
	b.sees("Firefox on Linux")
	b.shot("account-devices.png")
	b.eval(`[...document.querySelectorAll("#devices button")].find(x => x.getAttribute("aria-label").startsWith("Sign out Firefox on Linux")).click(), ""`)
	b.sees("That device is signed out.")
	b.waitFor("one device fewer", `document.querySelectorAll("#devices li").length === 2`)
	tok, status := s.Refresh(t, onLaptop.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
	onPhone, status = s.Refresh(t, onPhone.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("the phone's refresh: %d %+v", status, onPhone)
	}
	b.press("Sign out everywhere")
	b.sees("Every device is signed out.")
	b.sees("No device is signed in to the app.")
	tok, status = s.Refresh(t, onPhone.RefreshToken)
	wantGrantError(t, tok, status, "invalid_grant")
}

// TestResetLinkInABrowser: a member opens the link an admin made and sets a new password.
func TestResetLinkInABrowser(t *testing.T) {
	t.Parallel()
	s := issuerServer(t)
	owner := s.Client(s.Token("owner"))
	dee, tok := accountMember(t, s, "dee")
	link, err := resetLink(t, owner, dee.Member.GetId())
	if err != nil {
		t.Fatal(err)
	}
	b := newTab(t)
	b.do(chromedp.Navigate(link.GetUrl()))
	b.sees("For the account dee.")
	b.shot("reset-password.png")
	b.type_("new_password", "dee's new password")
	b.type_("new_password2", "dee's new password")
	b.press("Set the password")
	b.sees("The password of dee is set.")
	got, status := s.Refresh(t, tok.RefreshToken)
	wantGrantError(t, got, status, "invalid_grant")
	s.SignIn(t, "dee", "dee's new password")
}

// TestSignUpPageInABrowser: the first person is told they become the owner; a taken username
// is said as it is typed; a refused sign-up keeps what was typed.
func TestSignUpPageInABrowser(t *testing.T) {
	t.Parallel()
	fresh := webtest.StartConfig(t, nil, webtest.WithLocalhost())
	fresh.SetWebURL(fresh.URL + "/done")
	b := newTab(t)
	b.authorize(fresh)
	b.eval(`document.querySelector("p.switch a").click(), ""`)
	b.sees("You are the first one here: your account becomes the owner of Hearth")
	b.shot("signup-owner.png")

	s := issuerServer(t)
	s.SignUp(t, "eve", pw, nil)
	b.authorize(s)
	b.eval(`document.querySelector("p.switch a").click(), ""`)
	b.waitFor("the sign-up form", `document.getElementById("password2")`)
	if strings.Contains(b.eval(`document.body.innerText`), "becomes the owner") {
		t.Fatal("the second person is told they become the owner")
	}
	b.type_("username", "Eve")
	b.waitFor("the username check", `document.getElementById("username-hint").textContent === "The username eve is taken."`)
	b.shot("signup-username-taken.png")
	b.type_("display_name", "Eve Two")
	b.type_("password", pw)
	b.type_("password2", pw)
	b.press("Create account and join")
	b.waitFor("the refusal", `document.getElementById("form-error") && document.getElementById("form-error").textContent.includes("The username eve is taken.")`)
	for id, want := range map[string]string{"username": "eve", "display_name": "Eve Two", "password": pw, "password2": pw} {
		if got := b.eval(`document.getElementById(` + jsString(id) + `).value`); got != want {
			t.Fatalf("%s = %q after the refusal, want %q", id, got, want)
		}
	}
	b.eval(`document.getElementById("username").value = "", ""`)
	b.type_("username", "eve2")
	b.waitFor("the username check", `document.getElementById("username-hint").textContent === "eve2 is free."`)
}

// TestRequiredTwoStepIsSetUpBeforeSignInCompletesInABrowser: with require_2fa_rank at
// moderator, a moderator without a second factor sets TOTP up before the sign-in completes;
// a member is not asked.
func TestRequiredTwoStepIsSetUpBeforeSignInCompletesInABrowser(t *testing.T) {
	t.Parallel()
	s := issuerServer(t)
	mod, _ := accountMember(t, s, "fay")
	accountMember(t, s, "gus")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{mod: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})
	s.SeedTwoStepRank(t, svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	s.SignIn(t, "gus", pw)

	b := newTab(t)
	o := b.authorize(s)
	b.type_("username", "fay")
	b.type_("password", pw)
	b.press("Sign in")
	b.sees("Your role in Hearth asks for two-step sign-in.")
	b.waitFor("the QR code", `document.querySelector(".qr img") && document.querySelector(".qr img").naturalWidth > 0`)
	b.shot("signin-two-step-required.png")
	// Skipping the setup is refused.
	id := b.eval(`document.querySelector("input[name=id]").value`)
	res := s.OAuth().Post(t, "/oauth/login", url.Values{"id": {id}, "action": {"continue"}})
	if res.Status == http.StatusFound {
		t.Fatal("the setup was skipped")
	}
	b.do(chromedp.Reload())
	b.waitFor("the setup again", `document.getElementById("totp-secret")`)
	secret := b.eval(`document.getElementById("totp-secret").textContent`)
	b.type_("code", code(t, secret, time.Now()))
	b.press("Turn on and continue")
	b.waitFor("the recovery codes", `document.querySelectorAll("#recovery-codes li").length === 10`)
	b.press("I saved them: continue")
	me(t, s, b.signedIn(s, o))
}

// TestForgotPasswordPageInABrowser: with mail, the sign-in page leads to "Forgot password".
func TestForgotPasswordPageInABrowser(t *testing.T) {
	t.Parallel()
	ms := mailtest.Start(t, mailtest.Options{})
	s := issuerServer(t, func(c *webConfig) { webtest.WithMail(ms)(c) })
	b := newTab(t)
	b.authorize(s)
	b.eval(`[...document.querySelectorAll("a")].find(a => a.textContent === "Forgot your password?").click(), ""`)
	b.waitFor("the forgot page", `document.getElementById("who")`)
	b.shot("forgot-password.png")
	b.type_("who", "nobody")
	b.press("Mail me a link")
	b.sees("If that account has a confirmed email address")
}
