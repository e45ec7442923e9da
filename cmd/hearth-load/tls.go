package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// clientTLS is the TLS configuration for a server at rawURL: nil for http://; for https://,
// one that trusts the certificates in the PEM file caFile (a server's self-signed
// certificate, say), or the system's roots when caFile is empty. A CA file with an http URL
// is refused: it says the run was meant to be over TLS.
func clientTLS(rawURL, caFile string) (*tls.Config, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" {
		if caFile != "" {
			return nil, fmt.Errorf("-ca-cert %s is for an https:// -url, not %s", caFile, rawURL)
		}
		return nil, nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return conf, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("-ca-cert: %w", err)
	}
	conf.RootCAs = x509.NewCertPool()
	if !conf.RootCAs.AppendCertsFromPEM(pem) {
		return nil, errors.New("-ca-cert " + caFile + ": no PEM certificate in it")
	}
	return conf, nil
}

// transportName says how the run reaches the server: "h2c", "h2 over TLS", "http/1.1" or
// "http/1.1 over TLS".
func (c *Config) transportName() string {
	name := "h2c"
	if c.StreamClient == "ws" {
		// The streams' transport; the sends go as -http1 says.
		name = "websocket"
	} else if c.HTTP1 {
		name = "http/1.1"
	} else if c.TLS != nil {
		name = "h2"
	}
	if c.TLS != nil {
		name += " over TLS"
	}
	return name
}
