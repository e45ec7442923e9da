package auth

import (
	"errors"
	"strings"
	"unicode"
)

// The kinds of Verify failure, for errors.Is. The message of a returned error is more
// specific (it names the issuer, the algorithm, the audience) and is meant for the client.
var (
	ErrMalformed       = errors.New("malformed token")
	ErrAlgorithm       = errors.New("unsupported signing algorithm")
	ErrUntrustedIssuer = errors.New("issuer is not trusted")
	ErrUnknownKey      = errors.New("unknown signing key")
	ErrSignature       = errors.New("invalid token signature")
	ErrExpired         = errors.New("token expired")
	ErrNotYetValid     = errors.New("token is not valid yet")
	ErrAudience        = errors.New("token audience does not include the server")
	ErrMissingClaim    = errors.New("token lacks a required claim")
	ErrKeysUnavailable = errors.New("the issuer's signing keys are unavailable")
	ErrNotAccessToken  = errors.New("an ID token is not an access token")
	errStopped         = errors.New("the verifier has stopped")
)

// checkError is a failed check: a message for the client, a kind for errors.Is, and for
// network failures the cause.
type checkError struct {
	kind  error
	msg   string
	cause error
}

func (e *checkError) Error() string        { return e.msg }
func (e *checkError) Is(target error) bool { return target == e.kind }
func (e *checkError) Unwrap() error        { return e.cause }

func fail(kind error, msg string) error {
	return &checkError{kind: kind, msg: msg}
}

// printable keeps text taken from a token (an issuer, an algorithm name) from carrying
// control characters or kilobytes into messages and logs.
func printable(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
}
