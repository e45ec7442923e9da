package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Passkeys (WebAuthn, github.com/go-webauthn/webauthn): added on the account page, used to sign
// in without a password, or as the second step after one. The browser's part is pages.js: it
// asks options of passkeyOptions, hands them to navigator.credentials, and posts the answer to
// passkeyFinish, which answers where to go next.

const (
	passkeyOptionsPath = "/oauth/passkey/options"
	passkeyFinishPath  = "/oauth/passkey/finish"
	// passkeyBodyMax bounds a ceremony's answer: an attestation is a few KiB.
	passkeyBodyMax = 64 << 10
	// passkeysMax is how many passkeys an account may have.
	passkeysMax    = 20
	passkeyNameMax = 64
)

// The ceremonies: sign in with a passkey alone, the second step after a password, setting one
// up during a sign-in that must have a second factor, and adding one on the account page.
const (
	purposeSignIn = "signin"
	purposeStep   = "step"
	purposeSetup  = "setup"
	purposeAdd    = "add"
)

// newPasskeys configures WebAuthn for the issuer's URL, or returns nil where browsers refuse
// passkeys: on an IP address (no domain to bind them to), or over http anywhere but localhost.
func newPasskeys(issuerURL, community string) *webauthn.WebAuthn {
	u, err := url.Parse(issuerURL)
	if err != nil {
		return nil
	}
	host := u.Hostname()
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if net.ParseIP(host) != nil || (u.Scheme != "https" && !local) {
		return nil
	}
	if community == "" {
		community = "Hearth"
	}
	w, err := webauthn.New(&webauthn.Config{
		RPID:          host,
		RPDisplayName: community,
		RPOrigins:     []string{u.Scheme + "://" + u.Host},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationRequired,
		},
	})
	if err != nil {
		return nil
	}
	return w
}

// passkeyUser is an account as go-webauthn sees it: the user handle is the subject.
type passkeyUser struct {
	acc   Account
	creds []webauthn.Credential
}

func (u passkeyUser) WebAuthnID() []byte                         { return []byte(u.acc.Subject) }
func (u passkeyUser) WebAuthnName() string                       { return u.acc.Username }
func (u passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }
func (u passkeyUser) WebAuthnDisplayName() string {
	if u.acc.DisplayName != "" {
		return u.acc.DisplayName
	}
	return u.acc.Username
}

func (p *Provider) passkeyUser(r *http.Request, subject string) (passkeyUser, Security, error) {
	acc, err := p.accounts.Account(r.Context(), subject)
	if err != nil {
		return passkeyUser{}, Security{}, err
	}
	if acc.Pending {
		return passkeyUser{}, Security{}, ErrAccountNotFound
	}
	sec, err := p.security.Security(r.Context(), subject)
	if err != nil {
		return passkeyUser{}, Security{}, err
	}
	u := passkeyUser{acc: acc}
	for _, pk := range sec.Passkeys {
		var c webauthn.Credential
		if err := json.Unmarshal(pk.Credential, &c); err == nil {
			u.creds = append(u.creds, c)
		}
	}
	return u, sec, nil
}

// passkeyError answers a ceremony's request with a message for the page.
func passkeyError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// sameSite refuses a request that does not come from the issuer's own pages (a fetch from
// pages.js sends Sec-Fetch-Site same-origin and its Origin).
func (p *Provider) sameSite(w http.ResponseWriter, r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		passkeyError(w, http.StatusForbidden, "only the page itself may ask this")
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !sameOrigin(o, p.issuer.URL()) {
		passkeyError(w, http.StatusForbidden, "only the page itself may ask this")
		return false
	}
	return true
}

// passkeyOptions starts a ceremony: POST ?purpose=...&id=<request> (the account page's "add"
// needs its session instead of a request).
func (p *Provider) passkeyOptions(w http.ResponseWriter, r *http.Request) {
	if !p.sameSite(w, r) {
		return
	}
	if p.passkeys == nil {
		passkeyError(w, http.StatusNotFound, "passkeys need the server on https (or localhost), under a domain name")
		return
	}
	q := r.URL.Query()
	purpose := q.Get("purpose")
	if purpose == purposeAdd {
		p.passkeyAddOptions(w, r)
		return
	}
	a, ok := p.storage.pending(q.Get("id"))
	if !ok {
		passkeyError(w, http.StatusBadRequest, "This sign-in has expired. Go back to the app and sign in again.")
		return
	}
	st, _ := p.storage.stepOf(a.id)
	var (
		options any
		session *webauthn.SessionData
		err     error
	)
	switch {
	case purpose == purposeSignIn:
		options, session, err = p.passkeys.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	case purpose == purposeStep && st.subject != "" && st.hasPasskey && !st.setup:
		var u passkeyUser
		if u, _, err = p.passkeyUser(r, st.subject); err == nil {
			options, session, err = p.passkeys.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
		}
	case purpose == purposeSetup && st.setup && !st.set:
		var u passkeyUser
		if u, _, err = p.passkeyUser(r, st.subject); err == nil {
			options, session, err = p.passkeys.BeginRegistration(u, webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
		}
	default:
		passkeyError(w, http.StatusBadRequest, "no passkey is asked for at this point of the sign-in")
		return
	}
	if err != nil {
		p.log.Error("start a passkey ceremony", "err", err)
		passkeyError(w, http.StatusInternalServerError, "Something went wrong on the server. Try again in a moment.")
		return
	}
	if !p.storage.setCeremony(a.id, passkeyCeremony{purpose: purpose, session: session}) {
		passkeyError(w, http.StatusBadRequest, "This sign-in has expired. Go back to the app and sign in again.")
		return
	}
	writeJSON(w, http.StatusOK, options)
}

// setCeremony keeps a request's passkey ceremony until its answer (one at a time).
func (s *opStorage) setCeremony(id string, c passkeyCeremony) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done {
		return false
	}
	r.ceremony = &c
	return true
}

// takeCeremony hands out a request's ceremony once.
func (s *opStorage) takeCeremony(id, purpose string) (*passkeyCeremony, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done || r.ceremony == nil || r.ceremony.purpose != purpose {
		return nil, false
	}
	c := r.ceremony
	r.ceremony = nil
	return c, true
}

// passkeyFinish takes a ceremony's answer (the credential's JSON) and answers {"next": URL}:
// where the page goes on to.
func (p *Provider) passkeyFinish(w http.ResponseWriter, r *http.Request) {
	if !p.sameSite(w, r) {
		return
	}
	if p.passkeys == nil {
		passkeyError(w, http.StatusNotFound, "passkeys need the server on https (or localhost), under a domain name")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, passkeyBodyMax)
	q := r.URL.Query()
	purpose := q.Get("purpose")
	if purpose == purposeAdd {
		p.passkeyAddFinish(w, r)
		return
	}
	a, ok := p.storage.pending(q.Get("id"))
	if !ok {
		passkeyError(w, http.StatusBadRequest, "This sign-in has expired. Go back to the app and sign in again.")
		return
	}
	c, ok := p.storage.takeCeremony(a.id, purpose)
	if !ok {
		passkeyError(w, http.StatusBadRequest, "The passkey's answer came without its question: try again.")
		return
	}
	st, _ := p.storage.stepOf(a.id)
	ctx := op.ContextWithIssuer(r.Context(), p.issuer.URL())
	r = r.WithContext(ctx)
	var (
		subject string
		amr     []string
	)
	switch purpose {
	case purposeSignIn:
		var cred *webauthn.Credential
		cred, err := p.passkeys.FinishDiscoverableLogin(func(_, handle []byte) (webauthn.User, error) {
			u, _, err := p.passkeyUser(r, string(handle))
			subject = u.acc.Subject
			return u, err
		}, *c.session, r)
		if err != nil || subject == "" {
			p.log.Info("a passkey sign-in failed", "err", err)
			passkeyError(w, http.StatusUnauthorized, "That passkey did not sign you in. Use another one, or your password.")
			return
		}
		if err := p.passkeyUsed(r, subject, cred); err != nil {
			p.passkeyServerError(w, err)
			return
		}
		amr = []string{"hwk"}
	case purposeStep:
		u, _, err := p.passkeyUser(r, st.subject)
		if err != nil {
			p.passkeyServerError(w, err)
			return
		}
		cred, err := p.passkeys.FinishLogin(u, *c.session, r)
		if err != nil {
			p.log.Info("a passkey second step failed", "err", err)
			passkeyError(w, http.StatusUnauthorized, "That passkey is not one of this account's. Use another one, or a code.")
			return
		}
		if err := p.passkeyUsed(r, st.subject, cred); err != nil {
			p.passkeyServerError(w, err)
			return
		}
		subject, amr = st.subject, []string{"pwd", "hwk"}
	case purposeSetup:
		if err := p.addPasskey(w, r, st.subject, c.session, ""); err != nil {
			return
		}
		subject, amr = st.subject, []string{"pwd", "hwk"}
	}
	next, err := p.complete(w, r, a, subject, amr)
	if err != nil {
		p.passkeyServerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"next": next})
}

func (p *Provider) passkeyServerError(w http.ResponseWriter, err error) {
	if errors.Is(err, errRequestGone) {
		passkeyError(w, http.StatusBadRequest, "This sign-in has expired. Go back to the app and sign in again.")
		return
	}
	p.log.Error("passkey", "err", err)
	passkeyError(w, http.StatusInternalServerError, "Something went wrong on the server. Try again in a moment.")
}

// passkeyUsed records a sign-in with a passkey: its new signature counter and when.
func (p *Provider) passkeyUsed(r *http.Request, subject string, cred *webauthn.Credential) error {
	js, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	now := p.now()
	return p.security.UpdateSecurity(r.Context(), subject, func(s *Security) error {
		for i := range s.Passkeys {
			if bytes.Equal(s.Passkeys[i].ID, cred.ID) {
				s.Passkeys[i].Credential, s.Passkeys[i].LastUsed = js, now
			}
		}
		return nil
	})
}

// addPasskey finishes a registration for subject and keeps the passkey, named name (or after
// the browser). It answers the page itself on failure.
func (p *Provider) addPasskey(w http.ResponseWriter, r *http.Request, subject string, session *webauthn.SessionData, name string) error {
	u, sec, err := p.passkeyUser(r, subject)
	if err != nil {
		p.passkeyServerError(w, err)
		return err
	}
	if len(sec.Passkeys) >= passkeysMax {
		passkeyError(w, http.StatusBadRequest, "An account may have 20 passkeys: remove one first.")
		return errors.New("too many passkeys")
	}
	cred, err := p.passkeys.FinishRegistration(u, *session, r)
	if err != nil {
		p.log.Info("a passkey registration failed", "err", err)
		passkeyError(w, http.StatusBadRequest, "The passkey was not made: try again.")
		return err
	}
	js, err := json.Marshal(cred)
	if err != nil {
		p.passkeyServerError(w, err)
		return err
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > passkeyNameMax || strings.ContainsFunc(name, isControl) {
		name = deviceName(r.UserAgent())
	}
	now := p.now()
	err = p.security.UpdateSecurity(r.Context(), subject, func(s *Security) error {
		if slices.ContainsFunc(s.Passkeys, func(k Passkey) bool { return bytes.Equal(k.ID, cred.ID) }) {
			return nil
		}
		s.Passkeys = append(s.Passkeys, Passkey{ID: cred.ID, Name: name, Created: now, Credential: js})
		return nil
	})
	if err != nil {
		p.passkeyServerError(w, err)
	}
	return err
}

func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
