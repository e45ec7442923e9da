package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hearth/engine/mail"
	"hearth/engine/ratelimit"
)

// Password reset links (EXTENSIONS.md, section 8): made by an admin for a member
// (CreatePasswordResetLink), by the operator for anyone (hearth reset-link), or mailed to a
// verified address ("Forgot password"). A link works once, for 24 hours; using it sets a new
// password, which revokes every refresh token of the account. A password change voids every
// link made before it.

const (
	resetPath  = "/oauth/reset"
	forgotPath = "/oauth/forgot"
	// ResetLinkTTL is how long a reset link works.
	ResetLinkTTL = 24 * time.Hour
	// OperatorResetLink is the maker of the operator's links (hearth reset-link).
	OperatorResetLink = "operator"
)

// ErrNoAccount answers a reset link asked for a login that has no account on the built-in
// issuer (another issuer's, or a login made with hearth token).
var ErrNoAccount = errors.New("no account on the built-in issuer")

// ResetLink is a link made for a person.
type ResetLink struct {
	URL      string
	Expires  time.Time
	Username string
	// Subject is the account's, for the audit log's entry.
	Subject string
}

// NewResetLink makes a reset link for the account subject on the issuer at baseURL (the
// server's base URL): createdBy is a member id, OperatorResetLink or "email"; removeTwoStep
// makes the link also turn two-step sign-in off (for a person who lost it, by the operator
// only). It works on the stores alone, so that hearth reset-link can make one on a stopped
// server's database.
func NewResetLink(ctx context.Context, accounts AccountStore, sec SecurityStore, baseURL, subject, createdBy string, removeTwoStep bool, now time.Time) (ResetLink, error) {
	acc, err := accounts.Account(ctx, subject)
	if errors.Is(err, ErrAccountNotFound) || (err == nil && acc.Pending) {
		return ResetLink{}, ErrNoAccount
	}
	if err != nil {
		return ResetLink{}, err
	}
	token := "hp_" + rand.Text() + rand.Text()
	t := AccountToken{Subject: subject, Created: now, Expires: now.Add(ResetLinkTTL), CreatedBy: createdBy, RemoveTwoStep: removeTwoStep}
	if err := sec.PutToken(ctx, ResetLinkToken, hashToken(token), t); err != nil {
		return ResetLink{}, err
	}
	return ResetLink{
		URL:      strings.TrimSuffix(baseURL, "/") + resetPath + "?token=" + url.QueryEscape(token),
		Expires:  t.Expires,
		Username: acc.Username,
		Subject:  subject,
	}, nil
}

// IssuerURL is the built-in issuer's URL (the server's base URL).
func (p *Provider) IssuerURL() string { return p.issuer.URL() }

// CreateResetLink makes a reset link for the account subject (CreatePasswordResetLink): ErrNoAccount
// when the login has no account here.
func (p *Provider) CreateResetLink(ctx context.Context, subject, createdBy string) (ResetLink, error) {
	return NewResetLink(ctx, p.accounts, p.security, p.issuer.URL(), subject, createdBy, false, p.now())
}

// CreateResetLinkFor makes the operator's reset link for the account username (hearth
// reset-link, through the admin socket): ErrNoAccount when there is none.
func (p *Provider) CreateResetLinkFor(ctx context.Context, username string, removeTwoStep bool) (ResetLink, error) {
	acc, err := p.accounts.AccountByUsername(ctx, normalizeUsername(username))
	if errors.Is(err, ErrAccountNotFound) {
		return ResetLink{}, ErrNoAccount
	}
	if err != nil {
		return ResetLink{}, err
	}
	return NewResetLink(ctx, p.accounts, p.security, p.issuer.URL(), acc.Subject, OperatorResetLink, removeTwoStep, p.now())
}

// resetLink reads the link of token and its account; take uses it up. A link made before the
// account's last password change is void.
func (p *Provider) resetLink(ctx context.Context, token string, take bool) (AccountToken, Account, error) {
	gone := refusal(http.StatusBadRequest, "", "This link does not work (any more): a reset link works once, for 24 hours. Ask for a new one.")
	if token == "" || len(token) > 200 {
		return AccountToken{}, Account{}, gone
	}
	t, err := p.security.Token(ctx, ResetLinkToken, hashToken(token), take)
	if errors.Is(err, ErrTokenNotFound) {
		return AccountToken{}, Account{}, gone
	}
	if err != nil {
		return AccountToken{}, Account{}, err
	}
	acc, err := p.accounts.Account(ctx, t.Subject)
	if errors.Is(err, ErrAccountNotFound) || !p.now().Before(t.Expires) || acc.PasswordChangedAt.After(t.Created) {
		return AccountToken{}, Account{}, gone
	}
	return t, acc, err
}

func (p *Provider) resetPage(w http.ResponseWriter, r *http.Request) {
	d := p.basePage("Choose a new password")
	d.Token = r.URL.Query().Get("token")
	_, acc, err := p.resetLink(r.Context(), d.Token, false)
	if err != nil {
		d.Token = ""
		p.refuse(w, "reset.html", d, err)
		return
	}
	d.Username = acc.Username
	p.render(w, http.StatusOK, "reset.html", d)
}

// resetSubmit uses a link: the new password is set, every refresh token revoked.
func (p *Provider) resetSubmit(w http.ResponseWriter, r *http.Request) {
	if !p.readForm(w, r) {
		return
	}
	f := r.PostForm
	d := p.basePage("Choose a new password")
	d.Token, d.Username = f.Get("token"), normalizeUsername(f.Get("username"))
	next, next2 := f.Get("new_password"), f.Get("new_password2")
	if err := checkNewPasswords(next, next2); err != nil {
		p.refuse(w, "reset.html", d, err)
		return
	}
	ctx := context.WithoutCancel(r.Context())
	t, acc, err := p.resetLink(ctx, d.Token, true)
	if err != nil {
		d.Token = ""
		p.refuse(w, "reset.html", d, err)
		return
	}
	if err := p.setPassword(ctx, acc.Subject, next); err != nil {
		p.refuse(w, "reset.html", d, err)
		return
	}
	if t.RemoveTwoStep {
		err := p.security.UpdateSecurity(ctx, acc.Subject, func(s *Security) error {
			s.TOTPSealed, s.TOTPEnabled, s.TOTPEnabledAt, s.RecoveryHashes, s.Passkeys = nil, false, time.Time{}, nil, nil
			return nil
		})
		if err != nil {
			p.refuse(w, "reset.html", d, err)
			return
		}
	}
	p.endSessions(acc.Subject, "")
	p.log.Info("a password was reset with a link", "username", acc.Username, "link_by", t.CreatedBy, "two_step_removed", t.RemoveTwoStep)
	d.Done, d.Username = true, acc.Username
	p.render(w, http.StatusOK, "reset.html", d)
}

// forgotPage asks for a username or an address to mail a reset link to.
func (p *Provider) forgotPage(w http.ResponseWriter, r *http.Request) {
	if p.mailer == nil {
		http.NotFound(w, r)
		return
	}
	d := p.basePage("Forgot your password?")
	d.ID = r.URL.Query().Get("id")
	p.render(w, http.StatusOK, "forgot.html", d)
}

// forgotSubmit mails a reset link to the verified address of the account named, if there is
// one. The answer is the same whether or not there is, and takes the same time: the lookups
// are two reads either way, and the mail goes from the mailer's queue, after the answer.
func (p *Provider) forgotSubmit(w http.ResponseWriter, r *http.Request) {
	if p.mailer == nil {
		http.NotFound(w, r)
		return
	}
	if !p.readForm(w, r) {
		return
	}
	d := p.basePage("Forgot your password?")
	d.ID = r.PostForm.Get("id")
	who := strings.TrimSpace(r.PostForm.Get("who"))
	d.Username = who
	if who == "" || len(who) > 254 {
		p.refuse(w, "forgot.html", d, refusal(http.StatusBadRequest, "who", "Type your username or your email address."))
		return
	}
	addr := ratelimit.AddrKey(p.clientAddr(r))
	if wait := p.limits.Allow("forgot:"+addr, forgotPerAddr, 1); wait > 0 {
		ref := tooManyAttempts(wait)
		ref.Message = fmt.Sprintf("Too many reset mails were asked for from your address. Try again in %s.", plural(int((wait+time.Minute-1)/time.Minute), "minute"))
		p.refuse(w, "forgot.html", d, ref)
		return
	}
	p.mailResetLink(context.WithoutCancel(r.Context()), who)
	d.Done = true
	p.render(w, http.StatusOK, "forgot.html", d)
}

// mailResetLink queues a reset link for the account named by who (a username or a verified
// address) to its verified address, at most forgotPerAccount of them. Nothing tells the
// person asking whether it did.
func (p *Provider) mailResetLink(ctx context.Context, who string) {
	var acc Account
	var err error
	if address, aerr := mail.CheckAddress(who); aerr == nil && strings.Contains(who, "@") {
		var sub string
		if sub, err = p.security.SubjectByEmail(ctx, address); err == nil {
			acc, err = p.accounts.Account(ctx, sub)
		}
	} else {
		acc, err = p.accounts.AccountByUsername(ctx, normalizeUsername(who))
	}
	sec, serr := p.security.Security(ctx, acc.Subject)
	if err != nil || serr != nil || acc.Pending || sec.Email == "" {
		if err != nil && !errors.Is(err, ErrAccountNotFound) {
			p.log.Error("forgot password", "err", err)
		}
		return
	}
	if p.limits.Allow("forgotacct:"+acc.Subject, forgotPerAccount, 1) > 0 {
		return
	}
	link, err := p.CreateResetLink(ctx, acc.Subject, "email")
	if err != nil {
		p.log.Error("forgot password", "err", err)
		return
	}
	community := p.community.SignUpInfo().Name
	p.mailer.Enqueue(mail.Message{
		To:      sec.Email,
		Subject: "Reset your password on " + orApp(community),
		Text: fmt.Sprintf("Someone (we hope you) asked to reset the password of %s on %s.\n\n"+
			"Choose a new password here (the link works once, for 24 hours):\n%s\n\n"+
			"If it was not you, ignore this mail: your password stays as it is.\n", acc.Username, orApp(community), link.URL),
	})
}

func orApp(community string) string {
	if community == "" {
		return "Hearth"
	}
	return community
}
