// Package mailtest runs a real SMTP server on loopback for tests (github.com/emersion/go-smtp's,
// in the test's process) and hands over what it received, decoded.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mode is how the server speaks TLS.
type Mode int

const (
	// Plain offers no TLS (a relay on the same machine).
	Plain Mode = iota
	// StartTLS offers STARTTLS and takes AUTH only after it.
	StartTLS
	// Implicit speaks TLS from the first byte (smtps).
	Implicit
)

// Options change the server.
type Options struct {
	Mode Mode
	// User and Pass, when set, are required (AUTH PLAIN) before a mail is taken.
	User, Pass string
}

// Received is one mail as the server got it.
type Received struct {
	From    string
	To      []string
	Subject string
	// Text and HTML are the decoded bodies (HTML empty when the mail had none).
	Text string
	HTML string
	// Authed is the user the client authenticated as, if any; TLS whether the session was
	// encrypted.
	Authed string
	TLS    bool
}

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// Roots verifies the server's certificate (TLS modes).
	Roots *tls.Config
	opts  Options
	srv   *smtp.Server

	mu   sync.Mutex
	got  []Received
	cond *sync.Cond
}

// Start starts a server that stops when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{opts: opts}
	s.cond = sync.NewCond(&s.mu)
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, conn: c}, nil
	}))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.MaxMessageBytes = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Mode != Plain {
		cert, pool := selfSigned(t)
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.Roots = &tls.Config{RootCAs: pool}
		if opts.Mode == Implicit {
			ln = tls.NewListener(ln, s.srv.TLSConfig)
		}
	}
	s.Addr = ln.Addr().String()
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// URL is the -smtp-url that reaches the server.
func (s *Server) URL() string {
	scheme := "smtp"
	if s.opts.Mode == Implicit {
		scheme = "smtps"
	}
	auth := ""
	if s.opts.User != "" {
		auth = s.opts.User + ":" + s.opts.Pass + "@"
	}
	return scheme + "://" + auth + s.Addr
}

// Wait returns the n-th mail (counting from 1) once it arrived, or fails the test after 10 s.
func (s *Server) Wait(t testing.TB, n int) Received {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("mail %d did not arrive within 10 s (got %d)", n, len(s.got))
		}
		s.cond.Wait()
	}
	return s.got[n-1]
}

// Count is how many mails arrived so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

var linkRE = regexp.MustCompile(`https?://[^\s<>"]+`)

// Link is the first URL in the mail's text that contains part.
func (r Received) Link(t testing.TB, part string) string {
	t.Helper()
	for _, l := range linkRE.FindAllString(r.Text, -1) {
		if strings.Contains(l, part) {
			return l
		}
	}
	t.Fatalf("no link with %q in the mail: %s", part, r.Text)
	return ""
}

type session struct {
	s      *Server
	conn   *smtp.Conn
	authed string
	cur    Received
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != ss.s.opts.User || pass != ss.s.opts.Pass {
			return errors.New("invalid credentials")
		}
		ss.authed = user
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.opts.User != "" && ss.authed == "" {
		return smtp.ErrAuthRequired
	}
	ss.cur = Received{From: from}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.cur.To = append(ss.cur.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	got := ss.cur
	_, isTLS := ss.conn.TLSConnectionState()
	got.Authed, got.TLS = ss.authed, isTLS
	dec := new(mime.WordDecoder)
	got.Subject, _ = dec.DecodeHeader(m.Header.Get("Subject"))
	if err := readParts(textproto(m.Header), m.Body, &got); err != nil {
		return err
	}
	ss.s.mu.Lock()
	ss.s.got = append(ss.s.got, got)
	ss.s.cond.Broadcast()
	ss.s.mu.Unlock()
	return nil
}

type header interface{ Get(string) string }

func textproto(h mail.Header) header { return h }

// readParts decodes a body, or each part of a multipart one, into r.
func readParts(h header, body io.Reader, r *Received) error {
	ct, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		ct = "text/plain"
	}
	if strings.HasPrefix(ct, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readParts(p.Header, p, r); err != nil {
				return err
			}
		}
	}
	var rd io.Reader = body
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		rd = quotedprintable.NewReader(body)
	case "base64":
		rd = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	if ct == "text/html" {
		r.HTML = string(b)
	} else {
		r.Text = string(b)
	}
	return nil
}

func (ss *session) Reset()        { ss.cur = Received{} }
func (ss *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mailtest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}
