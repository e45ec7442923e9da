package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"hearth/web"
	"hearth/web/webtest"
)

// accountSignIn signs o's browser in to the account page with a password (no second step).
func accountSignIn(t *testing.T, o *webtest.OAuth, username, password string) {
	t.Helper()
	page := o.Get(t, "/oauth/account")
	if page.Status != http.StatusOK {
		t.Fatalf("account page: %d %s", page.Status, page.Body)
	}
	res := o.Post(t, "/oauth/login", url.Values{"id": {webtest.RequestID(t, page)}, "action": {"signin"}, "username": {username}, "password": {password}})
	if res.Status != http.StatusFound || res.Header.Get("Location") != "/oauth/account" {
		t.Fatalf("account sign-in: %d to %q: %s", res.Status, res.Header.Get("Location"), res.Body)
	}
}

// webConfig is the server's configuration, for the tests that change it.
type webConfig = web.Config
