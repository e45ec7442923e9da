package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// Automatic HTTPS (EXTENSIONS.md, Operations): with -domain, the server gets its certificates
// from an ACME certificate authority (Let's Encrypt by default) and renews them itself, with
// golang.org/x/crypto/acme/autocert (docs/decisions.md, "Automatic HTTPS", says why that one).
// It serves HTTPS on -https-addr, answering TLS-ALPN-01 challenges in the handshake, and
// plain HTTP on -http-addr, answering HTTP-01 challenges and sending everything else to HTTPS.
// The account key and the certificates live in <data>/certs, so backups carry them and a
// restored server does not ask the authority again.

// certsDir is where the account key and the certificates are kept, under the data directory.
const certsDir = "certs"

// acmeRetry bounds how long the start waits between two tries to get a certificate that the
// authority refused or could not be reached for (Let's Encrypt allows 5 failed validations
// per domain an hour).
const (
	acmeRetryFirst = time.Minute
	acmeRetryMax   = time.Hour
)

// acmeSite is the certificate side of a server started with -domain.
type acmeSite struct {
	m       *autocert.Manager
	domains []string
	// httpsPort is -https-addr's port, for the redirects ("" for 443).
	httpsPort string
	log       *slog.Logger
}

// newACMESite sets up the certificates of c.Domains in <data>/certs.
func newACMESite(c Config, log *slog.Logger) *acmeSite {
	hc := &http.Client{Transport: acmeTransport(c.acmeRoots)}
	m := &autocert.Manager{
		// The operator who names a domain accepts the authority's terms; deploy.md says so.
		Prompt:     autocert.AcceptTOS,
		Cache:      autocert.DirCache(filepath.Join(c.Data, certsDir)),
		HostPolicy: hostPolicy(c.Domains),
		Email:      c.ACMEEmail,
		Client: &acme.Client{
			DirectoryURL: c.ACMEDirectory,
			HTTPClient:   hc,
			UserAgent:    "hearth/" + version,
		},
	}
	_, port, _ := net.SplitHostPort(c.HTTPSAddr)
	if port == "443" {
		port = ""
	}
	return &acmeSite{m: m, domains: c.Domains, httpsPort: port, log: log}
}

// hostPolicy allows the domains only. An HTTP-01 request names its host with the port when
// the port is not 80 (as behind a port mapping, or in tests), which autocert's whitelist
// would refuse: the port is no part of the name.
func hostPolicy(domains []string) autocert.HostPolicy {
	allowed := autocert.HostWhitelist(domains...)
	return func(ctx context.Context, host string) error {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		return allowed(ctx, host)
	}
}

// acmeTransport is the HTTP transport to the authority: the system's roots, and the PEM file
// of -acme-ca-root besides them.
func acmeTransport(extra *x509.CertPool) http.RoundTripper {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if extra != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: extra, MinVersion: tls.VersionTLS12}
	}
	return tr
}

// loadCARoot reads -acme-ca-root: the system's roots plus every certificate of the PEM file.
func loadCARoot(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-acme-ca-root: %v", unwrapPathError(err))
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("-acme-ca-root %s holds no PEM certificate", path)
	}
	return pool, nil
}

// TLSConfig is the HTTPS listener's: the certificates, obtained and renewed as needed, and the
// TLS-ALPN-01 challenges. A handshake without a server name (a client that dialled the
// address, as `hearth healthcheck` does) gets the first domain's certificate.
func (s *acmeSite) TLSConfig() *tls.Config {
	cfg := s.m.TLSConfig()
	cfg.MinVersion = tls.VersionTLS12
	get := cfg.GetCertificate
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if hello.ServerName == "" {
			named := *hello
			named.ServerName = s.domains[0]
			return get(&named)
		}
		return get(hello)
	}
	return cfg
}

// HTTPHandler is -http-addr's: HTTP-01 challenges, and a permanent redirect to HTTPS for
// anything else (308, so that a method and its body are kept). A host that is not one of the
// domains is sent to the first: the redirect never names a host the request made up.
func (s *acmeSite) HTTPHandler() http.Handler {
	return s.m.HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := s.domains[0]
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			r.Host = h
		}
		for _, d := range s.domains {
			if strings.EqualFold(r.Host, d) {
				host = d
			}
		}
		if s.httpsPort != "" {
			host = net.JoinHostPort(host, s.httpsPort)
		}
		w.Header().Set("Connection", "close")
		http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), http.StatusPermanentRedirect)
	}))
}

// obtain gets every domain's certificate now rather than at the first visit (which would
// wait for it), and tries again, less and less often, until it has them or ctx ends. A
// certificate already in <data>/certs is loaded, and its renewal scheduled, without asking the
// authority. Renewals are autocert's: a third of a certificate's life before it ends (30 days
// for Let's Encrypt's 90), retried every half hour or so when they fail.
func (s *acmeSite) obtain(ctx context.Context) {
	for _, d := range s.domains {
		go func() {
			wait := acmeRetryFirst
			for {
				cert, err := s.m.GetCertificate(helloFor(d))
				if err == nil {
					s.log.Info("certificate ready", "domain", d, "expires", cert.Leaf.NotAfter.UTC().Format(time.RFC3339), "issuer", cert.Leaf.Issuer.CommonName)
					return
				}
				if ctx.Err() != nil {
					return
				}
				s.log.Error("could not get a certificate; retrying", "domain", d, "in", wait, "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
				wait = min(2*wait, acmeRetryMax)
			}
		}()
	}
}

// helloFor is the handshake of a client that takes an ECDSA certificate for domain.
func helloFor(domain string) *tls.ClientHelloInfo {
	return &tls.ClientHelloInfo{
		ServerName:        domain,
		SignatureSchemes:  []tls.SignatureScheme{tls.ECDSAWithP256AndSHA256},
		SupportedCurves:   []tls.CurveID{tls.CurveP256},
		CipherSuites:      []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
		SupportedVersions: []uint16{tls.VersionTLS13, tls.VersionTLS12},
	}
}

// checkDomain checks one -domain: a host name for a certificate, ASCII (the xn-- form of an
// international name), with at least two labels, no port, scheme or wildcard.
func checkDomain(d string) error {
	bad := func(why string) error {
		return fmt.Errorf("-domain %q %s: give a host name such as chat.example.com", d, why)
	}
	switch {
	case d == "":
		return bad("is empty")
	case strings.Contains(d, "://"):
		return bad("is a URL")
	case strings.Contains(d, "*"):
		return bad("is a wildcard, which needs DNS-01 challenges")
	case net.ParseIP(strings.Trim(d, "[]")) != nil:
		return bad("is an IP address, which gets no certificate")
	case len(d) > 253:
		return bad("is longer than 253 characters")
	case !strings.Contains(strings.Trim(d, "."), "."):
		return bad("has a single label")
	}
	for _, label := range strings.Split(strings.TrimSuffix(d, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return bad("has an empty, too long or hyphen-edged label")
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return bad("has a character other than a letter, a digit, a hyphen or a dot (write an international name in its xn-- form)")
			}
		}
	}
	return nil
}

var errDomainWithTLSFiles = errors.New("-domain gets certificates by itself: leave out -tls-cert and -tls-key (or -domain, to use your own)")

// serveACME starts what -domain needs besides the HTTPS listener: the certificates, got now,
// and the -http-addr listener (when there is one), which closes with the app.
func (a *app) serveACME(ctx context.Context, c Config, httpLn net.Listener, stdout io.Writer, log *slog.Logger) {
	a.acme = newACMESite(c, log)
	if httpLn == nil {
		a.acme.obtain(ctx)
		return
	}
	// The handler first: it is what lets autocert use HTTP-01 too.
	handler := a.acme.HTTPHandler()
	a.acme.obtain(ctx)
	a.httpSrv = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go a.httpSrv.Serve(httpLn)
	fmt.Fprintf(stdout, "Redirecting http://%s to https://%s (and answering ACME HTTP-01 challenges)\n", httpLn.Addr(), c.Domains[0])
}
