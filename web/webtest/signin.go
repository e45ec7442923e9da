package webtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Response is an HTTP answer, read.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Location is the answer's Location header, parsed.
func (r Response) Location(t testing.TB) *url.URL {
	t.Helper()
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil || r.Header.Get("Location") == "" {
		t.Fatalf("no usable Location (status %d, %q): %s", r.Status, r.Header.Get("Location"), r.Body)
	}
	return u
}

// Tokens is a token endpoint's successful answer.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// OAuth plays the browser client's part of the built-in issuer's sign-in: it sends what a
// browser sends and follows no redirect by itself, so tests see every step.
type OAuth struct {
	s           *Server
	http        *http.Client
	RedirectURI string
	Verifier    string
	State       string
	// Header is sent with every request (X-Forwarded-For, as a proxy in front would add).
	Header http.Header
}

// OAuth starts a sign-in as the embedded client ({base_url}/app/), with a fresh PKCE verifier
// and state.
func (s *Server) OAuth() *OAuth {
	// A browser keeps cookies: the device cookie of a completed sign-in, the account page's
	// session.
	jar, _ := cookiejar.New(nil)
	return &OAuth{
		s: s,
		http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		RedirectURI: s.URL + "/app/",
		Verifier:    rand.Text() + rand.Text(),
		State:       rand.Text(),
	}
}

// Challenge is the S256 code challenge of the verifier.
func (o *OAuth) Challenge() string {
	h := sha256.Sum256([]byte(o.Verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// AuthorizeQuery is a complete authorization request; extra values replace or add to it (an
// empty value removes one).
func (o *OAuth) AuthorizeQuery(extra url.Values) url.Values {
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {"hearth-web"},
		"redirect_uri":          {o.RedirectURI},
		"scope":                 {"openid offline_access"},
		"state":                 {o.State},
		"code_challenge":        {o.Challenge()},
		"code_challenge_method": {"S256"},
	}
	for k, v := range extra {
		if len(v) == 1 && v[0] == "" {
			q.Del(k)
			continue
		}
		q[k] = v
	}
	return q
}

// Get sends a GET to path (relative to the server) or to an absolute URL.
func (o *OAuth) Get(t testing.TB, target string) Response {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = o.s.URL + target
	}
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.addHeader(req)
	res, err := o.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readResponse(t, res)
}

// Post sends a form to path, as a browser on the server's page does (Origin included).
func (o *OAuth) Post(t testing.TB, path string, form url.Values) Response {
	t.Helper()
	return o.PostFrom(t, o.s.URL, path, form)
}

// PostFrom sends a form with the given Origin header (none when empty).
func (o *OAuth) PostFrom(t testing.TB, origin, path string, form url.Values) Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, o.s.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	o.addHeader(req)
	res, err := o.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readResponse(t, res)
}

func (o *OAuth) addHeader(req *http.Request) {
	for k, v := range o.Header {
		req.Header[k] = v
	}
}

func readResponse(t testing.TB, res *http.Response) Response {
	t.Helper()
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(body)}
}

var requestID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// Start sends the authorization request, follows its redirect to the sign-in page and returns
// the page's request id.
func (o *OAuth) Start(t testing.TB, extra url.Values) string {
	t.Helper()
	res := o.Get(t, "/oauth/authorize?"+o.AuthorizeQuery(extra).Encode())
	if res.Status != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.Status, res.Body)
	}
	page := o.Get(t, res.Location(t).String())
	if page.Status != http.StatusOK {
		t.Fatalf("sign-in page: %d %s", page.Status, page.Body)
	}
	return RequestID(t, page)
}

// RequestID is the authorization request id in a sign-in page's form.
func RequestID(t testing.TB, page Response) string {
	t.Helper()
	m := requestID.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("the sign-in page has no request id: %s", page.Body)
	}
	return m[1]
}

// Submit posts the sign-in page's form for request id.
func (o *OAuth) Submit(t testing.TB, id string, form url.Values) Response {
	t.Helper()
	f := url.Values{"id": {id}}
	for k, v := range form {
		f[k] = v
	}
	return o.Post(t, "/oauth/login", f)
}

// Code reads the code of a redirect back to the client, checking that it goes to the
// redirect URI with the request's state.
func (o *OAuth) Code(t testing.TB, res Response) string {
	t.Helper()
	if res.Status != http.StatusFound {
		t.Fatalf("want a redirect back to the client, got %d: %s", res.Status, res.Body)
	}
	u := res.Location(t)
	q := u.Query()
	u.RawQuery = ""
	if u.String() != o.RedirectURI || q.Get("state") != o.State || q.Get("code") == "" {
		t.Fatalf("redirect to %s, want %s with state %s and a code", res.Header.Get("Location"), o.RedirectURI, o.State)
	}
	return q.Get("code")
}

// Exchange trades a code for tokens with the verifier. The status is the token endpoint's.
func (o *OAuth) Exchange(t testing.TB, code string) (Tokens, int) {
	t.Helper()
	return o.s.TokenRequest(t, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {o.RedirectURI},
		"client_id":     {"hearth-web"},
		"code_verifier": {o.Verifier},
	})
}

// TokenRequest posts a form to the token endpoint.
func (s *Server) TokenRequest(t testing.TB, form url.Values) (Tokens, int) {
	t.Helper()
	res, err := http.PostForm(s.URL+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	r := readResponse(t, res)
	var tok Tokens
	if err := json.Unmarshal([]byte(r.Body), &tok); err != nil {
		t.Fatalf("token endpoint answered %d, not JSON: %s", r.Status, r.Body)
	}
	return tok, r.Status
}

// Refresh trades a refresh token for new tokens.
func (s *Server) Refresh(t testing.TB, refreshToken string) (Tokens, int) {
	t.Helper()
	return s.TokenRequest(t, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {refreshToken},
		"client_id":     {"hearth-web"},
	})
}

// SignUp creates an account through the sign-up page (form values beside the username and
// password: display_name, invite, answer...) and returns its tokens.
func (s *Server) SignUp(t testing.TB, username, password string, form url.Values) Tokens {
	t.Helper()
	o := s.OAuth()
	id := o.Start(t, nil)
	f := url.Values{"action": {"signup"}, "username": {username}, "password": {password}, "password2": {password}}
	for k, v := range form {
		f[k] = v
	}
	return o.Finish(t, o.Submit(t, id, f))
}

// SignIn signs in with a username and password and returns the tokens.
func (s *Server) SignIn(t testing.TB, username, password string) Tokens {
	t.Helper()
	o := s.OAuth()
	id := o.Start(t, nil)
	return o.Finish(t, o.Submit(t, id, url.Values{"action": {"signin"}, "username": {username}, "password": {password}}))
}

// Finish takes the code of a redirect back to the client and exchanges it.
func (o *OAuth) Finish(t testing.TB, res Response) Tokens {
	t.Helper()
	tok, status := o.Exchange(t, o.Code(t, res))
	if status != http.StatusOK {
		t.Fatalf("token exchange: %d %+v", status, tok)
	}
	return tok
}
