package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/acme"

	"hearth/auth"
	"hearth/blob"
	"hearth/engine"
	"hearth/engine/mail"
	"hearth/engine/outbound"
	"hearth/engine/store"
)

// Config is everything the server is told at start, from flags and HEARTH_* variables.
type Config struct {
	Addr           string
	Data           string
	BaseURL        string
	Bucket         string
	WebURL         string
	TrustedIssuers []string
	Owner          string
	Name           string
	TLSCert        string
	TLSKey         string
	UpdateFeed     string
	LogLevel       string
	NoLocalIssuer  bool
	FilesRedirect  bool
	BotRate        float64
	BotBurst       int
	ReplayDays     int
	ReplayEvents   int
	Memory         string
	MetricsAddr    string
	// PreviewAllowPrivate lets link previews fetch loopback and private addresses, on any
	// port: for tests and closed networks only.
	PreviewAllowPrivate bool
	OIDCClients         []string
	CORSOrigins         []string
	BackupTo            string
	BackupEvery         time.Duration
	BackupKeep          int
	// TrustedProxies (-trusted-proxy) are the CIDRs of the reverse proxies whose
	// X-Forwarded-For or Forwarded headers name the client address.
	TrustedProxies []string
	// SMTPURL (-smtp-url) and MailFrom (-mail-from): where the server's mail goes, and from
	// whom.
	SMTPURL  string
	MailFrom string

	// PushAllowPrivate lets push subscriptions name http endpoints and loopback or private
	// addresses, on any port: for tests and closed networks only.
	PushAllowPrivate bool
	// DiskMinFree (-disk-min-free) is the free space below which the data disk counts as full;
	// 0 is the rule of 64 MiB or 1% of the disk, whichever is larger.
	DiskMinFree byteSize
	// Domains (-domain) get certificates by ACME (acme.go); the server then serves HTTPS on
	// HTTPSAddr and HTTP-01 challenges and redirects on HTTPAddr ("" for none), not Addr.
	Domains       []string
	HTTPSAddr     string
	HTTPAddr      string
	ACMEDirectory string
	ACMEEmail     string
	ACMECARoot    string

	// acmeRoots are the system's roots and -acme-ca-root's, loaded by validate.
	acmeRoots *x509.CertPool

	// VoicePort is the UDP and TCP port of voice (media and TURN); 0 turns voice off.
	VoicePort int
	// VoicePublicIP is the address clients reach voice at, for a server behind NAT.
	VoicePublicIP string
	// voicePublic is VoicePublicIP parsed by validate; voiceUDP and voiceTCP the port, taken
	// by serve before anything opens.
	voicePublic netip.Addr
	voiceUDP    *net.UDPConn
	voiceTCP    net.Listener

	// tlsCert is the certificate of -tls-cert and -tls-key, loaded by validate.
	tlsCert *tls.Certificate
}

// listFlag is a repeatable flag; from the environment it takes a comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// serveFlags declares the server's flags on fs.
func serveFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Addr, "addr", ":8080", "address to listen on")
	fs.StringVar(&c.Data, "data", "./data", "data directory: database, keys, files")
	fs.StringVar(&c.BaseURL, "base-url", "", "the server's canonical URL, also the token audience (default http://localhost:8080, or https:// and the first -domain)")
	fs.StringVar(&c.Bucket, "bucket", "", "file bucket URL (file://, s3://, gs://, azblob://, mem://); default file://<data>/files")
	fs.StringVar(&c.WebURL, "web-url", "", "the web client's URL, where invite links lead (default {base-url}/app)")
	fs.Var((*listFlag)(&c.TrustedIssuers), "trusted-issuer", "token issuer to trust (repeatable; comma list in the environment)")
	fs.StringVar(&c.Owner, "owner", "", "the login ISS#SUB that becomes the owner (default: the first person to join)")
	fs.StringVar(&c.Name, "name", "Hearth", "the community's name when it is created")
	fs.StringVar(&c.TLSCert, "tls-cert", "", "TLS certificate file (with -tls-key)")
	fs.StringVar(&c.TLSKey, "tls-key", "", "TLS key file (with -tls-cert)")
	fs.StringVar(&c.UpdateFeed, "update-feed", "", "URL of a JSON feed of releases per track, checked at most daily")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&c.NoLocalIssuer, "no-local-issuer", false, "do not act as a token issuer (no accounts, no sign-in page); trust only -trusted-issuer and -oidc-client")
	fs.BoolVar(&c.FilesRedirect, "files-redirect", false, "answer file downloads with a redirect to the bucket's own short-lived URL (s3, gs, azblob)")
	fs.Float64Var(&c.BotRate, "bot-rate", 20, "messages per second each bot may send")
	fs.IntVar(&c.BotBurst, "bot-burst", 40, "messages a bot may send in a burst")
	fs.IntVar(&c.ReplayDays, "replay-days", 7, "the event log keeps at least this many days of events for reconnecting clients")
	fs.IntVar(&c.ReplayEvents, "replay-events", 100000, "the event log keeps at least this many events for reconnecting clients")
	fs.StringVar(&c.Memory, "memory", "small", "database memory profile: small (fits a 512 MB VPS) or default (Badger's own, for hosts with memory to spare)")
	fs.BoolVar(&c.PreviewAllowPrivate, "preview-allow-private", false, "let link previews fetch loopback and private addresses on any port (for tests and closed networks only)")
	fs.BoolVar(&c.PushAllowPrivate, "push-allow-private", false, "let push subscriptions name http endpoints and loopback or private addresses on any port (for tests and closed networks only)")
	fs.Var((*listFlag)(&c.TrustedProxies), "trusted-proxy", "IP address or CIDR of a reverse proxy whose X-Forwarded-For/Forwarded name the client address (repeatable; comma list in the environment)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on this separate address, e.g. 127.0.0.1:9464 (default: off)")
	fs.Var((*listFlag)(&c.OIDCClients), "oidc-client", "ISSUER=CLIENT_ID: an external issuer the browser client signs in with, trusted like -trusted-issuer (repeatable; comma list in the environment)")
	fs.Var((*listFlag)(&c.CORSOrigins), "cors-origin", "an origin (scheme://host[:port]) allowed to call the API from a browser; repeatable; default: any")
	fs.StringVar(&c.BackupTo, "backup-to", "", "where backups go: a folder, or a bucket URL (under backups/ in it); default the file bucket, under backups/")
	fs.DurationVar(&c.BackupEvery, "backup-every", 0, "take a backup at this interval, e.g. 24h (default 0: only when hearth backup asks)")
	fs.IntVar(&c.BackupKeep, "backup-keep", 7, "how many backups -backup-to keeps, the newest (0 keeps all)")
	fs.StringVar(&c.SMTPURL, "smtp-url", "", "send mail (password reset and address confirmation links) through smtp://[user:pass@]host:port (STARTTLS) or smtps://... (TLS); default: no mail")
	fs.StringVar(&c.MailFrom, "mail-from", "", "the sender of the server's mail, e.g. \"Hearth <chat@example.com>\" (needed with -smtp-url)")
	fs.Var((*listFlag)(&c.Domains), "domain", "serve HTTPS for this domain, with certificates from -acme-directory got and renewed by the server (repeatable; comma list in the environment)")
	fs.StringVar(&c.HTTPSAddr, "https-addr", ":443", "with -domain: the address to serve HTTPS on (in place of -addr)")
	fs.StringVar(&c.HTTPAddr, "http-addr", ":80", "with -domain: the address that answers HTTP-01 challenges and redirects everything else to HTTPS (empty: none, TLS-ALPN-01 only)")
	fs.StringVar(&c.ACMEDirectory, "acme-directory", acme.LetsEncryptURL, "with -domain: the ACME directory URL of the certificate authority")
	fs.StringVar(&c.ACMEEmail, "acme-email", "", "with -domain: a contact address the certificate authority may write to about the certificates")
	fs.StringVar(&c.ACMECARoot, "acme-ca-root", "", "with -domain: a PEM file of CA certificates to trust for -acme-directory (a private ACME server)")
	fs.Var(&c.DiskMinFree, "disk-min-free", "refuse writes while the data disk has less free space than this, e.g. 512MiB (default: 64MiB or 1% of the disk, whichever is larger)")
	fs.IntVar(&c.VoicePort, "voice-port", 7881, "UDP and TCP port of voice channels (media and TURN), on every interface; 0 turns voice off")
	fs.StringVar(&c.VoicePublicIP, "voice-public-ip", "", "the IP address clients reach voice at, for a server behind NAT (default: the interfaces' addresses, and -base-url's host's)")
}

// parseFlags parses args, then fills every flag not given on the command line from its
// HEARTH_<NAME> variable (-base-url reads HEARTH_BASE_URL). A bad value is one line naming the
// flag (or the variable); -h prints the usage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	// The flag package prints the whole usage after any mistake; we print one line.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	err = nil
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		name := "HEARTH_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("invalid value %q for %s (-%s): %v", v, name, f.Name, e)
			}
		}
	})
	return err
}

// validate checks the configuration before anything starts, so a mistake is one clear line.
func (c *Config) validate() error {
	if err := c.validateDomains(); err != nil {
		return err
	}
	if c.BaseURL == "" {
		c.BaseURL = c.defaultBaseURL()
	}
	base, err := checkBaseURL(c.BaseURL)
	if err != nil {
		return err
	}
	c.BaseURL = base
	if c.WebURL == "" {
		c.WebURL = c.BaseURL + "/app"
	}
	if u, err := url.Parse(c.WebURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("-web-url %q must be an absolute http or https URL without query or fragment", c.WebURL)
	}
	c.WebURL = strings.TrimSuffix(c.WebURL, "/")
	if c.Bucket != "" {
		if err := blob.ValidateURL(c.Bucket); err != nil {
			return fmt.Errorf("-bucket: %v", err)
		}
	}
	for _, iss := range c.TrustedIssuers {
		if err := auth.ValidateIssuerURL(iss); err != nil {
			return fmt.Errorf("-trusted-issuer: %v", err)
		}
	}
	if _, err := c.oidcClients(); err != nil {
		return err
	}
	if c.NoLocalIssuer && len(c.TrustedIssuers) == 0 && len(c.OIDCClients) == 0 {
		return errors.New("-no-local-issuer needs at least one -trusted-issuer or -oidc-client, or nobody could log in")
	}
	for _, o := range c.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			return err
		}
	}
	if c.Owner != "" {
		if _, err := c.ownerLogin(); err != nil {
			return err
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("-tls-cert and -tls-key go together")
	}
	if c.TLSCert != "" {
		// Loaded now, so that a missing or mismatched file stops the start in one line rather
		// than after the database is open and the banner says the server runs.
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return fmt.Errorf("-tls-cert/-tls-key: %v", err)
		}
		c.tlsCert = &cert
	}
	if c.UpdateFeed != "" {
		if u, err := url.Parse(c.UpdateFeed); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("-update-feed %q must be an http or https URL", c.UpdateFeed)
		}
	}
	// Said so that NaN, which no comparison holds for, is refused too.
	if !(c.BotRate > 0 && c.BotRate <= 10000) {
		return fmt.Errorf("-bot-rate %g must be more than 0 and at most 10000 messages a second", c.BotRate)
	}
	if c.BotBurst < 1 || c.BotBurst > 100000 {
		return fmt.Errorf("-bot-burst %d must be 1 to 100000", c.BotBurst)
	}
	if c.ReplayDays < 1 || c.ReplayDays > 3650 {
		return fmt.Errorf("-replay-days %d must be 1 to 3650", c.ReplayDays)
	}
	if c.ReplayEvents < 1000 || c.ReplayEvents > 100_000_000 {
		return fmt.Errorf("-replay-events %d must be 1000 to 100000000", c.ReplayEvents)
	}
	if _, err := c.level(); err != nil {
		return err
	}
	if _, err := c.trustedProxies(); err != nil {
		return err
	}
	if err := engine.CheckCommunityName(c.Name); err != nil {
		return fmt.Errorf("-name %q: %v", c.Name, err)
	}
	if _, err := store.ParseProfile(c.Memory); err != nil {
		return fmt.Errorf("-memory: %v", err)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("-metrics-addr %q must be host:port, e.g. 127.0.0.1:9464", c.MetricsAddr)
		}
	}
	if c.BackupTo != "" && strings.Contains(c.BackupTo, "://") {
		if err := blob.ValidateURL(c.BackupTo); err != nil {
			return fmt.Errorf("-backup-to: %v", err)
		}
	} else if c.BackupTo != "" {
		// A folder named for backups must take them now, not fail at the first one a day later.
		if err := checkWritableDir("-backup-to", "folder", c.BackupTo); err != nil {
			return err
		}
	}
	if c.BackupEvery != 0 && (c.BackupEvery < 5*time.Minute || c.BackupEvery > 366*24*time.Hour) {
		return fmt.Errorf("-backup-every %s must be 0 (off) or 5m to 8784h", c.BackupEvery)
	}
	if c.DiskMinFree != 0 && c.DiskMinFree < 1<<20 {
		return fmt.Errorf("-disk-min-free %s must be at least 1MiB: the database needs room to stop in", c.DiskMinFree.String())
	}
	if c.BackupKeep < 0 || c.BackupKeep > 10000 {
		return fmt.Errorf("-backup-keep %d must be 0 (keep all) to 10000", c.BackupKeep)
	}
	if err := c.checkMail(); err != nil {
		return err
	}
	if c.VoicePort < 0 || c.VoicePort > 65535 {
		return fmt.Errorf("-voice-port %d must be 1 to 65535, or 0 (voice off)", c.VoicePort)
	}
	if c.VoicePublicIP != "" {
		a, err := netip.ParseAddr(c.VoicePublicIP)
		if err != nil || a.IsUnspecified() || a.Zone() != "" {
			return fmt.Errorf("-voice-public-ip %q must be an IP address, e.g. 203.0.113.7", c.VoicePublicIP)
		}
		c.voicePublic = a
	}
	return checkWritableDir("-data", "data directory", c.Data)
}

// defaultBaseURL is -base-url's default: https:// and the first -domain (with -https-addr's
// port unless it is 443), or the local address of a first try.
func (c *Config) defaultBaseURL() string {
	if len(c.Domains) == 0 {
		return "http://localhost:8080"
	}
	host := c.Domains[0]
	if _, port, err := net.SplitHostPort(c.HTTPSAddr); err == nil && port != "443" {
		host = net.JoinHostPort(host, port)
	}
	return "https://" + host
}

// validateDomains checks -domain and the flags that go with it.
func (c *Config) validateDomains() error {
	if len(c.Domains) == 0 {
		return nil
	}
	for i, d := range c.Domains {
		if err := checkDomain(d); err != nil {
			return err
		}
		c.Domains[i] = strings.ToLower(strings.TrimSuffix(d, "."))
	}
	if c.TLSCert != "" || c.TLSKey != "" {
		return errDomainWithTLSFiles
	}
	if _, _, err := net.SplitHostPort(c.HTTPSAddr); err != nil {
		return fmt.Errorf("-https-addr %q must be host:port, e.g. :443", c.HTTPSAddr)
	}
	if c.HTTPAddr != "" {
		if _, _, err := net.SplitHostPort(c.HTTPAddr); err != nil {
			return fmt.Errorf("-http-addr %q must be host:port, e.g. :80, or empty", c.HTTPAddr)
		}
	}
	if u, err := url.Parse(c.ACMEDirectory); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("-acme-directory %q must be an https URL", c.ACMEDirectory)
	}
	if c.ACMEEmail != "" && (!strings.Contains(c.ACMEEmail, "@") || strings.ContainsAny(c.ACMEEmail, " \t<>,;:")) {
		return fmt.Errorf("-acme-email %q must be an email address", c.ACMEEmail)
	}
	if c.ACMECARoot != "" {
		pool, err := loadCARoot(c.ACMECARoot)
		if err != nil {
			return err
		}
		c.acmeRoots = pool
	}
	return nil
}

// checkBaseURL checks -base-url and returns it without a trailing slash.
func checkBaseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("-base-url %q must be an absolute http or https URL without user info, query or fragment", s)
	}
	return strings.TrimSuffix(s, "/"), nil
}

// ownerLogin parses -owner ISS#SUB.
func (c *Config) ownerLogin() (*engine.Login, error) {
	if c.Owner == "" {
		return nil, nil
	}
	iss, sub, ok := strings.Cut(c.Owner, "#")
	if !ok || iss == "" || sub == "" {
		return nil, fmt.Errorf("-owner %q must be ISSUER#SUBJECT, e.g. https://login.example.com#alice", c.Owner)
	}
	return &engine.Login{Issuer: strings.TrimSuffix(iss, "/"), Subject: sub}, nil
}

// trustedIssuers are the -trusted-issuer URLs (the local issuer, unless -no-local-issuer, is
// trusted besides them).
func (c *Config) trustedIssuers() []string {
	var out []string
	for _, iss := range c.TrustedIssuers {
		out = append(out, strings.TrimSuffix(iss, "/"))
	}
	return out
}

// oidcClients parses -oidc-client. Their issuers are trusted too (web.Open adds them).
func (c *Config) oidcClients() ([]auth.OIDCClient, error) {
	var out []auth.OIDCClient
	for _, s := range c.OIDCClients {
		oc, err := auth.ParseOIDCClient(s)
		if err != nil {
			return nil, fmt.Errorf("-oidc-client: %v", err)
		}
		if !c.NoLocalIssuer && oc.Issuer == c.BaseURL {
			return nil, fmt.Errorf("-oidc-client %q names the server itself: its built-in issuer is listed already, with client id %s", s, auth.WebClientID)
		}
		for _, prev := range out {
			if prev.Issuer == oc.Issuer {
				return nil, fmt.Errorf("-oidc-client names %s twice: an issuer has one client id", oc.Issuer)
			}
		}
		out = append(out, oc)
	}
	return out, nil
}

// checkOrigin checks a -cors-origin: a scheme, a host and maybe a port, nothing else.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || o != u.Scheme+"://"+u.Host {
		return fmt.Errorf("-cors-origin %q must be an origin: scheme://host[:port], e.g. https://chat.example.com, without a path or trailing slash", o)
	}
	return nil
}

func (c *Config) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("-log-level %q must be debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// checkWritableDir creates dir (what flag names, a what) if needed and proves we can write
// in it.
func checkWritableDir(flag, what, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%s %s: cannot create the %s: %v", flag, dir, what, unwrapPathError(err))
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: the %s is not writable: %v", flag, dir, what, unwrapPathError(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(filepath.Clean(name))
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// trustedProxies parses -trusted-proxy: CIDRs, or single addresses.
func (c *Config) trustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("-trusted-proxy %q must be a CIDR such as 10.0.0.0/8 or an IP address", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// previewPolicy is the address policy of link previews: public addresses on ports 80 and
// 443, unless -preview-allow-private lifts both rules.
func (c *Config) previewPolicy() outbound.Policy {
	if c.PreviewAllowPrivate {
		return outbound.Policy{AllowPrivate: true, AnyPort: true}
	}
	return outbound.Public
}

// pushPolicy is the address policy of Web Push: https endpoints at public addresses on ports
// 80 and 443, unless -push-allow-private lifts the rules.
func (c *Config) pushPolicy() outbound.Policy {
	if c.PushAllowPrivate {
		return outbound.Policy{AllowPrivate: true, AnyPort: true}
	}
	return outbound.Public
}

// checkMail checks -smtp-url and -mail-from, which go together.
func (c *Config) checkMail() error {
	switch {
	case c.SMTPURL == "" && c.MailFrom == "":
		return nil
	case c.SMTPURL == "":
		return errors.New("-mail-from needs -smtp-url: the server that sends the mail")
	case c.MailFrom == "":
		return errors.New("-smtp-url needs -mail-from: the sender's address, e.g. \"Hearth <chat@example.com>\"")
	}
	if _, _, _, err := mail.ParseURL(c.SMTPURL); err != nil {
		return fmt.Errorf("-smtp-url %v", err)
	}
	if _, err := netmail.ParseAddress(c.MailFrom); err != nil {
		return fmt.Errorf("-mail-from %q is not an email address, e.g. \"Hearth <chat@example.com>\"", c.MailFrom)
	}
	return nil
}
