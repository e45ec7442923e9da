package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"hearth/engine/mail"
)

// Email addresses on accounts: added on the account page, used once the link mailed to them
// is opened (one use, 24 hours), for "Forgot password" and, later, notifications.

const (
	verifyEmailPath = "/oauth/verify-email"
	emailLinkTTL    = 24 * time.Hour
)

// sendVerification mails a link that makes address the account's.
func (p *Provider) sendVerification(ctx context.Context, acc Account, address string) error {
	now := p.now()
	token := "he_" + rand.Text() + rand.Text()
	t := AccountToken{Subject: acc.Subject, Created: now, Expires: now.Add(emailLinkTTL), Email: address}
	if err := p.security.PutToken(ctx, EmailLinkToken, hashToken(token), t); err != nil {
		return err
	}
	link := p.issuer.URL() + verifyEmailPath + "?token=" + url.QueryEscape(token)
	community := orApp(p.community.SignUpInfo().Name)
	if !p.mailer.Enqueue(mail.Message{
		To:      address,
		Subject: "Confirm your email address on " + community,
		Text: fmt.Sprintf("Open this link to use this address for the account %s on %s (it works once, for 24 hours):\n%s\n\n"+
			"If you did not ask for it, ignore this mail.\n", acc.Username, community, link),
	}) {
		return refusal(http.StatusServiceUnavailable, "", "The mail could not be sent just now. Try again in a moment.")
	}
	return nil
}

// verifyPage asks to confirm the address: opening the link only shows a button, since mail
// systems open links on their own to check them.
func (p *Provider) verifyPage(w http.ResponseWriter, r *http.Request) {
	d := p.basePage("Confirm your email address")
	d.Token = r.URL.Query().Get("token")
	t, err := p.emailLink(r.Context(), d.Token, false)
	if err != nil {
		d.Token = ""
		p.refuse(w, "verify.html", d, err)
		return
	}
	d.Email = t.Email
	p.render(w, http.StatusOK, "verify.html", d)
}

func (p *Provider) verifySubmit(w http.ResponseWriter, r *http.Request) {
	if !p.readForm(w, r) {
		return
	}
	d := p.basePage("Confirm your email address")
	ctx := context.WithoutCancel(r.Context())
	t, err := p.emailLink(ctx, r.PostForm.Get("token"), true)
	if err != nil {
		p.refuse(w, "verify.html", d, err)
		return
	}
	d.Email = t.Email
	now := p.now()
	err = p.security.UpdateSecurity(ctx, t.Subject, func(s *Security) error {
		s.Email, s.EmailVerifiedAt = t.Email, now
		return nil
	})
	if errors.Is(err, ErrEmailTaken) {
		err = refusal(http.StatusConflict, "", "Another account here uses "+t.Email+" already.")
	}
	if err != nil {
		p.refuse(w, "verify.html", d, err)
		return
	}
	d.Done = true
	p.render(w, http.StatusOK, "verify.html", d)
}

func (p *Provider) emailLink(ctx context.Context, token string, take bool) (AccountToken, error) {
	gone := refusal(http.StatusBadRequest, "", "This link does not work (any more): it works once, for 24 hours. Add the address again on your account page.")
	if token == "" || len(token) > 200 {
		return AccountToken{}, gone
	}
	t, err := p.security.Token(ctx, EmailLinkToken, hashToken(token), take)
	if errors.Is(err, ErrTokenNotFound) || (err == nil && !p.now().Before(t.Expires)) {
		return AccountToken{}, gone
	}
	return t, err
}

// VerifiedEmail is the verified address of a login's account, for mail to the person (password
// resets, notification digests): "" when the login is not of this issuer, has no account, or
// no verified address.
func (p *Provider) VerifiedEmail(ctx context.Context, issuer, subject string) (string, error) {
	if issuer != p.issuer.URL() {
		return "", nil
	}
	s, err := p.security.Security(ctx, subject)
	if err != nil {
		return "", err
	}
	return s.Email, nil
}
