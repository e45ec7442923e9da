package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"hearth/blob/blobtest"
)

// A real ACME server for the tests of -domain: Pebble, Let's Encrypt's test server (MPL-2.0),
// on loopback. It validates the challenges for real, against the server under test: its
// resolver is a DNS server of the test's that answers 127.0.0.1 for every name, and its
// httpPort and tlsPort are the ports the server under test listens on.

const (
	pebbleModule  = "github.com/letsencrypt/pebble/v2/cmd/pebble"
	pebbleVersion = "v2.10.3"
)

// pebbleServer is a running Pebble.
type pebbleServer struct {
	// Directory is its ACME directory URL; CAFile the PEM file of the CA that signed its
	// listener's certificate, for -acme-ca-root.
	Directory, CAFile string
	mgmt              string
	caPool            *x509.CertPool
	cmd               *exec.Cmd
	exited            chan struct{}
	out               *lockedBuffer
}

// pebbleOptions say where Pebble validates challenges and how long its certificates last.
type pebbleOptions struct {
	// HTTPPort and TLSPort are where it connects for HTTP-01 and TLS-ALPN-01.
	HTTPPort, TLSPort string
	// Validity is how long its certificates last (default 90 days).
	Validity time.Duration
}

// startPebble starts Pebble for the test; it is stopped when the test ends (or by Stop). Pebble
// is found or built as versitygw is (blobtest.GoTool); without it the test is skipped, or
// fails when HEARTH_REQUIRE_PEBBLE=1 (as in CI).
func startPebble(t *testing.T, opts pebbleOptions) *pebbleServer {
	t.Helper()
	bin, err := blobtest.GoTool(t, "pebble", pebbleModule, pebbleVersion)
	if err != nil {
		if os.Getenv("HEARTH_REQUIRE_PEBBLE") == "1" {
			t.Fatalf("HEARTH_REQUIRE_PEBBLE=1 but no Pebble: %v", err)
		}
		t.Skipf("no ACME server to test against, skipping: %v (go install %s@%s, or set HEARTH_REQUIRE_PEBBLE=1 to make this a failure)", err, pebbleModule, pebbleVersion)
	}
	if opts.Validity == 0 {
		opts.Validity = 90 * 24 * time.Hour
	}
	dir := t.TempDir()
	caFile, certFile, keyFile, pool := listenerCerts(t, dir)
	dns := startDNS(t)
	for attempt := 1; ; attempt++ {
		p := &pebbleServer{CAFile: caFile, caPool: pool, exited: make(chan struct{}), out: &lockedBuffer{}}
		listen, mgmt := freePort(t), freePort(t)
		p.Directory = "https://" + listen + "/dir"
		p.mgmt = mgmt
		cfg := map[string]any{"pebble": map[string]any{
			"listenAddress":           listen,
			"managementListenAddress": mgmt,
			"certificate":             certFile,
			"privateKey":              keyFile,
			"httpPort":                atoi(t, opts.HTTPPort),
			"tlsPort":                 atoi(t, opts.TLSPort),
			"ocspResponderURL":        "",
			"keyAlgorithm":            "ecdsa",
			"profiles": map[string]any{"default": map[string]any{
				"description":    "the tests' certificates",
				"validityPeriod": int(opts.Validity.Seconds()),
			}},
		}}
		b, _ := json.Marshal(cfg)
		cfgFile := filepath.Join(dir, "pebble.json")
		if err := os.WriteFile(cfgFile, b, 0o600); err != nil {
			t.Fatal(err)
		}
		p.cmd = exec.Command(bin, "-config", cfgFile, "-dnsserver", dns)
		p.cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"),
			// No random sleep before each validation, no refused nonces: the tests wait for
			// what they test, not for Pebble's chaos.
			"PEBBLE_VA_NOSLEEP=1",
			"PEBBLE_WFE_NONCEREJECT=0",
			// Every order is validated: a renewal too, not one of the authorizations reused.
			"PEBBLE_AUTHZREUSE=0",
		}
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.cmd.Wait(); close(p.exited) }()
		if err := p.ready(); err == nil {
			t.Cleanup(p.Stop)
			return p
		} else if attempt == 3 {
			p.Stop()
			t.Fatalf("Pebble did not start: %v\n%s", err, p.out.String())
		}
		p.Stop()
	}
}

// ready waits until the directory answers.
func (p *pebbleServer) ready() error {
	hc := p.client()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("pebble exited: %s", p.out.String())
		default:
		}
		res, err := hc.Get(p.Directory)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer at %s: %v", p.Directory, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *pebbleServer) client() *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.caPool}}}
}

// Stop kills Pebble and waits for it.
func (p *pebbleServer) Stop() {
	p.cmd.Process.Kill()
	<-p.exited
}

// Roots is the pool of the root that signs Pebble's certificates, made anew at each start and
// published on its management interface.
func (p *pebbleServer) Roots(t *testing.T) *x509.CertPool {
	t.Helper()
	res, err := p.client().Get("https://" + p.mgmt + "/roots/0")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	pool := x509.NewCertPool()
	if res.StatusCode != 200 || !pool.AppendCertsFromPEM(b) {
		t.Fatalf("Pebble's root: %d %q", res.StatusCode, b)
	}
	return pool
}

// listenerCerts makes a CA and a certificate for Pebble's own listener (localhost and
// 127.0.0.1), and writes them under dir.
func listenerCerts(t *testing.T, dir string) (caFile, certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Hearth tests' ACME listener CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pool = x509.NewCertPool()
	pool.AddCert(caCert)
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", leafDER), write("key.pem", "EC PRIVATE KEY", keyDER), pool
}

// startDNS serves DNS over TCP (Pebble's resolver asks over TCP) on a loopback port until the
// test ends: every A question is answered 127.0.0.1, every other question with no answer.
// Messages are read and written with golang.org/x/net/dns/dnsmessage.
func startDNS(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				for c.SetDeadline(time.Now().Add(10*time.Second)) == nil && answerDNS(c) == nil {
				}
			})
		}
	})
	return ln.Addr().String()
}

// answerDNS reads one length-prefixed question from c and writes its answer.
func answerDNS(c net.Conn) error {
	var n [2]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return err
	}
	msg := make([]byte, binary.BigEndian.Uint16(n[:]))
	if _, err := io.ReadFull(c, msg); err != nil {
		return err
	}
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return err
	}
	q, err := p.Question()
	if err != nil {
		return err
	}
	b := dnsmessage.NewBuilder(make([]byte, 2, 512), dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return err
	}
	if err := b.Question(q); err != nil {
		return err
	}
	if err := b.StartAnswers(); err != nil {
		return err
	}
	if q.Type == dnsmessage.TypeA {
		if err := b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}}); err != nil {
			return err
		}
	}
	out, err := b.Finish()
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(out, uint16(len(out)-2))
	_, err = c.Write(out)
	return err
}

// freePort is a 127.0.0.1 address whose port was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func atoi(t *testing.T, port string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(port, &n); err != nil {
		t.Fatalf("port %q: %v", port, err)
	}
	return n
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// dialAs opens a TLS connection to addr for server name host, trusting roots, and returns
// the certificate the server showed.
func dialAs(ctx context.Context, addr, host string, roots *x509.CertPool) (*x509.Certificate, error) {
	d := tls.Dialer{Config: &tls.Config{ServerName: host, RootCAs: roots}}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.(*tls.Conn).ConnectionState().PeerCertificates[0], nil
}

// clientFor is an HTTP client that reaches host at addr, trusting roots.
func clientFor(host, addr string, roots *x509.CertPool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			if strings.HasPrefix(a, host+":") {
				a = addr
			}
			var d net.Dialer
			return d.DialContext(ctx, network, a)
		},
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
