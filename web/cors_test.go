package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// preflight sends a CORS preflight for method on path of the server at base, from origin.
func preflight(t *testing.T, base, path, origin, method, headers string) *http.Response {
	t.Helper()
	r, err := http.NewRequest(http.MethodOptions, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Origin", origin)
	r.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		r.Header.Set("Access-Control-Request-Headers", headers)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// withOrigin sends the Origin header a browser adds to a cross-origin call.
func withOrigin(origin string, got *http.Header) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx2 context.Context, r connect.AnyRequest) (connect.AnyResponse, error) {
			r.Header().Set("Origin", origin)
			res, err := next(ctx2, r)
			if res != nil {
				*got = res.Header()
			}
			var ce *connect.Error
			if errors.As(err, &ce) {
				*got = ce.Meta()
			}
			return res, err
		}
	})
}

func TestCORSPreflightsAndHeaders(t *testing.T) {
	t.Parallel()
	s, owner := newOpenCommunity(t)
	const origin = "https://client.example.org"
	for _, tc := range []struct{ path, method, headers string }{
		{"/svc.v1.ServerService/GetMe", "POST", "authorization,connect-protocol-version,connect-timeout-ms,content-type"},
		{"/svc.v1.ChatService/Subscribe", "POST", "authorization,content-type,x-grpc-web,x-user-agent"},
		{"/upload", "POST", "authorization"},
		{"/emoji", "GET", "authorization,if-none-match"},
		{"/emoji", "POST", "authorization"},
		{"/emoji.zip", "GET", "authorization"},
		{"/oauth/token", "POST", "content-type"},
		{"/oauth/revoke", "POST", ""},
		{"/oauth/issuers", "GET", ""},
		{"/.well-known/openid-configuration", "GET", ""},
	} {
		res := preflight(t, s.URL, tc.path, origin, tc.method, tc.headers)
		h := res.Header
		if res.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), tc.method) || h.Get("Access-Control-Max-Age") != "7200" {
			t.Fatalf("preflight %s: %d %v", tc.path, res.StatusCode, h)
		}
		if tc.headers != "" && !strings.EqualFold(h.Get("Access-Control-Allow-Headers"), tc.headers) {
			t.Fatalf("preflight %s allows headers %q, want %q", tc.path, h.Get("Access-Control-Allow-Headers"), tc.headers)
		}
		if h.Get("Access-Control-Allow-Credentials") != "" {
			t.Fatalf("preflight %s allows credentials", tc.path)
		}
	}
	// An actual call: the answer carries the CORS headers, errors too.
	var got http.Header
	c := s.Client(owner.Token, connect.WithInterceptors(withOrigin(origin, &got)))
	if _, err := c.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatal(err)
	}
	if got.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(got.Get("Access-Control-Expose-Headers"), "Grpc-Status") || !strings.Contains(got.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Fatalf("call headers = %v", got)
	}
	anon := s.Client("", connect.WithInterceptors(withOrigin(origin, &got)))
	if _, err := anon.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); codeOf(err) != connect.CodeUnauthenticated {
		t.Fatal(err)
	}
	if got.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("error headers = %v", got)
	}
	// GET /emoji lets a client on another origin read its ETag.
	r, _ := http.NewRequest(http.MethodGet, s.URL+"/emoji", nil)
	r.Header.Set("Authorization", "Bearer "+owner.Token)
	r.Header.Set("Origin", origin)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("ETag") == "" || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Etag") {
		t.Fatalf("GET /emoji: %d %v", res.StatusCode, res.Header)
	}
	// The token endpoint answers cross-origin too.
	r, _ = http.NewRequest(http.MethodPost, s.URL+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {"hearth-web"}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", origin)
	res, err = http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("token endpoint: %d %v", res.StatusCode, res.Header)
	}
}

func TestCORSOriginRestriction(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	s.SetCORSOrigins("https://chat.example.net", "http://localhost:5173")
	for origin, allowed := range map[string]bool{
		"https://chat.example.net":  true,
		"http://localhost:5173":     true,
		"https://evil.example":      false,
		"http://chat.example.net":   false,
		"https://chat.example.net.": false,
	} {
		h := preflight(t, s.URL, "/svc.v1.ServerService/GetServerInfo", origin, "POST", "content-type").Header
		want := ""
		if allowed {
			want = origin
		}
		if h.Get("Access-Control-Allow-Origin") != want {
			t.Fatalf("origin %s: Access-Control-Allow-Origin %q, want %q", origin, h.Get("Access-Control-Allow-Origin"), want)
		}
		if allowed && !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
			t.Fatalf("origin %s: no Vary: Origin", origin)
		}
	}
}

// TestCORSNeverReachesPagesOrCookies: the sign-in forms, signed files, invite redirects and
// /healthz are same-origin only, and nothing anywhere allows credentials.
func TestCORSNeverReachesPagesOrCookies(t *testing.T) {
	t.Parallel()
	s, _ := newOpenCommunity(t)
	for _, p := range []string{"/oauth/login", "/oauth/password", "/healthz", "/invite/ABCDEFGHIJ", "/files/x/y"} {
		res := preflight(t, s.URL, p, "https://evil.example", "POST", "")
		if v := res.Header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Fatalf("%s answers a preflight with Allow-Origin %q", p, v)
		}
	}
	r, _ := http.NewRequest(http.MethodGet, s.URL+"/healthz", nil)
	r.Header.Set("Origin", "https://evil.example")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Set-Cookie") != "" {
		t.Fatalf("/healthz: %v", res.Header)
	}
}
