// Package mail sends the server's emails (password reset and address verification links,
// notification digests) through the operator's SMTP server, named by one URL
// (-smtp-url smtp[s]://[user:pass@]host:port). SMTP itself is github.com/wneessen/go-mail's;
// this package decides the connection's rules (TLS as the URL says, timeouts, sizes) and keeps
// a bounded queue so that a slow mail server never holds up the request that asked for a mail.
//
// It imports nothing of Hearth, so the built-in issuer (auth) and the engine can both use it.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"
)

// Limits of one message and of the queue.
const (
	// SubjectMax and BodyMax bound a message: the server's mails are a link and a few lines,
	// a digest a few dozen messages.
	SubjectMax = 200
	BodyMax    = 256 << 10
	// queueMax is how many messages may wait to be sent; more are refused (Enqueue false).
	queueMax = 256
	// sendTimeout bounds one delivery: connecting, TLS, authenticating and the transfer.
	sendTimeout = 30 * time.Second
)

// Message is one email to one address. HTML, when set, is sent as an alternative to Text.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Config is where and how to send.
type Config struct {
	// URL is smtp://[user:pass@]host[:port] (STARTTLS, required unless the host is a loopback
	// address; port 587 by default) or smtps://[user:pass@]host[:port] (TLS from the first
	// byte; port 465 by default).
	URL string
	// From is the sender's address (-mail-from), e.g. "Hearth <chat@example.com>".
	From string
	// TLS is the TLS configuration to verify the server with (nil: the system's roots); tests
	// give their own roots.
	TLS *tls.Config
	// Timeout bounds one delivery (default 30 s).
	Timeout time.Duration
	Log     *slog.Logger
}

// Mailer sends messages. It is safe for concurrent use.
type Mailer struct {
	host     string
	port     int
	implicit bool
	policy   gomail.TLSPolicy
	user     string
	pass     string
	from     string
	tls      *tls.Config
	timeout  time.Duration
	log      *slog.Logger

	queue     chan Message
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// ParseURL checks an -smtp-url, for the command line's one-line errors.
func ParseURL(raw string) (host string, port int, implicit bool, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, false, fmt.Errorf("%q is not a URL: smtp[s]://[user:pass@]host:port", redact(raw))
	}
	switch u.Scheme {
	case "smtp":
		port = 587
	case "smtps":
		implicit, port = true, 465
	default:
		return "", 0, false, fmt.Errorf("%q must start with smtp:// (STARTTLS) or smtps:// (TLS)", redact(raw))
	}
	host = u.Hostname()
	if host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", 0, false, fmt.Errorf("%q must be smtp[s]://[user:pass@]host:port, with no path or query", redact(raw))
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, false, fmt.Errorf("%q: the port must be 1 to 65535", redact(raw))
		}
		port = n
	}
	return host, port, implicit, nil
}

// redact drops a URL's password, so that an error message or a log line never shows it.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	return u.Redacted()
}

// CheckAddress checks one email address as a person types it (no display name, at most 254
// bytes) and returns it with its domain lowercased.
func CheckAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("the email address is empty")
	}
	if len(s) > 254 {
		return "", errors.New("the email address is longer than 254 characters")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
		return "", fmt.Errorf("%q is not an email address", s)
	}
	local, domain, _ := strings.Cut(a.Address, "@")
	if !strings.Contains(domain, ".") && domain != "localhost" {
		return "", fmt.Errorf("%q is not an email address: the domain has no dot", s)
	}
	return local + "@" + strings.ToLower(domain), nil
}

// New makes a Mailer on cfg and starts its queue's sender; Close stops it.
func New(cfg Config) (*Mailer, error) {
	host, port, implicit, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("the sender %q is not an email address (e.g. \"Hearth <chat@example.com>\")", cfg.From)
	}
	u, _ := url.Parse(cfg.URL)
	m := &Mailer{
		host:     host,
		port:     port,
		implicit: implicit,
		policy:   gomail.TLSMandatory,
		from:     from.String(),
		tls:      cfg.TLS,
		timeout:  cfg.Timeout,
		log:      cfg.Log,
		queue:    make(chan Message, queueMax),
		done:     make(chan struct{}),
	}
	if u.User != nil {
		m.user = u.User.Username()
		m.pass, _ = u.User.Password()
	}
	if !TLSRequired(cfg.URL) && !implicit {
		m.policy = gomail.TLSOpportunistic
	}
	if m.timeout <= 0 {
		m.timeout = sendTimeout
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	if m.tls == nil {
		m.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	m.tls = m.tls.Clone()
	m.tls.ServerName = host
	m.wg.Add(1)
	go m.sendQueued()
	return m, nil
}

// TLSRequired tells whether a mailer on the -smtp-url raw refuses to send unencrypted: always
// but to a loopback host over smtp://, since a relay on the same machine (a local postfix)
// often offers no TLS, and nothing crosses a network to it.
func TLSRequired(raw string) bool {
	host, _, implicit, err := ParseURL(raw)
	return err != nil || implicit || !isLoopback(host)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Where says where mail goes, without the password, for the start's log line.
func (m *Mailer) Where() string {
	scheme := "smtp"
	if m.implicit {
		scheme = "smtps"
	}
	return scheme + "://" + net.JoinHostPort(m.host, strconv.Itoa(m.port))
}

func checkMessage(msg Message) error {
	if _, err := CheckAddress(msg.To); err != nil {
		return err
	}
	if strings.ContainsAny(msg.Subject, "\r\n") || utf8.RuneCountInString(msg.Subject) > SubjectMax {
		return fmt.Errorf("the subject must be one line of at most %d characters", SubjectMax)
	}
	if len(msg.Text) > BodyMax || len(msg.HTML) > BodyMax {
		return fmt.Errorf("the message is larger than %d KiB", BodyMax>>10)
	}
	if msg.Text == "" {
		return errors.New("the message has no text")
	}
	return nil
}

// Send delivers one message now, within the mailer's timeout (or ctx's, if shorter).
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	if err := checkMessage(msg); err != nil {
		return err
	}
	em := gomail.NewMsg()
	if err := em.From(m.from); err != nil {
		return err
	}
	if err := em.To(msg.To); err != nil {
		return err
	}
	em.Subject(msg.Subject)
	em.SetDate()
	em.SetMessageID()
	em.SetBodyString(gomail.TypeTextPlain, msg.Text)
	if msg.HTML != "" {
		em.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	}
	opts := []gomail.Option{
		gomail.WithPort(m.port),
		gomail.WithTimeout(m.timeout),
		gomail.WithTLSConfig(m.tls),
	}
	if m.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(m.policy))
	}
	if m.user != "" {
		// PLAIN or LOGIN, whichever the server offers (both need TLS but on loopback).
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(m.user), gomail.WithPassword(m.pass))
	}
	c, err := gomail.NewClient(m.host, opts...)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	if err := c.DialAndSendWithContext(ctx, em); err != nil {
		return fmt.Errorf("send mail through %s: %w", m.Where(), err)
	}
	return nil
}

// Enqueue hands a message to the queue's sender and returns at once: false when the message
// is malformed, the queue is full or the mailer is closed (the caller's answer must not depend
// on it: "Forgot password" answers the same whether or not a mail went). Failures are logged.
func (m *Mailer) Enqueue(msg Message) bool {
	if err := checkMessage(msg); err != nil {
		m.log.Warn("a mail was not sent", "err", err)
		return false
	}
	select {
	case <-m.done:
		return false
	default:
	}
	select {
	case m.queue <- msg:
		return true
	default:
		m.log.Warn("the mail queue is full: a mail was dropped", "queued", queueMax)
		return false
	}
}

func (m *Mailer) sendQueued() {
	defer m.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-m.done
		cancel()
	}()
	for {
		select {
		case <-m.done:
			return
		case msg := <-m.queue:
			if err := m.Send(ctx, msg); err != nil {
				m.log.Error("mail not delivered", "subject", msg.Subject, "err", err)
			}
		}
	}
}

// Close stops the sender; a delivery in progress is cancelled and what is queued is dropped.
func (m *Mailer) Close() {
	m.closeOnce.Do(func() { close(m.done) })
	m.wg.Wait()
}
