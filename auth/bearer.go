package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"connectrpc.com/connect"
)

// BearerToken returns the token of an "Authorization: Bearer <token>" header. The error says
// what is wrong with the header, so a client developer can fix the request.
func BearerToken(h http.Header) (string, error) {
	values := h.Values("Authorization")
	switch {
	case len(values) == 0:
		return "", errors.New(`no Authorization header; send "Authorization: Bearer <token>"`)
	case len(values) > 1:
		// Two headers could be read differently by a proxy and by us; refuse the ambiguity.
		return "", errors.New("more than one Authorization header")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	// The scheme name is case-insensitive (RFC 9110, section 11.1).
	if !strings.EqualFold(scheme, "Bearer") {
		return "", errors.New(`the Authorization header must use the Bearer scheme: "Authorization: Bearer <token>"`)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", errors.New("the Authorization header has an empty bearer token")
	}
	return token, nil
}

// WithBearer is the client side of BearerToken: an interceptor that sends token as
// "Authorization: Bearer <token>" on every call and stream a client makes. An empty token
// sends no header, for calls made without logging in.
func WithBearer(token string) connect.Interceptor { return bearerClient(token) }

type bearerClient string

func (b bearerClient) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if b != "" {
			req.Header().Set("Authorization", "Bearer "+string(b))
		}
		return next(ctx, req)
	}
}

func (b bearerClient) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		if b != "" {
			conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		}
		return conn
	}
}

// WrapStreamingHandler leaves servers alone: WithBearer is for clients.
func (b bearerClient) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
