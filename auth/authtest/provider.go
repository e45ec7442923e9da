package authtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Provider is a small OpenID provider on loopback, for the browser client's sign-in with an
// external issuer: discovery with authorization and token endpoints, a JWKS, authorization
// code with PKCE (S256) for one public client. Its authorization endpoint signs in its one
// person at once, as a real provider does after its own login page. Access tokens are RS256
// JWTs for the audience given.
type Provider struct {
	keys *Issuer // its key and JWKS
	srv  *httptest.Server

	mu          sync.Mutex
	clientID    string
	redirectURI string
	subject     string
	audience    string
	codes       map[string]providerCode
}

type providerCode struct {
	challenge   string
	redirectURI string
}

// NewProvider starts a provider for one client: clientID, allowed to redirect to redirectURI
// only, signing in subject. It stops when the test ends.
func NewProvider(t testing.TB, clientID, redirectURI, subject string) *Provider {
	t.Helper()
	p := &Provider{keys: NewIssuer(t), clientID: clientID, redirectURI: redirectURI, subject: subject, codes: map[string]providerCode{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// URL is the issuer URL.
func (p *Provider) URL() string { return p.srv.URL }

// SetAudience sets the aud of the access tokens (the Hearth server's base URL).
func (p *Provider) SetAudience(aud string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.audience = aud
}

// SetRedirectURI changes the one redirect URI the client may use.
func (p *Provider) SetRedirectURI(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redirectURI = u
}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.URL(),
		"jwks_uri":                              p.URL() + "/jwks",
		"authorization_endpoint":                p.URL() + "/authorize",
		"token_endpoint":                        p.URL() + "/token",
		"response_types_supported":              []string{"code"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	p.keys.mu.Lock()
	set, err := p.keys.jwksDocument()
	p.keys.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, set)
}

func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	// As every provider: a bad client or redirect URI is an error page, never a redirect.
	if q.Get("client_id") != p.clientID || q.Get("redirect_uri") != p.redirectURI {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(p.redirectURI)
	v := url.Values{"state": {q.Get("state")}}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		v.Set("error", "invalid_request")
	} else {
		code := rand.Text()
		p.codes[code] = providerCode{challenge: q.Get("code_challenge"), redirectURI: p.redirectURI}
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	p.mu.Lock()
	c, ok := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code"))
	aud, sub := p.audience, p.subject
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	if f.Get("grant_type") != "authorization_code" || !ok || f.Get("client_id") != p.clientID ||
		f.Get("redirect_uri") != c.redirectURI || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	now := time.Now()
	tok := p.keys.Sign(map[string]any{
		"iss":                p.URL(),
		"sub":                sub,
		"aud":                []string{aud},
		"iat":                now.Unix(),
		"exp":                now.Add(time.Hour).Unix(),
		"preferred_username": sub,
	})
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
