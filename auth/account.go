package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"hearth/engine/mail"
	"hearth/engine/ratelimit"
)

// The account page (/oauth/account): a person's devices, password, email address, two-step
// sign-in and passkeys. It needs a sign-in of its own, through the same page and steps as a
// client's (a request marked forAccount), which ends in a session: a cookie for the issuer's
// pages only, an hour long, kept in memory (a restart asks to sign in again, nothing more).

const (
	accountPath    = "/oauth/account"
	sessionCookie  = "hearth_account"
	sessionTTL     = time.Hour
	maxSessions    = 10_000
	maxSessionsPer = 10
)

// session is a signed-in account page.
type session struct {
	subject string
	created time.Time
	// epoch is the account's token epoch at sign-in: a sign-out everywhere elsewhere, or a
	// password change, ends the session.
	epoch int64
	// secret is a TOTP secret offered for setup; codes are recovery codes just made, shown once.
	secret   string
	codes    []string
	ceremony *webauthn.SessionData
}

type sessions struct {
	mu sync.Mutex
	m  map[string]*session // by the hex SHA-256 of the cookie
}

// startSession signs the browser in to the account page.
func (p *Provider) startSession(w http.ResponseWriter, r *http.Request, subject string) error {
	acc, err := p.accounts.Account(r.Context(), subject)
	if err != nil {
		return err
	}
	token := "hs_" + randomID()
	now := p.now()
	p.sessions.mu.Lock()
	defer p.sessions.mu.Unlock()
	var mine []string
	for k, s := range p.sessions.m {
		if now.Sub(s.created) > sessionTTL {
			delete(p.sessions.m, k)
		} else if s.subject == subject {
			mine = append(mine, k)
		}
	}
	// The oldest go: the person's own beyond their share, anyone's beyond the total.
	drop := func(keys []string) {
		slices.SortFunc(keys, func(a, b string) int { return p.sessions.m[a].created.Compare(p.sessions.m[b].created) })
		delete(p.sessions.m, keys[0])
	}
	if len(mine) >= maxSessionsPer {
		drop(mine)
	} else if len(p.sessions.m) >= maxSessions {
		all := make([]string, 0, len(p.sessions.m))
		for k := range p.sessions.m {
			all = append(all, k)
		}
		drop(all)
	}
	p.sessions.m[hex.EncodeToString(hashToken(token))] = &session{subject: subject, created: now, epoch: acc.TokenEpoch}
	p.setCookie(w, sessionCookie, token, sessionTTL)
	return nil
}

// session returns the request's account page session and its account; ok false when there is
// none (or it ended).
func (p *Provider) session(r *http.Request) (string, *session, Account, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || len(c.Value) > 200 {
		return "", nil, Account{}, false
	}
	key := hex.EncodeToString(hashToken(c.Value))
	p.sessions.mu.Lock()
	s := p.sessions.m[key]
	p.sessions.mu.Unlock()
	if s == nil || p.now().Sub(s.created) > sessionTTL {
		return "", nil, Account{}, false
	}
	acc, err := p.accounts.Account(r.Context(), s.subject)
	if err != nil || acc.Pending || acc.TokenEpoch != s.epoch {
		p.dropSession(key)
		return "", nil, Account{}, false
	}
	return key, s, acc, true
}

func (p *Provider) dropSession(key string) {
	p.sessions.mu.Lock()
	delete(p.sessions.m, key)
	p.sessions.mu.Unlock()
}

// endSessions ends the account's account page sessions, but keep.
func (p *Provider) endSessions(subject, keep string) {
	p.sessions.mu.Lock()
	defer p.sessions.mu.Unlock()
	for k, s := range p.sessions.m {
		if s.subject == subject && k != keep {
			delete(p.sessions.m, k)
		}
	}
}

// withSession changes the session under the lock.
func (p *Provider) withSession(s *session, change func(*session)) {
	p.sessions.mu.Lock()
	change(s)
	p.sessions.mu.Unlock()
}

// accountPage shows the account page, or the sign-in to it.
func (p *Provider) accountPage(w http.ResponseWriter, r *http.Request) {
	_, s, acc, ok := p.session(r)
	if !ok {
		p.accountSignIn(w, r)
		return
	}
	p.renderAccount(w, r, http.StatusOK, s, acc, page{Notice: noticeText(r.URL.Query().Get("done"))})
}

// accountSignIn starts a sign-in to the account page.
func (p *Provider) accountSignIn(w http.ResponseWriter, r *http.Request) {
	if wait := p.allowAuthorize(r); wait > 0 {
		p.tooManyPages(w, wait)
		return
	}
	a := &authRequest{forAccount: true}
	addr := p.clientAddr(r)
	p.storage.add(a, clientNet{addr: ratelimit.AddrKey(addr), net: netKey(addr)})
	d := p.signInPage(a, modeSignIn)
	d.Username = normalizeUsername(r.URL.Query().Get("username"))
	p.render(w, http.StatusOK, "login.html", d)
}

// tooManyPages answers a sign-in page asked for too often from one address or network.
func (p *Provider) tooManyPages(w http.ResponseWriter, wait time.Duration) {
	d := p.basePage("Sign in")
	d.Error = fmt.Sprintf("Too many sign-ins were started from your network. Try again in %s.", plural(int((wait+time.Minute-1)/time.Minute), "minute"))
	w.Header().Set("Retry-After", fmt.Sprint(int((wait+time.Second-1)/time.Second)))
	p.render(w, http.StatusTooManyRequests, "expired.html", d)
}

// accountView is what the account page shows.
type accountView struct {
	Username    string
	DisplayName string
	Email       string
	MailOn      bool
	TOTP        bool
	Recovery    int
	Passkeys    []passkeyView
	// PasskeysUsable is false where browsers refuse passkeys (an IP address, http).
	PasskeysUsable bool
	Devices        []deviceView
	// Setup is a TOTP setup in progress: its QR code and secret.
	SetupQR     template.URL
	SetupSecret string
	// Codes are recovery codes just made, shown once.
	Codes []string
}

type passkeyView struct {
	ID       string
	Name     string
	Created  string
	LastUsed string
}

type deviceView struct {
	Family   string
	Name     string
	Created  string
	LastUsed string
	This     bool
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

func (p *Provider) renderAccount(w http.ResponseWriter, r *http.Request, status int, s *session, acc Account, d page) {
	ctx := r.Context()
	sec, err := p.security.Security(ctx, acc.Subject)
	if err != nil {
		p.accountError(w, err)
		return
	}
	devs, err := p.devices(ctx, acc)
	if err != nil {
		p.accountError(w, err)
		return
	}
	v := &accountView{
		Username: acc.Username, DisplayName: acc.DisplayName, Email: sec.Email, MailOn: p.mailer != nil,
		TOTP: sec.TOTPEnabled, Recovery: len(sec.RecoveryHashes), PasskeysUsable: p.passkeys != nil,
	}
	for _, k := range sec.Passkeys {
		v.Passkeys = append(v.Passkeys, passkeyView{ID: hex.EncodeToString(k.ID), Name: k.Name, Created: when(k.Created), LastUsed: when(k.LastUsed)})
	}
	this := ""
	if h := deviceCookieHash(r); h != nil {
		this = hex.EncodeToString(h)
	}
	for _, dv := range devs {
		v.Devices = append(v.Devices, deviceView{Family: dv.Family, Name: dv.Name, Created: when(dv.Created), LastUsed: when(dv.LastUsed), This: this != "" && dv.Cookie == this})
	}
	p.sessions.mu.Lock()
	secret, codes := s.secret, s.codes
	p.sessions.mu.Unlock()
	if secret != "" && !sec.TOTPEnabled {
		key, err := totpKeyOf(p.community.SignUpInfo().Name, acc.Username, secret)
		if err == nil {
			v.SetupSecret = secret
			v.SetupQR, err = qrDataURL(key)
		}
		if err != nil {
			p.accountError(w, err)
			return
		}
	}
	v.Codes = codes
	base := p.basePage("Your account")
	base.Error, base.Field, base.Notice, base.Email = d.Error, d.Field, d.Notice, d.Email
	base.Account = v
	p.render(w, status, "account.html", base)
}

func (p *Provider) accountError(w http.ResponseWriter, err error) {
	if !errors.Is(err, context.Canceled) {
		p.log.Error("account page", "err", err)
	}
	d := p.basePage("Your account")
	d.Error = "Something went wrong on the server. Try again in a moment."
	p.render(w, http.StatusInternalServerError, "expired.html", d)
}

// Notices after an action that redirects back to the page (?done=...).
var notices = map[string]string{
	"totp-off":     "Two-step sign-in is off.",
	"passkey":      "The passkey is added. You can sign in with it, without your password.",
	"passkey-gone": "The passkey is removed.",
	"device":       "That device is signed out.",
	"everywhere":   "Every device is signed out. This page stays signed in until you leave it.",
	"password":     "Your password is changed, and every device is signed out: sign in again there with the new one.",
	"email-gone":   "The email address is removed.",
}

func noticeText(key string) string { return notices[key] }

// accountSubmit takes the account page's forms: action says which.
func (p *Provider) accountSubmit(w http.ResponseWriter, r *http.Request) {
	if !p.readForm(w, r) {
		return
	}
	key, s, acc, ok := p.session(r)
	if !ok {
		http.Redirect(w, r, "account", http.StatusSeeOther)
		return
	}
	ctx := context.WithoutCancel(r.Context())
	f := r.PostForm
	done := func(notice string) { http.Redirect(w, r, "account?done="+notice, http.StatusSeeOther) }
	fail := func(err error) {
		d := p.refusalPage(err)
		p.renderAccount(w, r, statusOf(err), s, acc, d)
	}
	switch f.Get("action") {
	case "signout":
		p.dropSession(key)
		p.setCookie(w, sessionCookie, "", 0)
		http.Redirect(w, r, p.webURL+"/", http.StatusSeeOther)
	case "device":
		fam := f.Get("family")
		devs, err := p.devices(ctx, acc)
		if err != nil {
			fail(err)
			return
		}
		if !slices.ContainsFunc(devs, func(d Device) bool { return d.Family == fam }) {
			fail(refusal(http.StatusNotFound, "", "That device is signed out already."))
			return
		}
		if err := p.signOutDevice(ctx, acc.Subject, fam); err != nil {
			fail(err)
			return
		}
		done("device")
	case "everywhere":
		if err := p.signOutEverywhere(ctx, acc.Subject); err != nil {
			fail(err)
			return
		}
		p.keepSession(ctx, key, s, acc.Subject)
		done("everywhere")
	case "password":
		err := p.changeOwnPassword(r, acc, f.Get("password"), f.Get("new_password"), f.Get("new_password2"))
		if err != nil {
			fail(err)
			return
		}
		p.keepSession(ctx, key, s, acc.Subject)
		done("password")
	case "totp-start":
		k, err := newTOTPKey(p.community.SignUpInfo().Name, acc.Username)
		if err != nil {
			fail(err)
			return
		}
		p.withSession(s, func(s *session) { s.secret, s.codes = k.Secret(), nil })
		p.renderAccount(w, r, http.StatusOK, s, acc, page{})
	case "totp-confirm":
		p.sessions.mu.Lock()
		secret := s.secret
		p.sessions.mu.Unlock()
		if secret == "" {
			fail(refusal(http.StatusBadRequest, "", "Start turning two-step sign-in on again: the page was reloaded."))
			return
		}
		codes, err := p.enableTOTP(ctx, acc.Subject, secret, f.Get("code"))
		if err != nil {
			fail(err)
			return
		}
		p.withSession(s, func(s *session) { s.secret, s.codes = "", codes })
		p.renderAccount(w, r, http.StatusOK, s, acc, page{Notice: "Two-step sign-in is on. Save your recovery codes now: they are shown only once."})
		p.withSession(s, func(s *session) { s.codes = nil })
	case "totp-off", "codes":
		ok, err := p.checkCode(ctx, acc.Subject, f.Get("code"))
		if err == nil && !ok {
			err = errWrongCode
		}
		if err != nil {
			fail(err)
			return
		}
		if f.Get("action") == "codes" {
			codes, hashes := newRecoveryCodes()
			if err := p.security.UpdateSecurity(ctx, acc.Subject, func(sec *Security) error { sec.RecoveryHashes = hashes; return nil }); err != nil {
				fail(err)
				return
			}
			p.withSession(s, func(s *session) { s.codes = codes })
			p.renderAccount(w, r, http.StatusOK, s, acc, page{Notice: "New recovery codes: the old ones no longer work. Save these now: they are shown only once."})
			p.withSession(s, func(s *session) { s.codes = nil })
			return
		}
		err = p.security.UpdateSecurity(ctx, acc.Subject, func(sec *Security) error {
			sec.TOTPSealed, sec.TOTPEnabled, sec.TOTPEnabledAt, sec.RecoveryHashes = nil, false, time.Time{}, nil
			return nil
		})
		if err != nil {
			fail(err)
			return
		}
		done("totp-off")
	case "passkey-remove":
		id, err := hex.DecodeString(f.Get("passkey"))
		if err != nil {
			fail(refusal(http.StatusBadRequest, "", "No such passkey."))
			return
		}
		err = p.security.UpdateSecurity(ctx, acc.Subject, func(sec *Security) error {
			sec.Passkeys = slices.DeleteFunc(sec.Passkeys, func(k Passkey) bool { return string(k.ID) == string(id) })
			return nil
		})
		if err != nil {
			fail(err)
			return
		}
		done("passkey-gone")
	case "email":
		p.requestEmail(w, r, s, acc, f.Get("email"))
	case "email-remove":
		if err := p.security.UpdateSecurity(ctx, acc.Subject, func(sec *Security) error { sec.Email, sec.EmailVerifiedAt = "", time.Time{}; return nil }); err != nil {
			fail(err)
			return
		}
		done("email-gone")
	default:
		fail(refusal(http.StatusBadRequest, "", "Unknown action."))
	}
}

// keepSession keeps this page's session through a change that moved the account's token
// epoch (sign-out everywhere, a password change), and ends every other.
func (p *Provider) keepSession(ctx context.Context, key string, s *session, subject string) {
	acc, err := p.accounts.Account(ctx, subject)
	if err != nil {
		return
	}
	p.withSession(s, func(s *session) { s.epoch = acc.TokenEpoch })
	p.endSessions(subject, key)
}

// changeOwnPassword changes the password from the account page: the current one is asked again.
func (p *Provider) changeOwnPassword(r *http.Request, acc Account, current, next, next2 string) error {
	if err := checkNewPasswords(next, next2); err != nil {
		return err
	}
	if _, err := p.checkPassword(r, acc.Username, current); err != nil {
		var ref *Refusal
		if errors.As(err, &ref) && ref == errWrongCredentials {
			return refusal(http.StatusUnauthorized, "password", "The current password is not right.")
		}
		return err
	}
	return p.setPassword(context.WithoutCancel(r.Context()), acc.Subject, next)
}

// setPassword hashes and sets a new password: every refresh token of the account is revoked
// (SetPassword moves the epoch), and its devices are forgotten.
func (p *Provider) setPassword(ctx context.Context, subject, password string) error {
	hash, err := p.hasher.hash(ctx, password)
	if err != nil {
		return err
	}
	if err := p.accounts.SetPassword(ctx, subject, hash, p.now()); err != nil {
		return err
	}
	return p.security.DeleteDevices(ctx, subject)
}

// passkeyAddOptions starts adding a passkey on the account page.
func (p *Provider) passkeyAddOptions(w http.ResponseWriter, r *http.Request) {
	_, s, acc, ok := p.session(r)
	if !ok {
		passkeyError(w, http.StatusUnauthorized, "Your session on this page ended: sign in again.")
		return
	}
	u, _, err := p.passkeyUser(r, acc.Subject)
	if err != nil {
		p.passkeyServerError(w, err)
		return
	}
	options, ceremony, err := p.passkeys.BeginRegistration(u, webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		p.passkeyServerError(w, err)
		return
	}
	p.withSession(s, func(s *session) { s.ceremony = ceremony })
	writeJSON(w, http.StatusOK, options)
}

// passkeyAddFinish keeps the passkey the browser made.
func (p *Provider) passkeyAddFinish(w http.ResponseWriter, r *http.Request) {
	_, s, acc, ok := p.session(r)
	if !ok {
		passkeyError(w, http.StatusUnauthorized, "Your session on this page ended: sign in again.")
		return
	}
	var c *webauthn.SessionData
	p.withSession(s, func(s *session) { c, s.ceremony = s.ceremony, nil })
	if c == nil {
		passkeyError(w, http.StatusBadRequest, "The passkey's answer came without its question: try again.")
		return
	}
	if err := p.addPasskey(w, r, acc.Subject, c, r.URL.Query().Get("name")); err != nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"next": "account?done=passkey"})
}

// requestEmail sends a verification link to the address typed; the address is the account's
// once the link is opened.
func (p *Provider) requestEmail(w http.ResponseWriter, r *http.Request, s *session, acc Account, typed string) {
	fail := func(err error) {
		d := p.refusalPage(err)
		d.Email = typed
		p.renderAccount(w, r, statusOf(err), s, acc, d)
	}
	if p.mailer == nil {
		fail(refusal(http.StatusNotFound, "", "This server sends no email."))
		return
	}
	addr, err := mail.CheckAddress(typed)
	if err != nil {
		fail(refusal(http.StatusBadRequest, "email", capitalize(err.Error())+"."))
		return
	}
	if wait := p.limits.Allow("verify:"+acc.Subject, verifyMails, 1); wait > 0 {
		ref := tooManyAttempts(wait)
		ref.Message = fmt.Sprintf("Too many verification mails. Try again in %s.", plural(int((wait+time.Minute-1)/time.Minute), "minute"))
		fail(ref)
		return
	}
	if err := p.sendVerification(r.Context(), acc, addr); err != nil {
		fail(err)
		return
	}
	p.renderAccount(w, r, http.StatusOK, s, acc, page{Notice: "A link is on its way to " + addr + ". Open it within 24 hours to use this address."})
}
