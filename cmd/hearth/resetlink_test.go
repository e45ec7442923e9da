package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResetLinkCommand: `hearth reset-link` prints a link for anyone, the owner included,
// through the running server's admin socket, and into the database of a stopped server; the
// link sets a new password once.
func TestResetLinkCommand(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	const base = "http://chat.test"
	srv, addr := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	signUpOwner(t, addr, base, "olga")

	out, errOut := hearthCmd(t, bin, 0, "reset-link", "-data", data, "-username", "Olga")
	link := strings.TrimSpace(out)
	if !strings.HasPrefix(link, base+"/oauth/reset?token=") || !strings.Contains(errOut, "A link for olga: it works once") {
		t.Fatalf("reset-link printed %q, %q", out, errOut)
	}
	useLink(t, addr, base, link, "olga", "the owner's new password")
	if _, body := get(t, strings.Replace(link, base, addr, 1)); !strings.Contains(body, "This link does not work (any more)") {
		t.Fatal("the link worked twice")
	}
	_, errOut = hearthCmd(t, bin, 1, "reset-link", "-data", data, "-username", "nobody")
	if !strings.Contains(errOut, `no account is named "nobody"`) {
		t.Fatalf("an unknown username: %q", errOut)
	}

	// With the server stopped, the command writes the link into the database itself.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.wait(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	out, _ = hearthCmd(t, bin, 0, "reset-link", "-data", data, "-username", "olga", "-base-url", base)
	link = strings.TrimSpace(out)
	_, addr = startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	useLink(t, addr, base, link, "olga", "a third password here")

	_, errOut = hearthCmd(t, bin, 2, "reset-link", "-data", data)
	if !strings.Contains(errOut, "-username is required") {
		t.Fatalf("no -username: %q", errOut)
	}
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signUpOwner signs up the first account (the owner) on the server at addr, whose base URL is
// base, through the sign-in page as a browser would (without the Origin header old browsers
// leave out, since the test speaks to addr, not base).
func signUpOwner(t *testing.T, addr, base, username string) {
	t.Helper()
	verifier := rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type": {"code"}, "client_id": {"hearth-web"}, "redirect_uri": {base + "/app/"},
		"scope": {"openid offline_access"}, "state": {"s"}, "code_challenge_method": {"S256"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
	}
	res, err := noRedirects.Get(addr + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil {
		t.Fatalf("authorize: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	form := url.Values{"id": {loc.Query().Get("id")}, "action": {"signup"}, "username": {username}, "password": {"the owner's password"}, "password2": {"the owner's password"}}
	res, err = noRedirects.PostForm(addr+"/oauth/login", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), base+"/app/?code=") {
		t.Fatalf("sign-up: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
}

var resetToken = regexp.MustCompile(`name="token" value="([^"]+)"`)

// useLink opens a reset link (made for base) on the server at addr and sets password with it.
func useLink(t *testing.T, addr, base, link, username, password string) {
	t.Helper()
	_, page := get(t, strings.Replace(link, base, addr, 1))
	m := resetToken.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "For the account <strong>"+username+"</strong>") {
		t.Fatalf("the reset page: %s", page)
	}
	res, err := http.PostForm(addr+"/oauth/reset", url.Values{"token": {m[1]}, "new_password": {password}, "new_password2": {password}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "is set") {
		t.Fatalf("setting the password: %d %s", res.StatusCode, b)
	}
}
