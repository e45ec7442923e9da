package auth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ValidateIssuerURL checks that s may be a trusted issuer: an absolute https URL without
// query, fragment or credentials. Plain http is allowed only for loopback hosts, so tests and
// local setups work while a real issuer's keys are never fetched unencrypted.
func ValidateIssuerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("issuer URL %q is not a URL: %v", s, err)
	}
	if err := checkFetchURL(u); err != nil {
		return fmt.Errorf("issuer URL %q %v", s, err)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("issuer URL %q must not have a query or fragment", s)
	}
	return nil
}

// checkFetchURL holds the rules shared by issuer URLs and the jwks_uri of a discovery
// document; its message completes a sentence that starts with the URL.
func checkFetchURL(u *url.URL) error {
	const rule = "must be an absolute https URL (http only for the loopback hosts 127.0.0.1, ::1 and localhost)"
	if u.Host == "" || u.Opaque != "" {
		return errors.New(rule)
	}
	if u.User != nil {
		return errors.New("must not carry a user name or password")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
	}
	return errors.New(rule)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
