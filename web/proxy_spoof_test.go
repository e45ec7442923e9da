package web_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// withHeaders sends headers with every unary call, as a proxy in front of the server would
// pass them on.
func withHeaders(h map[string]string) connect.ClientOption {
	return connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, r connect.AnyRequest) (connect.AnyResponse, error) {
			for k, v := range h {
				r.Header().Set(k, v)
			}
			return next(ctx, r)
		}
	}))
}

// TestForgedForwardedBesideTheProxysHeaderIsNotBelieved: nginx, Caddy and Traefik append the
// client's address to X-Forwarded-For and pass a Forwarded header on as the client wrote it.
// A client behind such a proxy that writes its own Forwarded, a new address each time, must
// not get a new client address each time (Join's limit, sign-in's, the requests in flight
// before authentication all count by it): the two headers disagree, so neither is believed.
func TestForgedForwardedBesideTheProxysHeaderIsNotBelieved(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.SetTrustedProxies("127.0.0.1/32")
	join := func(sub string, h map[string]string) error {
		c := s.Client(s.Token(sub), withHeaders(h))
		_, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{}))
		return err
	}
	// The proxy saw 203.0.113.1 and says so in X-Forwarded-For; the client claims another
	// address in Forwarded on every join.
	for i := range 10 {
		wantOK(t, "join with a forged Forwarded", join(fmt.Sprint("a", i), map[string]string{
			"X-Forwarded-For": "203.0.113.1",
			"Forwarded":       fmt.Sprintf("for=198.51.100.%d", i+1),
		}))
	}
	wantCode(t, "the 11th join with a forged Forwarded", join("b", map[string]string{
		"X-Forwarded-For": "203.0.113.1",
		"Forwarded":       "for=198.51.100.99",
	}), connect.CodeResourceExhausted, "joining: rate limit reached")
	// The same holds the other way round, for a proxy that writes Forwarded.
	wantCode(t, "a forged X-Forwarded-For beside the proxy's Forwarded", join("c", map[string]string{
		"Forwarded":       "for=203.0.113.2",
		"X-Forwarded-For": "198.51.100.100",
	}), connect.CodeResourceExhausted, "joining: rate limit reached")
	// Headers that agree name the client: a client the proxy saw on its own is not held to
	// anyone else's limit.
	wantOK(t, "both headers naming one client", join("d", map[string]string{
		"Forwarded":       "for=203.0.113.3",
		"X-Forwarded-For": "203.0.113.3",
	}))
	wantOK(t, "a client named by the proxy's header alone", join("e", map[string]string{"X-Forwarded-For": "203.0.113.4"}))
}
