package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"hearth/auth"
)

// loginLink prints a URL that signs a person in to the browser client with a fresh token from
// the local issuer: {web-url}/#/token?url={base-url}&token={token} (decisions.md, "Login
// links"). Like "hearth token", it signs with <data>/issuer-key.
func loginLink(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("login-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./data", "the server's data directory (holds issuer-key)")
	baseURL := fs.String("base-url", "http://localhost:8080", "the server's -base-url (the token's issuer and audience)")
	webURL := fs.String("web-url", "", "the server's -web-url, where the browser client is (default {base-url}/app)")
	sub := fs.String("sub", "", "the login's subject, e.g. alice (required)")
	name := fs.String("name", "", "the display name to put in the token")
	ttl := fs.Duration("ttl", 24*time.Hour, "how long the token (and so the link) is valid")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if *sub == "" {
		return usageError{errors.New("login-link: -sub is required, e.g. -sub alice")}
	}
	if *ttl <= 0 || *ttl > 366*24*time.Hour {
		return usageError{fmt.Errorf("login-link: -ttl %s must be positive and at most a year", *ttl)}
	}
	base, err := checkBaseURL(*baseURL)
	if err != nil {
		return usageError{err}
	}
	web := *webURL
	if web == "" {
		web = base + "/app"
	}
	if u, err := url.Parse(web); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return usageError{fmt.Errorf("-web-url %q must be an absolute http or https URL without query or fragment", web)}
	}
	if err := checkWritableDir(*data); err != nil {
		return usageError{err}
	}
	iss, err := auth.LoadOrCreateIssuer(*data, base, time.Now)
	if err != nil {
		return err
	}
	tok, err := iss.Mint(*sub, *name, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, loginLinkURL(web, base, tok))
	return nil
}

// loginLinkURL is the login link's URL: the browser client's token route, naming the server
// and carrying the token, both URL-encoded.
func loginLinkURL(webURL, baseURL, token string) string {
	return strings.TrimSuffix(webURL, "/") + "/#/token?url=" + url.QueryEscape(baseURL) + "&token=" + url.QueryEscape(token)
}
