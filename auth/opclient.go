package auth

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// WebClientID is the client id of the browser client at the built-in issuer: a public client
// (no secret) that must use PKCE.
const WebClientID = "hearth-web"

// webClient is the one client of the built-in issuer.
type webClient struct {
	redirects []string
	loginURL  string
	devMode   bool
}

// newWebClient allows exactly two redirect URIs: {base_url}/app/ (the embedded client) and
// {web_url}/ (wherever -web-url serves it), each the client's page without query or fragment.
func newWebClient(baseURL, webURL string) *webClient {
	redirects := []string{baseURL + "/app/"}
	if w := strings.TrimSuffix(webURL, "/") + "/"; webURL != "" && !slices.Contains(redirects, w) {
		redirects = append(redirects, w)
	}
	c := &webClient{redirects: redirects, loginURL: baseURL + loginPath + "?id="}
	for _, r := range redirects {
		// op refuses http redirect URIs of browser clients unless in "dev mode", which changes
		// nothing else: an http base URL (a LAN, a test) needs it, and the exact match of the
		// URI is required either way.
		if u, err := url.Parse(r); err == nil && u.Scheme == "http" {
			c.devMode = true
		}
	}
	return c
}

func (c *webClient) GetID() string                       { return WebClientID }
func (c *webClient) RedirectURIs() []string              { return c.redirects }
func (c *webClient) PostLogoutRedirectURIs() []string    { return c.redirects }
func (c *webClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeUserAgent }
func (c *webClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c *webClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *webClient) LoginURL(id string) string            { return c.loginURL + url.QueryEscape(id) }
func (c *webClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *webClient) IDTokenLifetime() time.Duration       { return accessTokenTTL }
func (c *webClient) DevMode() bool                        { return c.devMode }
func (c *webClient) IsScopeAllowed(string) bool           { return false }
func (c *webClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *webClient) ClockSkew() time.Duration             { return 0 }
func (c *webClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}

func (c *webClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

func (c *webClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// authRequest is one authorization request, from the authorize redirect until its code is
// exchanged (op.AuthRequest).
type authRequest struct {
	id       string
	created  time.Time
	req      oidc.AuthRequest
	audience []string
	// invite is the extra authorization parameter that pre-fills the sign-up's invite code.
	invite string
	// addr is the client address (group) the request came from; order its place among the
	// requests made, oldest first.
	addr  string
	net   string
	order uint64
	// forAccount: the request signs in to the account page, not to a client (no op request).
	forAccount bool

	// Set by the sign-in page once the person is signed in.
	subject  string
	authTime time.Time
	done     bool

	// code is the one code made for the request; family the refresh token family its
	// exchange began, so that a second use of the code revokes it.
	code      string
	codeSpent bool
	family    string

	// The sign-in in progress (under opStorage.mu): step is set once the password was right
	// and a second step is due (twostep.go).
	step     step
	ceremony *passkeyCeremony
	// amr says how the person signed in ("pwd", "otp", "hwk"); userAgent and device are the
	// browser's that completed the sign-in (its devices row).
	amr       []string
	userAgent string
	device    string
}

func (a *authRequest) GetID() string                      { return a.id }
func (a *authRequest) GetACR() string                     { return "" }
func (a *authRequest) GetAMR() []string                   { return a.amr }
func (a *authRequest) GetAudience() []string              { return a.audience }
func (a *authRequest) GetAuthTime() time.Time             { return a.authTime }
func (a *authRequest) GetClientID() string                { return a.req.ClientID }
func (a *authRequest) GetNonce() string                   { return a.req.Nonce }
func (a *authRequest) GetRedirectURI() string             { return a.req.RedirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.req.ResponseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.req.ResponseMode }
func (a *authRequest) GetScopes() []string                { return a.req.Scopes }
func (a *authRequest) GetState() string                   { return a.req.State }
func (a *authRequest) GetSubject() string                 { return a.subject }
func (a *authRequest) Done() bool                         { return a.done }

func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	return &oidc.CodeChallenge{Challenge: a.req.CodeChallenge, Method: a.req.CodeChallengeMethod}
}

// refreshRequest is a refresh token being exchanged (op.RefreshTokenRequest).
type refreshRequest struct {
	token    RefreshToken
	audience []string
	scopes   []string
	// refused is why the token cannot be exchanged, when it is unknown.
	refused error
}

func (r *refreshRequest) GetAMR() []string            { return r.token.AMR }
func (r *refreshRequest) GetAudience() []string       { return r.audience }
func (r *refreshRequest) GetAuthTime() time.Time      { return r.token.AuthTime }
func (r *refreshRequest) GetClientID() string         { return r.token.ClientID }
func (r *refreshRequest) GetScopes() []string         { return r.scopes }
func (r *refreshRequest) GetSubject() string          { return r.token.Subject }
func (r *refreshRequest) SetCurrentScopes(s []string) { r.scopes = s }
