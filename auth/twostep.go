package auth

import (
	"context"
	"errors"
	"html/template"
	"net/http"

	"github.com/go-webauthn/webauthn/webauthn"

	"hearth/engine/ratelimit"
)

// The second step of a sign-in. Once the password is right, an account with TOTP or a passkey
// is asked for a code (TOTP or a recovery code) or its passkey; an account whose member must
// have two-step sign-in (ModerationSettings.require_2fa_rank) and has none sets one up first.
// The step lives on the authorization request, in memory, like the rest of a sign-in.

// step is a sign-in between its password and its end (under opStorage.mu).
type step struct {
	// subject is the account whose password was right; empty before.
	subject  string
	username string
	// hasTOTP and hasPasskey say what the step page offers.
	hasTOTP    bool
	hasPasskey bool
	// setup: the member must set a second factor up before the sign-in completes; secret is
	// the TOTP secret offered, set is true once a factor was set up (then codes, the new
	// recovery codes, are shown before going on).
	setup  bool
	secret string
	set    bool
	codes  []string
	// misses counts wrong codes in this sign-in.
	misses int
	// memberName is a sign-up's member name when Join numbered it (finishRenamed).
	memberName string
}

// stepMisses is how many wrong codes one sign-in may have before it must start again.
const stepMisses = 5

// passkeyCeremony is a passkey ceremony in progress on an authorization request.
type passkeyCeremony struct {
	purpose string
	session *webauthn.SessionData
}

// setStep records the request's step; false if the request is gone or done.
func (s *opStorage) setStep(id string, st step) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done {
		return false
	}
	r.step = st
	return true
}

// stepOf reads the request's step (a copy).
func (s *opStorage) stepOf(id string) (step, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done || s.p.now().Sub(r.created) > authRequestTTL {
		return step{}, false
	}
	return r.step, true
}

// changeStep changes the request's step under the lock.
func (s *opStorage) changeStep(id string, change func(*step)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done {
		return false
	}
	change(&r.step)
	return true
}

// afterPassword goes on from a right password, or a new account, for acc: to the second step,
// to setting one up, or to the end.
func (p *Provider) afterPassword(w http.ResponseWriter, r *http.Request, a *authRequest, acc Account, memberName string) {
	sec, err := p.security.Security(r.Context(), acc.Subject)
	if err != nil {
		p.refuse(w, "login.html", p.signInPage(a, modeSignIn), err)
		return
	}
	st := step{subject: acc.Subject, username: acc.Username, hasTOTP: sec.TOTPEnabled, hasPasskey: len(sec.Passkeys) > 0, memberName: memberName}
	switch {
	case sec.TwoStep():
	case p.twoStepRequired(acc.Subject):
		st.setup = true
	default:
		// Straight on; the step only carries a sign-up's numbered name to finish.
		p.storage.setStep(a.id, step{username: acc.Username, memberName: memberName})
		p.finish(w, r, a, acc.Subject, []string{"pwd"})
		return
	}
	if st.setup {
		key, err := newTOTPKey(p.community.SignUpInfo().Name, acc.Username)
		if err != nil {
			p.refuse(w, "login.html", p.signInPage(a, modeSignIn), err)
			return
		}
		st.secret = key.Secret()
	}
	if !p.storage.setStep(a.id, st) {
		p.expired(w)
		return
	}
	p.renderStep(w, http.StatusOK, a, st, page{})
}

// renderStep shows the step page: the code (or passkey) asked for, the setup, or the new
// recovery codes. d carries an error or the code typed.
func (p *Provider) renderStep(w http.ResponseWriter, status int, a *authRequest, st step, d page) {
	base := p.basePage("Two-step sign-in")
	base.Error, base.Field, base.Code = d.Error, d.Field, d.Code
	base.ID, base.ForAccount = a.id, a.forAccount
	base.Username = st.username
	base.Step = &stepView{TOTP: st.hasTOTP, Passkey: st.hasPasskey && p.passkeys != nil, Setup: st.setup, Codes: st.codes}
	switch {
	case st.set:
		base.Title = "Save your recovery codes"
	case st.setup:
		base.Title = "Set up two-step sign-in"
		base.Step.PasskeysUsable = p.passkeys != nil
		key, err := totpKeyOf(p.community.SignUpInfo().Name, st.username, st.secret)
		if err == nil {
			base.Step.Secret = st.secret
			base.Step.QR, err = qrDataURL(key)
		}
		if err != nil {
			p.refuse(w, "login.html", p.signInPage(a, modeSignIn), err)
			return
		}
	}
	p.render(w, status, "step.html", base)
}

// stepView is what the step page shows.
type stepView struct {
	TOTP, Passkey  bool
	Setup          bool
	PasskeysUsable bool
	// QR and Secret are the TOTP secret offered for setup.
	QR     template.URL
	Secret string
	// Codes are the recovery codes just made.
	Codes []string
}

var (
	errWrongCode = refusal(http.StatusUnauthorized, "code", "That code is not right. Type the 6 digits your app shows now, or one of your recovery codes.")
	errCodeSpent = errors.New("code used already")
)

// stepCode checks the code of the second step: a TOTP code or a recovery code.
func (p *Provider) stepCode(w http.ResponseWriter, r *http.Request, a *authRequest) {
	st, ok := p.storage.stepOf(a.id)
	if !ok || st.subject == "" || st.setup {
		p.expired(w)
		return
	}
	code := r.PostForm.Get("code")
	ok, err := p.checkCode(r.Context(), st.subject, code)
	if err != nil {
		p.renderStep(w, statusOf(err), a, st, p.refusalPage(err))
		return
	}
	if !ok {
		p.storage.changeStep(a.id, func(s *step) { s.misses++ })
		if st.misses+1 >= stepMisses {
			p.storage.forget(a.id)
			d := p.basePage("Sign in")
			d.Error = "Too many wrong codes. Go back to the app and sign in again."
			p.render(w, http.StatusUnauthorized, "expired.html", d)
			return
		}
		p.renderStep(w, http.StatusUnauthorized, a, st, p.refusalPage(errWrongCode))
		return
	}
	p.finish(w, r, a, st.subject, []string{"pwd", "otp"})
}

// checkCode checks a TOTP code or a recovery code of the account, counting wrong ones toward
// the account's limit; a right one is used up. A refusal is an error (the limit); a wrong code
// is ok false.
func (p *Provider) checkCode(ctx context.Context, subject, code string) (bool, error) {
	keys := []string{"code:" + subject}
	if wait := p.limits.AllowAll(keys, []ratelimit.Limit{codeFailures}, 1); wait > 0 {
		ref := tooManyAttempts(wait)
		ref.Field = "code"
		return false, ref
	}
	var good bool
	err := p.security.UpdateSecurity(ctx, subject, func(s *Security) error {
		good = false
		if s.TOTPEnabled {
			secret, err := p.sealer.open(subject, s.TOTPSealed)
			if err != nil {
				return err
			}
			if step, ok := totpStep(secret, code, p.now(), s.TOTPLastStep); ok {
				s.TOTPLastStep, good = step, true
				return nil
			}
		}
		left, ok := useRecoveryCode(s.RecoveryHashes, code)
		if !ok {
			return errCodeSpent
		}
		s.RecoveryHashes, good = left, true
		return nil
	})
	if errors.Is(err, errCodeSpent) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p.limits.Return(keys, 1)
	return good, nil
}

// stepSetupTOTP turns TOTP on during a sign-in that must have a second factor: the code from
// the offered secret proves the app has it. The new recovery codes are shown next.
func (p *Provider) stepSetupTOTP(w http.ResponseWriter, r *http.Request, a *authRequest) {
	st, ok := p.storage.stepOf(a.id)
	if !ok || !st.setup || st.set {
		p.expired(w)
		return
	}
	codes, err := p.enableTOTP(r.Context(), st.subject, st.secret, r.PostForm.Get("code"))
	if err != nil {
		p.renderStep(w, statusOf(err), a, st, p.refusalPage(err))
		return
	}
	p.storage.changeStep(a.id, func(s *step) { s.set, s.codes = true, codes })
	st.set, st.codes = true, codes
	p.renderStep(w, http.StatusOK, a, st, page{})
}

// enableTOTP turns TOTP on with secret once code is right for it, with new recovery codes.
func (p *Provider) enableTOTP(ctx context.Context, subject, secret, code string) ([]string, error) {
	step, ok := totpStep(secret, code, p.now(), 0)
	if !ok {
		return nil, refusal(http.StatusBadRequest, "code", "That code is not right: type the 6 digits the app shows for this account now.")
	}
	codes, hashes := newRecoveryCodes()
	now := p.now()
	err := p.security.UpdateSecurity(ctx, subject, func(s *Security) error {
		s.TOTPSealed = p.sealer.seal(subject, secret)
		s.TOTPEnabled, s.TOTPEnabledAt, s.TOTPLastStep = true, now, step
		s.RecoveryHashes = hashes
		return nil
	})
	return codes, err
}

// stepContinue ends a sign-in whose second factor was just set up.
func (p *Provider) stepContinue(w http.ResponseWriter, r *http.Request, a *authRequest) {
	st, ok := p.storage.stepOf(a.id)
	if !ok || !st.setup || !st.set {
		p.expired(w)
		return
	}
	p.finish(w, r, a, st.subject, []string{"pwd", "otp"})
}

func statusOf(err error) int {
	var ref *Refusal
	if errors.As(err, &ref) {
		return ref.Status
	}
	return http.StatusInternalServerError
}

// refusalPage is the page fields of an error: a Refusal's, or the server's (logged).
func (p *Provider) refusalPage(err error) page {
	var ref *Refusal
	if !errors.As(err, &ref) {
		if !errors.Is(err, context.Canceled) {
			p.log.Error("sign-in", "err", err)
		}
		return page{Error: "Something went wrong on the server. Try again in a moment."}
	}
	return page{Error: ref.Message, Field: ref.Field}
}
