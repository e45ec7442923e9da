package auth

import (
	"errors"
	"net/http"
	"strings"
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
