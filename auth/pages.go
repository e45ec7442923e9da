package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"hearth/engine/ratelimit"
)

// The sign-in pages: plain HTML forms that work without script, one stylesheet and one script
// (pages.js: passkeys and the username check as it is typed) from the same origin. The
// authorization request id in the form is what ties a submission to its request; the only
// cookies are the device cookie and the account page's session (devices.go, account.go).

//go:embed pages/*.html pages/style.css pages/pages.js
var pageFiles embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{"field": fieldAttrs}).ParseFS(pageFiles, "pages/*.html"))

// fieldAttrs are a form field's attributes that depend on the page's error: the field the
// error is about is marked invalid, described by the message, and focused when the page
// loads (autofocus: the pages run no script), so that after a failed submission the keyboard
// and a screen reader start where the problem is. hint is the id of the field's hint, if any.
func fieldAttrs(d page, id, hint string) template.HTMLAttr {
	// Only ids and hints the templates spell out reach here, never input from a request.
	if d.Error != "" && d.Field == id {
		return template.HTMLAttr(`autofocus aria-invalid="true" aria-describedby="` + strings.TrimSpace("form-error "+hint) + `"`)
	}
	if hint != "" {
		return template.HTMLAttr(`aria-describedby="` + hint + `"`)
	}
	return ""
}

// pageBodyMax bounds a submitted form: ten join answers of 1,000 characters fit easily.
const pageBodyMax = 128 << 10

const (
	usernameMin    = 2
	usernameMax    = 32
	displayNameMax = 64
	staleSignUp    = 10 * time.Minute
	modeSignIn     = "signin"
	modeSignUp     = "signup"
	actionCancel   = "cancel"
	// The second step's actions (twostep.go).
	actionCode      = "code"
	actionSetupTOTP = "setup-totp"
	actionContinue  = "continue"
)

// page is what a template shows.
type page struct {
	Title     string
	Community string
	Error     string
	// ID is the authorization request's id (sign-in pages).
	ID   string
	Mode string
	// Form values kept across a failed submission (never a password).
	Username    string
	DisplayName string
	Invite      string
	InviteOnly  bool
	Questions   []question
	LoginURL    string
	SignUpURL   string
	PasswordURL string
	WebURL      string
	// Done is set on the password page once the password changed.
	Done bool
	// MemberName is the member's username a sign-up got when it is not the account's, and
	// ContinueURL where the page showing it leads: back to the client with the code.
	MemberName  string
	ContinueURL string
	// Field is the id of the field Error is about, which gets the focus; with an Error and no
	// Field the message gets it.
	Field string
	// Password and Password2 are filled back in after an error about another field.
	Password  string
	Password2 string
	// BecomesOwner: the first person to sign up becomes the community's owner.
	BecomesOwner bool
	// InviteNote says, on the sign-in form, that the invite the person came with would not let
	// them join (on the sign-up form that is the page's Error).
	InviteNote string
	// ForAccount: the sign-in leads to the account page, not to the app.
	ForAccount bool
	// MailOn: the server sends mail ("Forgot password" is offered); ForgotURL leads there.
	MailOn    bool
	ForgotURL string
	// Passkeys: the browser may sign in with a passkey here.
	Passkeys bool
	// Step is the second step of a sign-in; Code the code typed.
	Step *stepView
	Code string
	// Account is the account page; Notice a line of what just happened.
	Account *accountView
	Notice  string
	// Token is a reset or verification link's token; Email an address.
	Token string
	Email string
}

type question struct {
	Index  int
	Text   string
	Answer string
}

// render writes a page with the headers every page carries.
func (p *Provider) render(w http.ResponseWriter, status int, name string, data page) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		p.log.Error("render a sign-in page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// pages.js (passkeys, the username check) is the only script; the QR code of a TOTP
	// setup is a data: image.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; form-action "+p.formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func serveStyle(w http.ResponseWriter, r *http.Request) {
	serveAsset(w, "pages/style.css", "text/css; charset=utf-8")
}

func serveScript(w http.ResponseWriter, r *http.Request) {
	serveAsset(w, "pages/pages.js", "text/javascript; charset=utf-8")
}

func serveAsset(w http.ResponseWriter, name, contentType string) {
	b, _ := pageFiles.ReadFile(name)
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

// basePage fills what every sign-in page shows.
func (p *Provider) basePage(title string) page {
	return page{
		Title:       title,
		Community:   p.community.SignUpInfo().Name,
		PasswordURL: "password",
		WebURL:      p.webURL + "/",
		MailOn:      p.mailer != nil,
	}
}

// signInPage is the sign-in (or sign-up) page of request a.
func (p *Provider) signInPage(a *authRequest, mode string) page {
	info := p.community.SignUpInfo()
	d := p.basePage("Sign in")
	d.ID, d.Mode = a.id, mode
	if mode == modeSignUp {
		d.Title = "Create an account"
	}
	d.Invite, d.InviteOnly = a.invite, info.InviteOnly
	for i, q := range info.JoinQuestions {
		d.Questions = append(d.Questions, question{Index: i, Text: q})
	}
	d.Username = strings.ToLower(strings.TrimSpace(a.req.LoginHint))
	d.BecomesOwner = info.BecomesOwner
	// The invite the person came with, checked as the page opens: one that would not let them
	// join is said at once, not after the whole form is filled in.
	if info.InviteOnly && a.invite != "" {
		var ref *Refusal
		if err := p.community.CheckInvite(a.invite); errors.As(err, &ref) {
			if mode == modeSignUp {
				d.Error, d.Field = ref.Message+" Ask whoever invited you for a new invite.", "invite"
			} else {
				d.InviteNote = ref.Message + " Signing in works if you are a member already; to join, ask for a new invite."
			}
		}
	}
	d.ForAccount = a.forAccount
	d.Passkeys = p.passkeys != nil
	if a.forAccount {
		d.Title = "Sign in to your account"
	}
	// Links and form actions are relative to the page (/oauth/...), so that a base URL with a
	// path (behind a proxy) works.
	d.LoginURL = "login?id=" + url.QueryEscape(a.id) + "&mode=" + modeSignIn
	d.SignUpURL = "login?id=" + url.QueryEscape(a.id) + "&mode=" + modeSignUp
	d.ForgotURL = "forgot?id=" + url.QueryEscape(a.id)
	return d
}

// expired answers a request id that is unknown, expired or done.
func (p *Provider) expired(w http.ResponseWriter) {
	d := p.basePage("Sign in")
	d.Error = "This sign-in has expired. Go back to the app and sign in again."
	p.render(w, http.StatusBadRequest, "expired.html", d)
}

func (p *Provider) loginPage(w http.ResponseWriter, r *http.Request) {
	a, ok := p.storage.pending(r.URL.Query().Get("id"))
	if !ok {
		p.expired(w)
		return
	}
	if st, ok := p.storage.stepOf(a.id); ok && st.subject != "" {
		// A reload of the second step shows it again.
		p.renderStep(w, http.StatusOK, a, st, page{})
		return
	}
	mode := r.URL.Query().Get("mode")
	if a.forAccount {
		mode = modeSignIn
	}
	if mode != modeSignUp && mode != modeSignIn {
		// An invite in the request means the person came from an invite link.
		mode = modeSignIn
		if a.invite != "" {
			mode = modeSignUp
		}
	}
	p.render(w, http.StatusOK, "login.html", p.signInPage(a, mode))
}

func (p *Provider) loginSubmit(w http.ResponseWriter, r *http.Request) {
	if !p.readForm(w, r) {
		return
	}
	a, ok := p.storage.pending(r.PostForm.Get("id"))
	if !ok {
		p.expired(w)
		return
	}
	ctx := op.ContextWithIssuer(r.Context(), p.issuer.URL())
	r = r.WithContext(ctx)
	switch r.PostForm.Get("action") {
	case actionCancel:
		p.storage.forget(a.id)
		if a.forAccount {
			http.Redirect(w, r, p.webURL+"/", http.StatusSeeOther)
			return
		}
		op.AuthRequestError(w, r, a, oidc.ErrAccessDenied().WithDescription("the person cancelled the sign-in"), p.op)
		return
	case modeSignUp:
		if a.forAccount {
			p.expired(w)
			return
		}
		p.signUp(w, r, a)
	case actionCode:
		p.stepCode(w, r, a)
	case actionSetupTOTP:
		p.stepSetupTOTP(w, r, a)
	case actionContinue:
		p.stepContinue(w, r, a)
	default:
		p.signIn(w, r, a)
	}
}

// readForm reads a page's form within its bound and refuses a submission from another
// origin: nothing but the page itself posts here. The pages' Referrer-Policy (no-referrer)
// makes a browser send "Origin: null" even for their own forms, and a sandboxed frame on any
// site sends the same; Sec-Fetch-Site, which browsers send whatever the policy, tells them
// apart. Browsers without it (old ones) are judged by Origin alone.
func (p *Provider) readForm(w http.ResponseWriter, r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		http.Error(w, "forms of this page are only accepted from the page itself", http.StatusForbidden)
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !sameOrigin(o, p.issuer.URL()) {
		http.Error(w, "forms of this page are only accepted from the page itself", http.StatusForbidden)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, pageBodyMax)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form is malformed or larger than 128 KiB", http.StatusBadRequest)
		return false
	}
	return true
}

func sameOrigin(origin, base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(origin, u.Scheme+"://"+u.Host)
}

func (p *Provider) signIn(w http.ResponseWriter, r *http.Request, a *authRequest) {
	username := normalizeUsername(r.PostForm.Get("username"))
	d := p.signInPage(a, modeSignIn)
	d.Username = username
	acc, err := p.checkPassword(r, username, r.PostForm.Get("password"))
	if err != nil {
		if err != errWrongCredentials {
			// Not the password's fault (a limit, the server): it stays filled in.
			d.Password = r.PostForm.Get("password")
		}
		p.refuse(w, "login.html", d, err)
		return
	}
	p.afterPassword(w, r, a, acc, "")
}

// checkPassword is a sign-in attempt: it takes a token from each of its limits (so that
// attempts in flight at once cannot overrun them), then checks the username and password,
// taking the same time and giving the same answer whether the username is unknown or the
// password wrong; a right password gives the tokens back, so that only failures count.
func (p *Provider) checkPassword(r *http.Request, username, password string) (Account, error) {
	ctx := r.Context()
	acc, err := p.accounts.AccountByUsername(ctx, username)
	known := err == nil && p.knownDevice(r, acc.Subject)
	keys, lims := passwordLimits(p.clientAddr(r), username, known)
	if wait := p.limits.AllowAll(keys, lims, 1); wait > 0 {
		return Account{}, tooManyAttempts(wait)
	}
	acc, err = p.verifyPassword(ctx, acc, err, password)
	if err == nil {
		p.limits.Return(keys, 1)
	}
	return acc, err
}

// verifyPassword checks password against the account found (or the error of finding it).
func (p *Provider) verifyPassword(ctx context.Context, acc Account, err error, password string) (Account, error) {
	if len(password) > passwordMaxBytes {
		return Account{}, errWrongCredentials
	}
	if errors.Is(err, ErrAccountNotFound) {
		if err := p.hasher.verifyNobody(ctx, password); err != nil {
			return Account{}, err
		}
		return Account{}, errWrongCredentials
	}
	if err != nil {
		return Account{}, err
	}
	ok, err := p.hasher.verify(ctx, acc.Password, password)
	if err != nil {
		return Account{}, err
	}
	if ok && acc.Pending {
		// A sign-up that stopped between its Join and the account's activation (a crash):
		// the Join decides.
		if ok = p.community.IsMember(acc.Subject); ok {
			if err := p.accounts.ActivateAccount(ctx, acc.Subject); err != nil {
				return Account{}, err
			}
		}
	}
	if !ok {
		return Account{}, errWrongCredentials
	}
	return acc, nil
}

func tooManyAttempts(wait time.Duration) *Refusal {
	mins := int((wait + time.Minute - 1) / time.Minute)
	return &Refusal{
		Status:     http.StatusTooManyRequests,
		Message:    fmt.Sprintf("Too many sign-in attempts. Try again in %s.", plural(mins, "minute")),
		RetryAfter: wait,
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func (p *Provider) signUp(w http.ResponseWriter, r *http.Request, a *authRequest) {
	f := r.PostForm
	d := p.signInPage(a, modeSignUp)
	d.Username = normalizeUsername(f.Get("username"))
	d.DisplayName = strings.TrimSpace(f.Get("display_name"))
	d.Invite = strings.TrimSpace(f.Get("invite"))
	answers := f["answer"]
	for i := range d.Questions {
		if i < len(answers) {
			d.Questions[i].Answer = answers[i]
		}
	}
	sub, memberName, err := p.createAccount(r, d, f.Get("password"), f.Get("password2"), answers)
	if err != nil {
		var ref *Refusal
		if !errors.As(err, &ref) || (ref.Field != "password" && ref.Field != "password2") {
			// Only passwords that were the problem are asked for again.
			d.Password, d.Password2 = f.Get("password"), f.Get("password2")
		}
		p.refuse(w, "login.html", d, err)
		return
	}
	if memberName == d.Username {
		memberName = ""
	}
	p.afterPassword(w, r, a, Account{Subject: sub, Username: d.Username}, memberName)
}

// createAccount signs a person up: the account, pending, then the Join, then the account made
// usable. A refused Join deletes the account again, so it leaves nothing behind. It returns the
// account's subject and the member's username, which Join made unique.
func (p *Provider) createAccount(r *http.Request, d page, password, password2 string, answers []string) (sub, memberName string, err error) {
	ctx := r.Context()
	addr := p.clientAddr(r)
	if wait := p.limits.Allow("signup:"+ratelimit.AddrKey(addr), signUpAttempts, 1); wait > 0 {
		return "", "", tooManyAttempts(wait)
	}
	if err := checkUsername(d.Username); err != nil {
		return "", "", err
	}
	if utf8.RuneCountInString(d.DisplayName) > displayNameMax {
		return "", "", refusal(http.StatusBadRequest, "display_name", fmt.Sprintf("The display name is longer than %d characters.", displayNameMax))
	}
	if err := checkNewPassword(password); err != nil {
		return "", "", refusal(http.StatusBadRequest, "password", capitalize(err.Error())+".")
	}
	if password != password2 {
		return "", "", refusal(http.StatusBadRequest, "password2", "The two passwords differ.")
	}
	if d.InviteOnly && d.Invite == "" {
		return "", "", refusal(http.StatusForbidden, "invite", "This community is invite only: enter your invite code.")
	}
	// A code that would be refused is, before an account is made only to be deleted again.
	if d.InviteOnly {
		if err := p.community.CheckInvite(d.Invite); err != nil {
			return "", "", err
		}
	}
	if err := p.reclaimStale(ctx, d.Username); err != nil {
		return "", "", err
	}
	hash, err := p.hasher.hash(ctx, password)
	if err != nil {
		return "", "", err
	}
	now := p.now()
	acc := Account{
		Subject:     rand.Text(),
		Username:    d.Username,
		DisplayName: d.DisplayName,
		Password:    hash,
		CreatedAt:   now,
		Pending:     true,
	}
	err = p.accounts.CreateAccount(ctx, acc, now.Add(-staleSignUp))
	if errors.Is(err, ErrUsernameTaken) {
		return "", "", refusal(http.StatusConflict, "username", fmt.Sprintf("The username %s is taken.", d.Username))
	}
	if err != nil {
		return "", "", err
	}
	memberName, err = p.community.Join(context.WithoutCancel(ctx), JoinRequest{
		Subject:     acc.Subject,
		Username:    acc.Username,
		DisplayName: acc.DisplayName,
		InviteCode:  d.Invite,
		Answers:     answers,
		ClientAddr:  addr,
	})
	if err != nil {
		if derr := p.accounts.DeleteAccount(context.WithoutCancel(ctx), acc.Subject); derr != nil {
			p.log.Error("delete the account of a refused sign-up", "err", derr)
		}
		return "", "", err
	}
	if err := p.accounts.ActivateAccount(context.WithoutCancel(ctx), acc.Subject); err != nil {
		return "", "", err
	}
	return acc.Subject, memberName, nil
}

// reclaimStale settles a stale pending account holding username: one whose Join went through
// becomes usable (the name stays taken); the store lets a new sign-up take any other.
func (p *Provider) reclaimStale(ctx context.Context, username string) error {
	acc, err := p.accounts.AccountByUsername(ctx, username)
	if errors.Is(err, ErrAccountNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if acc.Pending && p.now().Sub(acc.CreatedAt) > staleSignUp && p.community.IsMember(acc.Subject) {
		return p.accounts.ActivateAccount(ctx, acc.Subject)
	}
	return nil
}

var errRequestGone = errors.New("the sign-in request is gone")

// complete marks the request signed in as subject (amr says how) and returns where the
// browser goes next: back to the client with a code, or to the account page with a session.
// The browser is remembered as one that completed a sign-in to the account (its device cookie).
func (p *Provider) complete(w http.ResponseWriter, r *http.Request, a *authRequest, subject string, amr []string) (string, error) {
	device := p.rememberDevice(w, r, subject)
	done, ok := p.storage.complete(a.id, subject, amr, r.UserAgent(), device)
	if !ok {
		return "", errRequestGone
	}
	if a.forAccount {
		if err := p.startSession(w, r, subject); err != nil {
			return "", err
		}
		return "account", nil
	}
	// Our requests always answer in the query (CreateAuthRequest), so the answer is a URL.
	return op.BuildAuthResponseCallbackURL(r.Context(), done, p.op)
}

// finish ends a sign-in from a form: a redirect to where complete leads. A sign-up whose
// member's username is not the account's (a bot or another login held it, and Join added a
// number) is shown the name the community knows them by first, and goes on from there.
// Without this they met a name they never chose in the app, with nothing to say why.
func (p *Provider) finish(w http.ResponseWriter, r *http.Request, a *authRequest, subject string, amr []string) {
	st, _ := p.storage.stepOf(a.id)
	next, err := p.complete(w, r, a, subject, amr)
	switch {
	case errors.Is(err, errRequestGone):
		p.expired(w)
	case err != nil:
		p.refuse(w, "expired.html", p.basePage("Sign in"), err)
	case st.memberName != "":
		d := p.basePage("Welcome")
		d.Username, d.MemberName, d.ContinueURL = st.username, st.memberName, next
		p.render(w, http.StatusOK, "joined.html", d)
	default:
		http.Redirect(w, r, next, http.StatusFound)
	}
}

// refuse shows the form again with what went wrong.
func (p *Provider) refuse(w http.ResponseWriter, name string, d page, err error) {
	var ref *Refusal
	if !errors.As(err, &ref) {
		if !errors.Is(err, context.Canceled) {
			p.log.Error("sign-in", "err", err)
		}
		ref = refusal(http.StatusInternalServerError, "", "Something went wrong on the server. Try again in a moment.")
	}
	if ref.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((ref.RetryAfter+time.Second-1)/time.Second)))
	}
	d.Error, d.Field = ref.Message, ref.Field
	p.render(w, ref.Status, name, d)
}

func (p *Provider) passwordPage(w http.ResponseWriter, r *http.Request) {
	d := p.basePage("Change your password")
	d.Username = normalizeUsername(r.URL.Query().Get("username"))
	p.render(w, http.StatusOK, "password.html", d)
}

// passwordSubmit changes a password. It is a sign-in attempt too (same limits, same
// answers), and it revokes every refresh token of the account.
func (p *Provider) passwordSubmit(w http.ResponseWriter, r *http.Request) {
	if !p.readForm(w, r) {
		return
	}
	f := r.PostForm
	d := p.basePage("Change your password")
	d.Username = normalizeUsername(f.Get("username"))
	err := p.changePassword(r, d.Username, f.Get("password"), f.Get("new_password"), f.Get("new_password2"))
	if err != nil {
		var ref *Refusal
		if !errors.As(err, &ref) || (ref != errWrongCredentials && ref.Field != "new_password") {
			d.Password = f.Get("password")
		}
		if !errors.As(err, &ref) || (ref.Field != "new_password" && ref.Field != "new_password2") {
			d.Password2 = f.Get("new_password")
		}
		p.refuse(w, "password.html", d, err)
		return
	}
	d.Done = true
	p.render(w, http.StatusOK, "password.html", d)
}

func (p *Provider) changePassword(r *http.Request, username, current, next, next2 string) error {
	if err := checkNewPasswords(next, next2); err != nil {
		return err
	}
	acc, err := p.checkPassword(r, username, current)
	if err != nil {
		return err
	}
	// With two-step sign-in on, a password alone must not change the password (a thief who
	// has it would lock its person out): that is done on the account page, signed in fully.
	sec, err := p.security.Security(r.Context(), acc.Subject)
	if err != nil {
		return err
	}
	if sec.TwoStep() {
		return refusal(http.StatusForbidden, "", "This account has two-step sign-in: change its password on your account page, where you sign in with your second step too.")
	}
	return p.setPassword(context.WithoutCancel(r.Context()), acc.Subject, next)
}

// checkNewPasswords checks a new password typed twice (the password page, the account page,
// a reset link).
func checkNewPasswords(next, next2 string) error {
	if err := checkNewPassword(next); err != nil {
		return refusal(http.StatusBadRequest, "new_password", "The new "+strings.TrimPrefix(err.Error(), "the ")+".")
	}
	if next != next2 {
		return refusal(http.StatusBadRequest, "new_password2", "The two new passwords differ.")
	}
	return nil
}

func normalizeUsername(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}

// checkUsername applies the bot username rules: 2 to 32 of a-z, 0-9, underscore, dot, hyphen.
func checkUsername(u string) error {
	if len(u) < usernameMin || len(u) > usernameMax {
		return refusal(http.StatusBadRequest, "username", fmt.Sprintf("The username must be %d to %d characters long.", usernameMin, usernameMax))
	}
	for _, c := range u {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return refusal(http.StatusBadRequest, "username", "The username may only use a-z, 0-9, underscore, dot and hyphen.")
		}
	}
	return nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
