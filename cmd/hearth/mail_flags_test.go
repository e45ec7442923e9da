package main

import (
	"strings"
	"testing"
)

// TestMailFlags: -smtp-url and -mail-from go together, and a bad one stops the start in one
// line that never shows the SMTP password.
func TestMailFlags(t *testing.T) {
	for _, tc := range []struct {
		url, from, want string
	}{
		{"", "", ""},
		{"smtps://hearth:s3cret@mail.example.com", "Hearth <chat@example.com>", ""},
		{"smtp://127.0.0.1:25", "chat@example.com", ""},
		{"smtp://mail.example.com", "", "-smtp-url needs -mail-from"},
		{"", "chat@example.com", "-mail-from needs -smtp-url"},
		{"http://hearth:s3cret@mail.example.com", "chat@example.com", "must start with smtp://"},
		{"smtp://mail.example.com", "not an address", "-mail-from \"not an address\" is not an email address"},
	} {
		c := Config{SMTPURL: tc.url, MailFrom: tc.from}
		err := c.checkMail()
		if (err == nil) != (tc.want == "") || (err != nil && (!strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret"))) {
			t.Errorf("-smtp-url %q -mail-from %q: %v, want %q", tc.url, tc.from, err, tc.want)
		}
	}
}
