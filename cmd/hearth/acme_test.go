package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testDomain = "chat.hearth.test"

// domainArgs are the flags of a server for testDomain on loopback ports, against pebble.
func domainArgs(data, httpsAddr, httpAddr string, p *pebbleServer) []string {
	return []string{"-data", data, "-domain", testDomain, "-https-addr", httpsAddr, "-http-addr", httpAddr,
		"-acme-directory", p.Directory, "-acme-ca-root", p.CAFile, "-acme-email", "admin@hearth.test"}
}

// TestDomainGetsServesAndRenewsItsCertificate: `hearth -domain` is the whole setup. The
// server gets a certificate from the ACME server by TLS-ALPN-01 (Pebble validates it on the
// server's HTTPS port), serves it (a client trusting only Pebble's root accepts it for the
// domain), renews it before it ends (Pebble's last 20 s here, so the renewal comes at about
// two thirds of that), and keeps it in <data>/certs. The base URL is https:// and the domain;
// the HTTP port redirects to HTTPS; `hearth healthcheck` reaches it over TLS.
func TestDomainGetsServesAndRenewsItsCertificate(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	httpsAddr, httpAddr := freePort(t), freePort(t)
	// Nothing listens where Pebble would check HTTP-01: the certificate is TLS-ALPN-01's.
	p := startPebble(t, pebbleOptions{TLSPort: portOf(httpsAddr), HTTPPort: portOf(freePort(t)), Validity: 20 * time.Second})
	data := t.TempDir()
	srv, _ := startBinary(t, bin, domainArgs(data, httpsAddr, httpAddr, p)...)
	base := "https://" + testDomain + ":" + portOf(httpsAddr)
	srv.waitStdout(t, "Hearth is running at "+base+" (listening on "+httpsAddr+")")
	srv.waitStdout(t, "Redirecting http://"+httpAddr+" to https://"+testDomain)
	waitLog(t, srv, "certificate ready", 60*time.Second)

	roots := p.Roots(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	first, err := dialAs(ctx, httpsAddr, testDomain, roots)
	if err != nil {
		t.Fatalf("a client trusting Pebble's root: %v", err)
	}
	if first.Subject.CommonName != testDomain && (len(first.DNSNames) != 1 || first.DNSNames[0] != testDomain) {
		t.Fatalf("the certificate names %q %q", first.Subject.CommonName, first.DNSNames)
	}
	if log := p.out.String(); !strings.Contains(log, "set VALID by completed challenge") || strings.Contains(log, "validate w/ HTTP") {
		t.Errorf("Pebble's log does not show a TLS-ALPN-01 validation alone:\n%s", log)
	}
	hc := clientFor(testDomain, httpsAddr, roots)
	res, err := hc.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "ok" || res.ProtoMajor != 2 {
		t.Fatalf("GET /healthz over HTTPS: %d %q %s", res.StatusCode, body, res.Proto)
	}

	// The HTTP port sends everything to HTTPS, path and query kept.
	req, _ := http.NewRequest(http.MethodGet, "http://"+httpAddr+"/app/?x=1", nil)
	req.Host = testDomain
	res, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusPermanentRedirect || res.Header.Get("Location") != base+"/app/?x=1" {
		t.Fatalf("GET http://%s/app/?x=1: %d to %q", httpAddr, res.StatusCode, res.Header.Get("Location"))
	}
	req.Host = "evil.example"
	if res, err = hc.Do(req); err != nil || res.Header.Get("Location") != base+"/app/?x=1" {
		t.Fatalf("a redirect for another host: %v %q, want one to %s", err, res.Header.Get("Location"), base)
	}
	res.Body.Close()

	// The container's health check: over the admin socket, then TLS without a server name.
	var out, errOut bytes.Buffer
	if code := run([]string{"healthcheck", "-data", data}, &out, &errOut); code != 0 {
		t.Fatalf("hearth healthcheck: exit %d: %s%s", code, out.String(), errOut.String())
	}

	// The renewal: a new certificate, for the same domain, served without a restart.
	for {
		cert, err := dialAs(ctx, httpsAddr, testDomain, roots)
		if err != nil {
			t.Fatalf("after the first certificate: %v", err)
		}
		if cert.SerialNumber.Cmp(first.SerialNumber) != 0 {
			if !cert.NotAfter.After(first.NotAfter) {
				t.Fatalf("the renewed certificate ends %s, the first %s", cert.NotAfter, first.NotAfter)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the certificate ending %s was not renewed", first.NotAfter)
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, name := range []string{"acme_account+key", testDomain} {
		if _, err := os.Stat(filepath.Join(data, "certs", name)); err != nil {
			t.Errorf("<data>/certs/%s: %v", name, err)
		}
	}
}

// TestDomainHTTP01AndCertificatesKeptAcrossRestarts: where TLS-ALPN-01 cannot be validated
// (Pebble checks a port where nothing listens), the server gets its certificate by HTTP-01 on
// -http-addr. Started again with the ACME server gone, it serves the same certificate from
// <data>/certs.
func TestDomainHTTP01AndCertificatesKeptAcrossRestarts(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	httpsAddr, httpAddr := freePort(t), freePort(t)
	p := startPebble(t, pebbleOptions{TLSPort: portOf(freePort(t)), HTTPPort: portOf(httpAddr)})
	data := t.TempDir()
	args := domainArgs(data, httpsAddr, httpAddr, p)
	defer func() {
		if t.Failed() {
			t.Logf("Pebble's log:\n%s", p.out.String())
		}
	}()
	srv, _ := startBinary(t, bin, args...)
	waitLog(t, srv, "certificate ready", 60*time.Second)
	roots := p.Roots(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := dialAs(ctx, httpsAddr, testDomain, roots)
	if err != nil {
		t.Fatalf("a client trusting Pebble's root: %v", err)
	}
	if !strings.Contains(p.out.String(), "Attempting to validate w/ HTTP:") {
		t.Errorf("Pebble's log does not show an HTTP-01 validation:\n%s", p.out.String())
	}

	p.Stop()
	if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := srv.wait(15 * time.Second); err != nil {
		t.Fatalf("the server did not stop cleanly: %v\n%s", err, srv.stderr())
	}
	srv, _ = startBinary(t, bin, args...)
	waitLog(t, srv, "certificate ready", 20*time.Second)
	again, err := dialAs(ctx, httpsAddr, testDomain, roots)
	if err != nil {
		t.Fatalf("after a restart without the ACME server: %v", err)
	}
	if again.SerialNumber.Cmp(first.SerialNumber) != 0 {
		t.Fatalf("after a restart the server shows certificate %s, not the one it had (%s)", again.SerialNumber, first.SerialNumber)
	}
}

// waitLog waits (bounded by d) until the process has logged want.
func waitLog(t *testing.T, p *process, want string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); !strings.Contains(p.stderr(), want); time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.exited:
			t.Fatalf("hearth exited while waiting for %q:\n%s", want, p.stderr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("hearth did not log %q within %s:\n%s", want, d, p.stderr())
		}
	}
}

// TestDomainSetsTheBaseURL: with -domain, -base-url defaults to https:// and the first domain
// (with -https-addr's port unless it is 443); a -base-url given wins.
func TestDomainSetsTheBaseURL(t *testing.T) {
	withoutHearthEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-domain", "Chat.Example.com."}, "https://chat.example.com"},
		{[]string{"-domain", "chat.example.com,www.example.com", "-https-addr", ":8443"}, "https://chat.example.com:8443"},
		{[]string{"-domain", "chat.example.com", "-base-url", "https://example.com/chat"}, "https://example.com/chat"},
		{nil, "http://localhost:8080"},
	} {
		var c Config
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		serveFlags(fs, &c)
		if err := parseFlags(fs, append([]string{"-data", t.TempDir()}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		if err := c.validate(); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if c.BaseURL != tc.want || c.WebURL != tc.want+"/app" {
			t.Errorf("%q: base url %q, web url %q; want %q", tc.args, c.BaseURL, c.WebURL, tc.want)
		}
	}
}
