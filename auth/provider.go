package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"hearth/engine/mail"
	"hearth/engine/ratelimit"
)

// The built-in issuer's endpoints, under its URL (the server's base URL).
const (
	authorizePath = "/oauth/authorize"
	tokenPath     = "/oauth/token"
	revokePath    = "/oauth/revoke"
	loginPath     = "/oauth/login"
	passwordPath  = "/oauth/password"
	stylePath     = "/oauth/style.css"
	scriptPath    = "/oauth/pages.js"
	usernamePath  = "/oauth/username"
	// IssuersPath serves the issuers the browser client can sign in with (IssuersHandler).
	IssuersPath = "/oauth/issuers"
)

// oauthBodyMax bounds the form of a token or revocation request: a code, a verifier, a
// refresh token and a few names.
const oauthBodyMax = 16 << 10

// ProviderConfig configures the built-in issuer's sign-in.
type ProviderConfig struct {
	// Issuer signs the tokens; its URL is the server's base URL.
	Issuer *Issuer
	// Accounts keeps accounts and refresh tokens.
	Accounts AccountStore
	// Community is joined by every sign-up.
	Community Community
	// WebURL is -web-url (without a trailing slash): {WebURL}/ is a redirect URI beside
	// {base_url}/app/.
	WebURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
	// Password sets argon2id's cost for new hashes; zero means DefaultPasswordParams.
	Password PasswordParams
	// ClientAddr is the address a request came from, for the rate limits; nil means the host
	// of the TCP peer.
	ClientAddr func(*http.Request) string
	// Security keeps second factors, email addresses, devices and one-time tokens.
	Security SecurityStore
	// Mailer sends reset and verification links; nil when the server sends no mail (no
	// "Forgot password", no email addresses).
	Mailer *mail.Mailer
	// TwoStepRequired tells whether the login (this issuer, subject) must have TOTP or a
	// passkey before a sign-in completes (ModerationSettings.require_2fa_rank); nil asks it of
	// nobody.
	TwoStepRequired func(subject string) bool
}

// Provider is the built-in issuer's OpenID provider: authorization code with PKCE, the
// sign-up and sign-in page, refresh tokens, sign-out and password changes. The protocol is
// zitadel/oidc's op package; the accounts, the page and the rules are ours.
type Provider struct {
	issuer     *Issuer
	accounts   AccountStore
	community  Community
	now        func() time.Time
	log        *slog.Logger
	hasher     *hasher
	limits     *ratelimit.Limiter
	clientAddr func(*http.Request) string
	client     *webClient
	storage    *opStorage
	op         *op.Provider
	webURL     string
	// formAction is the page's CSP form-action: its own origin and the redirect URIs', which
	// the browser checks the redirect after a submitted form against.
	formAction string
	handler    http.Handler

	security        SecurityStore
	mailer          *mail.Mailer
	twoStepRequired func(subject string) bool
	sealer          *sealer
	// passkeys is nil where browsers refuse them (newPasskeys).
	passkeys *webauthn.WebAuthn
	sessions sessions
	// cookiePath scopes the issuer's cookies to its pages: the path of /oauth/ under the base URL.
	cookiePath string
}

// NewProvider prepares the built-in issuer's sign-in.
func NewProvider(cfg ProviderConfig) (*Provider, error) {
	if cfg.Issuer == nil || cfg.Accounts == nil || cfg.Community == nil || cfg.Security == nil {
		return nil, errors.New("auth: the sign-in provider needs an issuer, an account store, a security store and a community")
	}
	p := &Provider{
		issuer:     cfg.Issuer,
		accounts:   cfg.Accounts,
		community:  cfg.Community,
		now:        cfg.Now,
		log:        cfg.Log,
		clientAddr: cfg.ClientAddr,
		webURL:     strings.TrimSuffix(cfg.WebURL, "/"),

		security:        cfg.Security,
		mailer:          cfg.Mailer,
		twoStepRequired: cfg.TwoStepRequired,
		sessions:        sessions{m: map[string]*session{}},
	}
	if p.twoStepRequired == nil {
		p.twoStepRequired = func(string) bool { return false }
	}
	var err error
	if p.sealer, err = newSealer(cfg.Issuer); err != nil {
		return nil, err
	}
	p.passkeys = newPasskeys(cfg.Issuer.URL(), cfg.Community.SignUpInfo().Name)
	p.cookiePath = "/oauth/"
	if u, err := url.Parse(cfg.Issuer.URL()); err == nil {
		p.cookiePath = strings.TrimSuffix(u.Path, "/") + "/oauth/"
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.clientAddr == nil {
		p.clientAddr = peerHost
	}
	if p.webURL == "" {
		p.webURL = cfg.Issuer.URL() + "/app"
	}
	params := cfg.Password
	if params == (PasswordParams{}) {
		params = DefaultPasswordParams
	}
	p.hasher = newHasher(params)
	p.limits = ratelimit.New(p.now)
	p.client = newWebClient(cfg.Issuer.URL(), p.webURL)
	p.storage = newOPStorage(p, p.client)
	p.formAction = formActionSources(cfg.Issuer.URL(), p.client.redirects)

	var key [32]byte
	rand.Read(key[:])
	p.op, err = op.NewProvider(&op.Config{
		// Codes are the request id sealed with this key; they live in memory, so a new key
		// at every start is right.
		CryptoKey:             key,
		CodeMethodS256:        true,
		GrantTypeRefreshToken: true,
		SupportedScopes:       []string{oidc.ScopeOpenID, oidc.ScopeOfflineAccess},
	}, p.storage, op.StaticIssuer(cfg.Issuer.URL()),
		op.WithAllowInsecure(),
		op.WithCustomAuthEndpoint(op.NewEndpoint(authorizePath)),
		op.WithCustomTokenEndpoint(op.NewEndpoint(tokenPath)),
		op.WithCustomRevocationEndpoint(op.NewEndpoint(revokePath)),
		op.WithCustomKeysEndpoint(op.NewEndpoint(jwksPath)),
		// Cross-origin rules are the server's, set in one place for every endpoint (op's
		// default would allow credentials from any origin).
		op.WithCORSOptions(nil),
	)
	if err != nil {
		return nil, fmt.Errorf("auth: start the OpenID provider: %w", err)
	}
	p.handler = p.routes()
	return p, nil
}

// Handler serves the sign-in endpoints under /oauth/ (IssuersPath excepted: see
// IssuersHandler). Discovery and keys stay with the Issuer's Handler.
func (p *Provider) Handler() http.Handler { return p.handler }

func (p *Provider) routes() http.Handler {
	mux := http.NewServeMux()
	// Only these of op's endpoints are reachable: no userinfo, introspection, end-session,
	// device flow or callback. The sign-in page hands its answer to op itself.
	mux.Handle("GET "+authorizePath, p.authorize())
	mux.Handle("POST "+tokenPath, p.tokenEndpoint())
	mux.Handle("POST "+revokePath, boundForm(p.op))
	mux.HandleFunc("GET "+loginPath, p.loginPage)
	mux.HandleFunc("POST "+loginPath, p.loginSubmit)
	mux.HandleFunc("GET "+passwordPath, p.passwordPage)
	mux.HandleFunc("POST "+passwordPath, p.passwordSubmit)
	mux.HandleFunc("GET "+stylePath, serveStyle)
	mux.HandleFunc("GET "+scriptPath, serveScript)
	mux.HandleFunc("GET "+usernamePath, p.usernameCheck)
	mux.HandleFunc("GET "+accountPath, p.accountPage)
	mux.HandleFunc("POST "+accountPath, p.accountSubmit)
	mux.HandleFunc("POST "+passkeyOptionsPath, p.passkeyOptions)
	mux.HandleFunc("POST "+passkeyFinishPath, p.passkeyFinish)
	mux.HandleFunc("GET "+resetPath, p.resetPage)
	mux.HandleFunc("POST "+resetPath, p.resetSubmit)
	mux.HandleFunc("GET "+forgotPath, p.forgotPage)
	mux.HandleFunc("POST "+forgotPath, p.forgotSubmit)
	mux.HandleFunc("GET "+verifyEmailPath, p.verifyPage)
	mux.HandleFunc("POST "+verifyEmailPath, p.verifySubmit)
	return mux
}

// authorize passes the extra invite parameter to the request op stores. Every authorization
// request starts a sign-in kept in memory, so they are limited per client address and network.
func (p *Provider) authorize() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait := p.allowAuthorize(r); wait > 0 {
			p.tooManyPages(w, wait)
			return
		}
		ctx := withInvite(r.Context(), strings.TrimSpace(r.URL.Query().Get("invite")))
		ctx = withClientAddr(ctx, p.clientAddr(r))
		p.op.ServeHTTP(w, r.WithContext(ctx))
	})
}

// tokenEndpoint lets through the two grants of this issuer only: op knows more (JWT bearer,
// token exchange, client credentials, device code) that must stay closed here.
func (p *Provider) tokenEndpoint() http.Handler {
	return boundForm(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			op.RequestError(w, r, oidc.ErrInvalidRequest().WithDescription("the request body is not a form of at most 16 KiB"), nil)
			return
		}
		// The one client is public: op would take a client assertion on the refresh grant to
		// a plain error (500) rather than invalid_client.
		if r.PostForm.Has("client_assertion") || r.PostForm.Has("client_assertion_type") {
			op.RequestError(w, r, oidc.ErrInvalidClient().WithDescription("this issuer takes no client assertions: its client %s is public, with no credentials", WebClientID), nil)
			return
		}
		switch g := r.PostForm.Get("grant_type"); oidc.GrantType(g) {
		case oidc.GrantTypeCode, oidc.GrantTypeRefreshToken:
			p.op.ServeHTTP(w, r)
		case "":
			op.RequestError(w, r, oidc.ErrInvalidRequest().WithDescription("grant_type is missing"), nil)
		default:
			op.RequestError(w, r, oidc.ErrUnsupportedGrantType().WithDescription("grant_type must be authorization_code or refresh_token"), nil)
		}
	}))
}

// boundForm caps a form body and its reading time, before anything reads it.
func boundForm(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, oauthBodyMax)
		next.ServeHTTP(w, r)
	})
}

// formActionSources lists the origins a page's forms may lead to: itself, and every redirect
// URI's origin.
func formActionSources(base string, redirects []string) string {
	sources := []string{"'self'"}
	for _, r := range append([]string{base}, redirects...) {
		if u, err := url.Parse(r); err == nil {
			o := u.Scheme + "://" + u.Host
			if !slices.Contains(sources, o) {
				sources = append(sources, o)
			}
		}
	}
	return strings.Join(sources, " ")
}

func peerHost(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
