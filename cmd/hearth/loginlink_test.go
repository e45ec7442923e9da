package main

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/auth"
)

// TestLoginLinkPrintsTheWebClientURL checks the login link's contract: the web client's token
// route with the server's URL and a token the server accepts, both URL-encoded.
func TestLoginLinkPrintsTheWebClientURL(t *testing.T) {
	data := t.TempDir()
	const base = "https://chat.example.com"
	for _, tc := range []struct {
		args   []string
		prefix string
	}{
		{nil, base + "/app/#/token?url=https%3A%2F%2Fchat.example.com&token="},
		{[]string{"-web-url", "https://web.example.net/hearth/"}, "https://web.example.net/hearth/#/token?url=https%3A%2F%2Fchat.example.com&token="},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"login-link", "-data", data, "-base-url", base + "/", "-sub", "alice", "-name", "Alice", "-ttl", "2h"}, tc.args...)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		link := strings.TrimSpace(stdout.String())
		if !strings.HasPrefix(link, tc.prefix) || strings.Count(link, "\n") != 0 {
			t.Fatalf("link %q, want it to start with %q", link, tc.prefix)
		}
		frag, err := url.ParseQuery(strings.TrimPrefix(link[strings.Index(link, "#"):], "#/token?"))
		if err != nil || frag.Get("url") != base {
			t.Fatalf("fragment of %q: %v %v", link, frag, err)
		}
		iss, err := auth.LoadOrCreateIssuer(data, base, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Audience: base, TrustedIssuers: []string{base}, Issuer: iss})
		if err != nil {
			t.Fatal(err)
		}
		id, err := v.Verify(context.Background(), frag.Get("token"))
		if err != nil || id.Subject != "alice" || id.Name != "Alice" || id.Issuer != base {
			t.Fatalf("the link's token: %+v %v", id, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"login-link", "-data", data}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-sub is required") {
		t.Fatalf("without -sub: exit %d, %q", code, stderr.String())
	}
}

func TestOIDCClientsParse(t *testing.T) {
	c := Config{BaseURL: "https://chat.example.com", OIDCClients: []string{"https://a.example=x", "https://b.example/=y"}}
	clients, err := c.oidcClients()
	if err != nil || len(clients) != 2 || clients[0] != (auth.OIDCClient{Issuer: "https://a.example", ClientID: "x"}) || clients[1] != (auth.OIDCClient{Issuer: "https://b.example", ClientID: "y"}) {
		t.Fatalf("clients = %v, %v", clients, err)
	}
	c.OIDCClients = []string{"https://chat.example.com=z"}
	if _, err := c.oidcClients(); err == nil || !strings.Contains(err.Error(), "names the server itself") {
		t.Fatalf("the server itself: %v", err)
	}
}
