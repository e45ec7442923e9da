package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHealthcheckFollowsTheListener: `hearth healthcheck` finds the port and the scheme from
// the running server, whether -addr came from the command line or HEARTH_ADDR, with TLS or
// without, and fails once the server is gone. The admin socket is private to its owner.
func TestHealthcheckFollowsTheListener(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	srv, _ := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0")
	out, _ := hearthCmd(t, bin, 0, "healthcheck", "-data", data)
	if !regexp.MustCompile(`^ok: http://127\.0\.0\.1:\d+/healthz \(version dev, seq 0\)\n$`).MatchString(out) {
		t.Fatalf("healthcheck: %q", out)
	}
	if fi, err := os.Stat(filepath.Join(data, "admin.sock")); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("admin.sock: %v %v, want a socket of mode 0600", fi, err)
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.wait(20 * time.Second); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
	_, stderr := hearthCmd(t, bin, 1, "healthcheck", "-data", data)
	if !strings.Contains(stderr, "unhealthy: no Hearth server runs on "+data) {
		t.Fatalf("healthcheck of a stopped server: %q", stderr)
	}

	cert, key := selfSigned(t)
	tlsData := t.TempDir()
	t.Setenv("HEARTH_ADDR", "127.0.0.1:0")
	startBinary(t, bin, "-data", tlsData, "-tls-cert", cert, "-tls-key", key, "-base-url", "https://chat.test")
	out, _ = hearthCmd(t, bin, 0, "healthcheck", "-data", tlsData)
	if !regexp.MustCompile(`^ok: https://127\.0\.0\.1:\d+/healthz `).MatchString(out) {
		t.Fatalf("healthcheck of a TLS server: %q", out)
	}
}

// selfSigned writes a certificate and key for chat.test.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chat.test"}, DNSNames: []string{"chat.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}
