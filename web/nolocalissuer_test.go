package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/auth/authtest"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// TestNoLocalIssuerTurnsTheBuiltInIssuerOff: with -no-local-issuer the server is no issuer:
// no discovery document or keys of its own, no sign-in, token or password endpoints (no
// accounts), no built-in issuer in /oauth/issuers or GetServerInfo, and a token signed with
// its data directory's issuer-key (what `hearth token` prints) is refused. A trusted issuer's
// token works as before.
func TestNoLocalIssuerTurnsTheBuiltInIssuerOff(t *testing.T) {
	t.Parallel()
	ext := authtest.NewIssuer(t)
	data := t.TempDir()
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	// A key left from when the server was its own issuer.
	local, err := auth.LoadOrCreateIssuer(data, base, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.Open(context.Background(), web.Config{
		Data:             data,
		Engine:           engine.Options{BaseURL: base, TrustedIssuers: []string{ext.URL()}},
		NoLocalIssuer:    true,
		IssuerHTTPClient: http.DefaultClient,
		PasswordParams:   webtest.TestPasswordParams,
		Log:              webtest.Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config = s.HTTPServer()
	hs.Start()
	t.Cleanup(func() {
		s.CloseStreams()
		hs.Close()
		s.Close()
	})
	if s.Issuer != nil {
		t.Fatal("web.Open made a local issuer with NoLocalIssuer")
	}

	for _, r := range []struct{ method, path string }{
		{"GET", "/.well-known/openid-configuration"},
		{"GET", "/.well-known/jwks.json"},
		{"GET", "/oauth/authorize?response_type=code&client_id=hearth-web"},
		{"POST", "/oauth/token"},
		{"POST", "/oauth/revoke"},
		{"GET", "/oauth/login"},
		{"POST", "/oauth/login"},
		{"GET", "/oauth/password"},
	} {
		req, _ := http.NewRequest(r.method, base+r.path, strings.NewReader("grant_type=refresh_token"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s with -no-local-issuer: %d, want 404", r.method, r.path, res.StatusCode)
		}
	}
	res, err := http.Get(base + "/oauth/issuers")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.Contains(string(body), "built_in") || strings.Contains(string(body), base) {
		t.Errorf("/oauth/issuers with -no-local-issuer: %d %s", res.StatusCode, body)
	}

	info, err := serverClientAt(base, "").GetServerInfo(context.Background(), connect.NewRequest(&svcv1.GetServerInfoRequest{}))
	if err != nil || len(info.Msg.GetTrustedIssuers()) != 1 || info.Msg.GetTrustedIssuers()[0] != ext.URL() {
		t.Fatalf("GetServerInfo's trusted issuers with -no-local-issuer: %v %v", info, err)
	}
	mine, err := local.Mint("alice", "Alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serverClientAt(base, mine).Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("Join with a token of the server's own key under -no-local-issuer: %v, want unauthenticated", err)
	}
	if _, err := serverClientAt(base, ext.Token("victor", base, time.Hour)).Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatalf("Join with the trusted issuer's token: %v", err)
	}
}

// serverClientAt is a ServerService client of the server at base, sending token unless empty.
func serverClientAt(base, token string) svcv1connect.ServerServiceClient {
	var opts []connect.ClientOption
	if token != "" {
		opts = append(opts, connect.WithInterceptors(auth.WithBearer(token)))
	}
	return svcv1connect.NewServerServiceClient(http.DefaultClient, base, opts...)
}
