package webtest

import (
	"context"
	"testing"
	"time"

	"hearth/auth"
)

// SetVerifiedEmail gives subject's login on the built-in issuer a verified address, as
// following the link mailed to it does (auth's tests and the account page's cover the link).
func (s *Server) SetVerifiedEmail(t testing.TB, subject, address string) {
	t.Helper()
	err := s.app.AccountSecurity().UpdateSecurity(context.Background(), subject, func(sec *auth.Security) error {
		sec.Email, sec.EmailVerifiedAt = address, time.Now()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// DigestPending is how many messages wait in a member's email digest.
func (s *Server) DigestPending(t testing.TB, memberID string) int {
	t.Helper()
	n, err := s.app.Notify.DigestPending(memberID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
