package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth/authtest"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestAuthenticationRefusals sends one refused token per check through the real HTTP surface:
// each is unauthenticated, with a message that names the check and nothing more.
func TestAuthenticationRefusals(t *testing.T) {
	t.Parallel()
	trusted := authtest.NewIssuer(t)
	untrusted := authtest.NewIssuer(t)
	s := webtest.Start(t, func(o *engine.Options) { o.TrustedIssuers = []string{trusted.URL()} })
	now := time.Now()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{
			"iss": trusted.URL(),
			"sub": "mallory",
			"aud": []string{s.URL},
			"iat": now.Unix(),
			"exp": now.Add(time.Hour).Unix(),
		}
		if change != nil {
			change(c)
		}
		return c
	}
	for _, tc := range []struct {
		name, header, want string
	}{
		{"no token", "", "no Authorization header"},
		{"not a bearer token", "Basic YWxpY2U6c2VjcmV0", "Bearer"},
		{"garbage", "Bearer not-a-token", "malformed token"},
		{"expired", "Bearer " + trusted.Sign(claims(func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() })), "token expired"},
		{"wrong audience", "Bearer " + trusted.Sign(claims(func(c map[string]any) { c["aud"] = []string{"https://elsewhere.example"} })), "token audience does not include " + s.URL},
		{"untrusted issuer", "Bearer " + untrusted.Sign(claims(func(c map[string]any) { c["iss"] = untrusted.URL() })), "issuer " + untrusted.URL() + " is not trusted"},
		{"alg none", "Bearer " + trusted.SignNone(claims(nil)), "unsupported signing algorithm"},
		{"HS256 signed with the public key", "Bearer " + trusted.SignHS256WithPublicKey(claims(nil)), "unsupported signing algorithm HS256"},
		{"unknown kid", "Bearer " + trusted.SignWithUnknownKid(claims(nil)), "unknown signing key"},
		{"unknown bot token", "Bearer hb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "unknown bot token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := s.Client("", connect.WithInterceptors(header(tc.header)))
			_, err := c.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
			if codeOf(err) != connect.CodeUnauthenticated || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("GetMe: %v, want unauthenticated %q", err, tc.want)
			}
		})
	}
	if n := untrusted.Requests(); n != 0 {
		t.Fatalf("the server made %d requests to an untrusted issuer", n)
	}

	// A valid token of the external issuer joins; its preferred_username names the member.
	tok := trusted.Sign(claims(func(c map[string]any) { c["sub"] = "u-42"; c["preferred_username"] = "Grace Hopper" }))
	res, err := s.Client(tok).Server.Join(ctx, req(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Msg.GetMember().GetUsername(); got != "grace_hopper" {
		t.Fatalf("username from preferred_username = %q, want grace_hopper", got)
	}
	// A valid login that has not joined is refused with permission_denied, not unauthenticated.
	_, err = s.Client(s.Token("stranger")).Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if codeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "call Join first") {
		t.Fatalf("GetMe before Join: %v, want permission_denied", err)
	}
}

// header sets the Authorization header as given (or not at all).
type header string

func (h header) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(c context.Context, r connect.AnyRequest) (connect.AnyResponse, error) {
		if h != "" {
			r.Header().Set("Authorization", string(h))
		}
		return next(c, r)
	}
}

func (h header) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (h header) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
