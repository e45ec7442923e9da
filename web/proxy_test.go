package web_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// withHeader sends a header with every unary call, as a proxy in front of the server would add.
func withHeader(name, value string) connect.ClientOption {
	return connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, r connect.AnyRequest) (connect.AnyResponse, error) {
			r.Header().Set(name, value)
			return next(ctx, r)
		}
	}))
}

// TestJoinLimitFollowsTheClientBehindATrustedProxy: behind a reverse proxy every join came from
// the proxy's address, so the whole community shared one address's 10 joins a minute. With
// -trusted-proxy the limit follows the client the proxy names; without it, or from a peer that
// is not trusted, the headers are ignored (anyone could pick their own address otherwise).
func TestJoinLimitFollowsTheClientBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("owner") // one join from 127.0.0.1
	join := func(sub, header, value string) error {
		c := s.Client(s.Token(sub), withHeader(header, value))
		_, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{}))
		return err
	}
	// Not trusted: the header names nobody, every join counts for 127.0.0.1.
	for i := range 9 {
		wantOK(t, "join behind no trusted proxy", join(fmt.Sprint("a", i), "X-Forwarded-For", "203.0.113.1"))
	}
	wantCode(t, "the 11th join from the peer, whatever it claims", join("b", "X-Forwarded-For", "198.51.100.2"), connect.CodeResourceExhausted, "joining: rate limit reached")

	s.SetTrustedProxies("127.0.0.1/32")
	for i := range 10 {
		wantOK(t, "join through the proxy", join(fmt.Sprint("c", i), "X-Forwarded-For", "203.0.113.1"))
	}
	wantCode(t, "the 11th join of one client", join("d", "X-Forwarded-For", "203.0.113.1"), connect.CodeResourceExhausted, "joining: rate limit reached")
	wantOK(t, "another client", join("e", "X-Forwarded-For", "198.51.100.2"))
	wantOK(t, "a client named by Forwarded", join("f", "Forwarded", `for="[2001:db8::1]:4711";proto=https`))
	// The client may send its own X-Forwarded-For: the proxy appends the address it saw, and only
	// that one, the rightmost not a trusted proxy, is believed.
	wantCode(t, "a forged hop to the left", join("g", "X-Forwarded-For", "198.51.100.9, 203.0.113.1"), connect.CodeResourceExhausted, "joining: rate limit reached")
}
