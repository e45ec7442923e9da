package mail_test

import (
	"context"
	"strings"
	"testing"

	"hearth/engine/mail"
	"hearth/engine/mail/mailtest"
)

func newMailer(t *testing.T, s *mailtest.Server) *mail.Mailer {
	t.Helper()
	m, err := mail.New(mail.Config{URL: s.URL(), From: "Hearth <chat@example.com>", TLS: s.Roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func TestSendOverEachKindOfConnection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    mailtest.Options
		wantTLS bool
	}{
		{"loopback relay without TLS", mailtest.Options{Mode: mailtest.Plain}, false},
		{"STARTTLS with a password", mailtest.Options{Mode: mailtest.StartTLS, User: "hearth", Pass: "s3cret"}, true},
		{"implicit TLS with a password", mailtest.Options{Mode: mailtest.Implicit, User: "hearth", Pass: "s3cret"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mailtest.Start(t, tc.opts)
			m := newMailer(t, s)
			err := m.Send(context.Background(), mail.Message{
				To: "ana@example.org", Subject: "Reset your password on Hearth",
				Text: "Open https://chat.example.com/oauth/reset?token=abc to choose a new password.",
				HTML: "<p>Open <a href=\"https://chat.example.com/oauth/reset?token=abc\">this link</a>.</p>",
			})
			if err != nil {
				t.Fatal(err)
			}
			got := s.Wait(t, 1)
			if got.From != "chat@example.com" || len(got.To) != 1 || got.To[0] != "ana@example.org" ||
				got.Subject != "Reset your password on Hearth" || got.TLS != tc.wantTLS || got.Authed != tc.opts.User ||
				!strings.Contains(got.HTML, "this link") {
				t.Fatalf("got %+v", got)
			}
			if l := got.Link(t, "/oauth/reset"); l != "https://chat.example.com/oauth/reset?token=abc" {
				t.Fatalf("link %q", l)
			}
		})
	}
}

func TestWrongPasswordIsAnError(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{Mode: mailtest.StartTLS, User: "hearth", Pass: "right"})
	m, err := mail.New(mail.Config{URL: "smtp://hearth:wrong@" + s.Addr, From: "chat@example.com", TLS: s.Roots})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	err = m.Send(context.Background(), mail.Message{To: "ana@example.org", Subject: "x", Text: "y"})
	if err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("err = %v (it must fail, and never show the password)", err)
	}
}

// TestStartTLSIsRequiredBeyondLoopback: to a server on another host, smtp:// refuses to send
// in the clear (the password and the reset links would cross the network readable); a relay
// on the same machine may offer no TLS (TestSendOverEachKindOfConnection sends to one).
func TestStartTLSIsRequiredBeyondLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"smtp://mail.example.com:587": true,
		"smtps://127.0.0.1:465":       true,
		"smtp://127.0.0.1:25":         false,
		"smtp://[::1]:25":             false,
		"smtp://localhost":            false,
	} {
		if got := mail.TLSRequired(u); got != want {
			t.Errorf("TLSRequired(%s) = %v, want %v", u, got, want)
		}
	}
}

func TestEnqueueDelivers(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{})
	m := newMailer(t, s)
	for i := range 3 {
		if !m.Enqueue(mail.Message{To: "bo@example.org", Subject: "n" + string(rune('0'+i)), Text: "hello"}) {
			t.Fatal("enqueue refused")
		}
	}
	for i := 1; i <= 3; i++ {
		s.Wait(t, i)
	}
	if m.Enqueue(mail.Message{To: "not an address", Subject: "x", Text: "y"}) {
		t.Fatal("a malformed message was queued")
	}
}

func TestParseURLAndAddresses(t *testing.T) {
	for _, bad := range []string{"http://mail.example.com", "smtp://", "smtp://mail.example.com:0", "smtp://mail.example.com/x", "smtp://u:secret@mail.example.com:99999"} {
		if _, _, _, err := mail.ParseURL(bad); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseURL(%q) = %v", bad, err)
		}
	}
	if h, p, tls, err := mail.ParseURL("smtps://u:p@mail.example.com"); err != nil || h != "mail.example.com" || p != 465 || !tls {
		t.Fatalf("smtps: %s %d %v %v", h, p, tls, err)
	}
	if _, p, tls, err := mail.ParseURL("smtp://mail.example.com"); err != nil || p != 587 || tls {
		t.Fatalf("smtp: %d %v %v", p, tls, err)
	}
	if a, err := mail.CheckAddress(" Ana@Example.ORG "); err != nil || a != "Ana@example.org" {
		t.Fatalf("CheckAddress = %q %v", a, err)
	}
	for _, bad := range []string{"", "ana", "Ana <ana@example.org>", "ana@example", strings.Repeat("a", 250) + "@example.org"} {
		if _, err := mail.CheckAddress(bad); err == nil {
			t.Errorf("CheckAddress(%q) took it", bad)
		}
	}
}
