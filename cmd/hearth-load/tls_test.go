package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// -ca-cert: an https URL trusts the certificate in the file (as a self-signed server's), an
// http URL has no TLS, and a file that holds no certificate, or goes with an http URL, is
// refused.
func TestCACertFlag(t *testing.T) {
	dir := t.TempDir()
	cert := testCertificate(t).Leaf
	certFile := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	conf, err := clientTLS("https://127.0.0.1:8443", certFile)
	if err != nil || conf == nil || conf.RootCAs == nil {
		t.Fatalf("https with -ca-cert: %+v, %v", conf, err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: conf.RootCAs, DNSName: "127.0.0.1"}); err != nil {
		t.Fatalf("the certificate is not trusted with its own file: %v", err)
	}
	if conf, err := clientTLS("https://127.0.0.1:8443", ""); err != nil || conf == nil || conf.RootCAs != nil {
		t.Fatalf("https without -ca-cert: %+v, %v; want the system's roots", conf, err)
	}
	if conf, err := clientTLS("http://127.0.0.1:8080", ""); err != nil || conf != nil {
		t.Fatalf("http: %+v, %v; want no TLS", conf, err)
	}
	if _, err := clientTLS("http://127.0.0.1:8080", certFile); err == nil {
		t.Error("-ca-cert with an http URL is accepted")
	}
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	if _, err := clientTLS("https://127.0.0.1:8443", junk); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a file without a certificate: %v", err)
	}
	if _, err := clientTLS("https://127.0.0.1:8443", filepath.Join(dir, "missing.pem")); err == nil {
		t.Error("a missing file is accepted")
	}

	c := Config{TLS: conf}
	if got := c.transportName(); got != "h2 over TLS" {
		t.Errorf("transport %q", got)
	}
	c.HTTP1 = true
	if got := c.transportName(); got != "http/1.1 over TLS" {
		t.Errorf("transport %q", got)
	}
}

// The tool's reader asks for HTTP/2 by ALPN over TLS: a server that picks no protocol gets no
// HTTP/2 preface but a clear error (a Go server that offers only HTTP/1.1 ends the handshake
// itself), an untrusted certificate fails the handshake, and a TLS configuration that does not
// go with the URL's scheme is refused before dialing.
func TestH2StreamOverTLSNeedsHTTP2(t *testing.T) {
	tc := testCertificate(t)
	cert := tc.Leaf
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{tc}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	url := "https://" + ln.Addr().String()
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = dialSubscribe(ctx, url, &tls.Config{RootCAs: pool}, nil, "t", &svcv1.SubscribeRequest{}, h2Window)
	if err == nil || !strings.Contains(err.Error(), "not HTTP/2") {
		t.Fatalf("got %v, want a server without HTTP/2 refused", err)
	}
	if _, err := dialSubscribe(ctx, url, &tls.Config{RootCAs: x509.NewCertPool()}, nil, "t", &svcv1.SubscribeRequest{}, h2Window); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an untrusted certificate: %v", err)
	}
	if _, err := dialSubscribe(ctx, url, nil, nil, "t", &svcv1.SubscribeRequest{}, h2Window); err == nil {
		t.Fatal("an https URL without TLS was dialed")
	}
	if _, err := dialSubscribe(ctx, "http://127.0.0.1:1", &tls.Config{}, nil, "t", &svcv1.SubscribeRequest{}, h2Window); err == nil {
		t.Fatal("an http URL with TLS was dialed")
	}
}

// testCertificate is net/http/httptest's certificate for 127.0.0.1, with its key.
func testCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	cert := srv.TLS.Certificates[0]
	if cert.Leaf == nil {
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		cert.Leaf = leaf
	}
	return cert
}
