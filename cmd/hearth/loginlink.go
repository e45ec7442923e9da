package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// loginLink prints a URL that signs a person in to the browser client with a fresh token from
// the local issuer: {web-url}/#/token?url={base-url}&token={token} (decisions.md, "Login
// links"). Like "hearth token", it signs with <data>/issuer-key.
func loginLink(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("login-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "login-link -sub NAME [flags]")
	m := mintFlags(fs, "how long the token (and so the link) is valid")
	webURL := fs.String("web-url", "", "the server's -web-url, where the browser client is (default {base-url}/app)")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if err := m.check("login-link"); err != nil {
		return err
	}
	web := *webURL
	if web == "" {
		web = m.base + "/app"
	}
	if u, err := url.Parse(web); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return usageError{fmt.Errorf("-web-url %q must be an absolute http or https URL without query or fragment", web)}
	}
	base, tok, err := m.mint(stderr)
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
