package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"

	"hearth/web/webtest"
)

// TestSecretsAreStoredOnlyHashed: what proves who someone is never rests in the database or the
// data directory: not an account's password, not a refresh token (the one spent and the one
// in use), not a bot's token. A backup carries the whole database and every file beside it,
// so none of them may appear in one, while the account and the bot still work after it.
func TestSecretsAreStoredOnlyHashed(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	const password = "a passphrase nobody stores"
	first := s.SignUp(t, "bob", password, nil)
	second, status := s.Refresh(t, first.RefreshToken)
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %+v", status, second)
	}
	bot := s.CreateBot(owner, "helper")

	gz, err := gzip.NewReader(bytes.NewReader(backupOver(t, s.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	everything, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	// The scan sees the database: the bot's username is there.
	if !bytes.Contains(everything, []byte("helper")) {
		t.Fatal("the backup does not show the database's rows")
	}
	for what, secret := range map[string]string{
		"the password":                password,
		"the spent refresh token":     first.RefreshToken,
		"the refresh token in use":    second.RefreshToken,
		"the bot's token":             bot.Token,
		"the access token":            second.AccessToken,
		"the bot token's random part": bot.Token[len("hb_"):],
	} {
		if secret == "" || bytes.Contains(everything, []byte(secret)) {
			t.Errorf("%s (%q) is in the backup of the data directory", what, secret)
		}
	}
	if me(t, s, s.SignIn(t, "bob", password)).GetUsername() != "bob" {
		t.Fatal("bob cannot sign in")
	}
}
