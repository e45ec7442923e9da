package web_test

import (
	"net/http"
	"strings"
	"testing"

	"hearth/web/webtest"
)

// TestSignInEndpointsHaveSmallBodies: the built-in issuer's endpoints take a form without a
// token (DECISIONS.md, "Hardening"), so each reads a bounded body: a token or revocation
// request at most 16 KiB, a page's form at most 128 KiB. A client that declares 10 MB is
// answered 400 once the bound is passed, not when its body ends, and its connection closes.
func TestSignInEndpointsHaveSmallBodies(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	const form = "Content-Type: application/x-www-form-urlencoded"
	for _, tc := range []struct {
		path, says string
	}{
		{"/oauth/token", "at most 16 KiB"},
		{"/oauth/revoke", ""},
		{"/oauth/login", "larger than 128 KiB"},
		{"/oauth/password", "larger than 128 KiB"},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/oauth/"), func(t *testing.T) {
			c := dialRaw(t, s)
			c.head(tc.path, 10_000_000, form)
			go func() {
				chunk := []byte("a=" + strings.Repeat("x", 32<<10-2))
				for range 8 {
					if c.send(chunk) != nil {
						return
					}
				}
			}()
			res, body := c.answer()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.says) || !res.Close {
				t.Fatalf("POST %s of 10 MB: %d %q, connection close %v; want 400 saying %q, and a close", tc.path, res.StatusCode, body, res.Close, tc.says)
			}
		})
	}
}
