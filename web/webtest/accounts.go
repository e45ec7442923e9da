package webtest

import (
	"context"
	"strings"
	"testing"

	"hearth/auth"
	"hearth/engine"
	"hearth/engine/mail"
	"hearth/engine/mail/mailtest"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
)

// WithLocalhost serves the test server as http://localhost:PORT instead of 127.0.0.1: browsers
// take passkeys on a domain only, and localhost is one they trust over http.
func WithLocalhost() Option {
	return func(o *engine.Options) { o.BaseURL = strings.Replace(o.BaseURL, "://127.0.0.1:", "://localhost:", 1) }
}

// WithMail points the server's mail at a loopback SMTP server (mailtest), as -smtp-url would.
func WithMail(ms *mailtest.Server) func(*web.Config) {
	return func(c *web.Config) {
		c.Mail = mail.Config{URL: ms.URL(), From: "Hearth <chat@example.com>", TLS: ms.Roots}
	}
}

// SeedTwoStepRank sets ModerationSettings.require_2fa_rank, as UpdateModerationSettings does.
func (s *Server) SeedTwoStepRank(t testing.TB, rank svcv1.MemberRole) {
	t.Helper()
	s.Seed(func(b *store.Batch) error {
		st, err := b.Settings()
		if err != nil {
			return err
		}
		if st.Moderation == nil {
			st.Moderation = &svcv1.ModerationSettings{}
		}
		st.Moderation.Require_2FaRank = rank
		return b.PutSettings(st)
	})
}

// SignInProvider is the built-in issuer's sign-in of the running server.
func (s *Server) SignInProvider() *auth.Provider { return s.app.SignIn }

// AccountSubject is the subject of the account username (the login's sub).
func (s *Server) AccountSubject(t testing.TB, username string) string {
	t.Helper()
	acc, err := s.app.Accounts().AccountByUsername(context.Background(), username)
	if err != nil {
		t.Fatal(err)
	}
	return acc.Subject
}
