package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"hearth/auth"
	"hearth/blob"
	"hearth/engine"
	"hearth/engine/backup"
	"hearth/engine/diskspace"
	"hearth/engine/mail"
	"hearth/engine/notify"
	"hearth/engine/outbound"
	"hearth/engine/plugins"
	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/engine/voice"
	"hearth/web/metrics"
)

// The one assembly of a Hearth server: cmd/hearth and the tests (web/webtest) both build the
// server with Open, so a dependency is wired in one place and the tests run what ships.

// Config is everything Open needs. Zero values take the defaults noted.
type Config struct {
	// Data is the data directory: the database, the keys, the default file bucket, caches.
	Data string
	// Engine are the community's options (base URL, trusted issuers, owner, name, rates,
	// replay window, clock...). Open fills Bucket, Signer, Sandbox, SpoolDir (<Data>/tmp), Log
	// and Observer where they are unset, and puts the local issuer first among TrustedIssuers
	// unless NoLocalIssuer. Dependencies given here stay the caller's to close.
	Engine engine.Options
	// BucketURL is the file bucket (a gocloud URL) when Engine.Bucket is nil; empty means
	// file://<Data>/files.
	BucketURL string
	// WebURL is the web client's address, where invite links lead (default {base_url}/app).
	WebURL string
	// NoLocalIssuer: the server does not act as a token issuer.
	NoLocalIssuer bool
	// FilesRedirect answers GET /files with a redirect to the bucket's own short-lived URL
	// where the bucket can make one.
	FilesRedirect bool
	// Memory is the database's memory profile (default store.ProfileSmall).
	Memory store.Profile
	// Metrics collects metrics of calls, routes and the engine (Server.Metrics), which the
	// caller serves on an address of its own.
	Metrics bool
	// IssuerHTTPClient fetches remote issuers' discovery documents and keys (default: the
	// outbound client with the operator's policy, since issuers are named by the operator and
	// may be on loopback or the local network, and a 10 s timeout).
	IssuerHTTPClient *http.Client
	// TrustedProxies are the proxies whose X-Forwarded-For or Forwarded headers name the client
	// address (-trusted-proxy); from any other peer, the client address is the peer's.
	TrustedProxies []netip.Prefix
	// OIDCClients are the external issuers the browser client signs in with (-oidc-client):
	// listed at /oauth/issuers, and trusted as if among Engine.TrustedIssuers.
	OIDCClients []auth.OIDCClient
	// CORSOrigins restricts cross-origin calls to these origins (-cors-origin); empty allows
	// any.
	CORSOrigins []string
	// SignInClock is the built-in issuer's sign-in clock: refresh token expiry, codes, the
	// sign-in limits (default time.Now; tokens it signs are checked on the wall clock).
	SignInClock func() time.Time
	// PasswordParams is argon2id's cost for new passwords (default
	// auth.DefaultPasswordParams).
	PasswordParams auth.PasswordParams
	// Plugins are the plugin host's options; Open fills Dir (<Data>/plugins), Clock and Log
	// (the engine's) where they are empty.
	Plugins plugins.Options
	// Notify are the notifier's options (Web Push, email digests); Open sets Policy to
	// Engine.PushPolicy, Mailer and Address (the built-in issuer's verified addresses) when the
	// server sends mail, and fills Dir (<Data>), WebURL, Version, Clock, Log and Observer (the
	// metrics) where they are empty.
	Notify notify.Options
	// Voice are the voice server's options (-voice-port, -voice-public-ip); an empty Addr
	// leaves voice off. Open fills Host (the base URL's) and Log where they are empty.
	Voice voice.Options
	// Log receives every log line (default slog.Default()).
	Log *slog.Logger
	// AdminSocket serves <Data>/admin.sock (mode 0600), through which `hearth backup` and
	// `hearth healthcheck` talk to the running server.
	AdminSocket bool
	// Backups says where the server's backups go and how often it takes them.
	Backups BackupConfig
	// Mail is where the server's mail goes (-smtp-url, -mail-from): reset and verification
	// links, notifications. An empty URL sends none.
	Mail mail.Config
	// Disk configures the guard of the data disk (Server.Disk): MinFree is -disk-min-free
	// (zero: 64 MiB or 1% of the disk, whichever is larger); Log defaults to Log.
	Disk diskspace.Options
	// WriteTimeout bounds every write to a client: each write of an answer, each batch of
	// events of a stream, on every transport. A client that does not take it in time is cut
	// off, and its stream ends as slow_consumer (default 30 s).
	WriteTimeout time.Duration
	// MaxConnsPerAddr caps the open connections of one client address (default 256; -1 for
	// no cap); see ConnState for which connections count.
	MaxConnsPerAddr int
	// StalledAfter: a request that has waited this long on its client (a body that does not
	// come, an answer not read) stops counting among its address's requests in flight before
	// authentication once the address has none left (default 5 s).
	StalledAfter time.Duration
}

// BackupConfig is where backups go and how often they are taken.
type BackupConfig struct {
	// To is a local folder, or a bucket URL (backups go under backups/ in it); empty means
	// the file bucket, under backups/.
	To string
	// Every takes a backup at this interval; 0 takes them only when asked.
	Every time.Duration
	// Keep is how many backups the destination keeps, the newest; 0 keeps all.
	Keep int
}

// Server is an assembled Hearth: open it with Open, serve Handler, and Close it.
type Server struct {
	Engine *engine.Engine
	// Issuer is the local token issuer; nil with NoLocalIssuer.
	Issuer *auth.Issuer
	// Metrics is nil unless Config.Metrics.
	Metrics *metrics.Metrics
	// Bucket is the file bucket.
	Bucket *blob.Bucket
	// Plugins runs the plugins of the data directory.
	Plugins *plugins.Host
	// Notify sends the Web Push notifications.
	Notify *notify.Service
	// Disk watches the data disk: while it is full, changes and uploads are refused.
	Disk *diskspace.Guard
	// Voice is the voice server; nil when voice is off.
	Voice *voice.Server

	handler http.Handler
	intake  *intake
	conns   *connLimit
	log     *slog.Logger
	// writeTimeout is Config.WriteTimeout with its default.
	writeTimeout time.Duration
	db           *store.DB
	// Owned by the server, closed by Close (nil when the caller gave its own).
	ownBucket  *blob.Bucket
	ownSandbox *sandbox.Lazy
	stopAuth   context.CancelFunc
	// Backups takes the server's backups (nil until Open succeeds).
	Backups      *backup.Service
	backupBucket *blob.Bucket
	admin        *adminServer
	// Mailer sends the server's mail; nil without -smtp-url.
	Mailer *mail.Mailer
	// SignIn is the built-in issuer's sign-in (nil with NoLocalIssuer).
	SignIn    *auth.Provider
	closeOnce sync.Once
	closeErr  error
}

// sandboxQuiet is how long the sandbox stays started after its last use.
const sandboxQuiet = 5 * time.Minute

// Open assembles a server on cfg: the bucket, the database, the file URL key, the sandbox, the
// engine, the local issuer, token verification and the HTTP surface. On failure nothing stays
// open.
func Open(ctx context.Context, cfg Config) (s *Server, err error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Memory == "" {
		cfg.Memory = store.ProfileSmall
	}
	opts := cfg.Engine
	if opts.Log == nil {
		opts.Log = cfg.Log
	}
	if opts.BaseURL == "" {
		return nil, errors.New("the server needs its base URL")
	}
	s = &Server{}
	// The returns below set s to nil: close what was opened through a copy.
	opened := s
	defer func() {
		if err != nil {
			opened.Close()
		}
	}()
	if opts.Bucket == nil {
		if s.ownBucket, err = blob.Open(ctx, cfg.BucketURL, cfg.Data); err != nil {
			return nil, fmt.Errorf("open the file bucket: %w", err)
		}
		opts.Bucket = s.ownBucket
	}
	s.Bucket = opts.Bucket
	// Bad credentials or a missing bucket stop the server now, in one line, rather than at the
	// first upload.
	if err := s.Bucket.Check(ctx); err != nil {
		return nil, err
	}
	if s.db, err = store.Open(filepath.Join(cfg.Data, "db"), cfg.Memory, cfg.Log); err != nil {
		return nil, err
	}
	dopts := cfg.Disk
	if dopts.Log == nil {
		dopts.Log = cfg.Log
	}
	s.Disk = diskspace.New(cfg.Data, dopts)
	if opts.Disk == nil {
		opts.Disk = s.Disk
	}
	s.db.SetRoom(func() error {
		if full, _, _ := s.Disk.Full(); full {
			return diskspace.ErrFull
		}
		return nil
	})
	// With the database open, no other server uses this data directory: what a file bucket
	// holds half written was left by a server that died mid-upload.
	if n, err := s.Bucket.SweepPartial(ctx); err != nil {
		cfg.Log.Warn("could not remove the partly written files of an earlier run", "err", err)
	} else if n > 0 {
		cfg.Log.Info("removed the partly written files of an earlier run", "count", n)
	}
	if opts.Signer == nil {
		if opts.Signer, err = blob.LoadOrCreateSigner(cfg.Data); err != nil {
			return nil, err
		}
	}
	if opts.Sandbox == nil {
		// The sandbox starts on first use and stops after sandboxQuiet without one: a started
		// sandbox holds 60 MB and more, an idle server should not. Compiled code is cached under
		// the data folder, so that every start but the very first takes a tenth of a second.
		if s.ownSandbox, err = sandbox.NewLazy(sandbox.Options{CacheDir: filepath.Join(cfg.Data, "cache", "wazero")}, sandboxQuiet); err != nil {
			return nil, err
		}
		opts.Sandbox = s.ownSandbox
	}
	if opts.SpoolDir == "" {
		opts.SpoolDir = filepath.Join(cfg.Data, "tmp")
	}
	if cfg.FilesRedirect && !s.Bucket.CanSign() {
		cfg.Log.Warn("-files-redirect does nothing on this bucket: it cannot sign its own URLs, so files are served by the server")
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if cfg.Metrics {
		s.Metrics = metrics.New()
		s.Metrics.BuildInfo(opts.Version, engine.TrackOf(opts.Version))
		if opts.Observer == nil {
			opts.Observer = s.Metrics
		}
	}
	if !cfg.NoLocalIssuer {
		if s.Issuer, err = auth.LoadOrCreateIssuer(cfg.Data, opts.BaseURL, time.Now); err != nil {
			return nil, err
		}
		opts.TrustedIssuers = append([]string{opts.BaseURL}, opts.TrustedIssuers...)
	}
	for _, c := range cfg.OIDCClients {
		if !slices.Contains(opts.TrustedIssuers, c.Issuer) {
			opts.TrustedIssuers = append(opts.TrustedIssuers, c.Issuer)
		}
	}
	if s.Engine, err = engine.Open(s.db, opts); err != nil {
		return nil, err
	}
	if s.Metrics != nil {
		s.Metrics.Watch(s.Engine.Stats)
	}
	popts := cfg.Plugins
	if popts.Dir == "" {
		popts.Dir = filepath.Join(cfg.Data, "plugins")
	}
	if popts.Clock == nil {
		popts.Clock = opts.Clock
	}
	if popts.Log == nil {
		popts.Log = opts.Log
	}
	if s.Plugins, err = plugins.New(s.Engine, popts); err != nil {
		return nil, err
	}
	if s.Voice, err = openVoice(cfg, opts, s.Engine); err != nil {
		return nil, fmt.Errorf("start voice: %w", err)
	}
	client := cfg.IssuerHTTPClient
	if client == nil {
		version := opts.Version
		if version == "" {
			version = "dev"
		}
		client = outbound.New(outbound.Options{Policy: outbound.Operator, Timeout: 10 * time.Second, UserAgent: outbound.UserAgent(version)}).HTTPClient()
	}
	// The verifier refreshes remote issuers' keys in the background until Close.
	authCtx, stopAuth := context.WithCancel(context.Background())
	s.stopAuth = stopAuth
	verifier, err := auth.NewVerifier(authCtx, auth.VerifierConfig{
		Audience:       opts.BaseURL,
		TrustedIssuers: opts.TrustedIssuers,
		HTTPClient:     client,
		Now:            time.Now,
		Issuer:         s.Issuer,
	})
	if err != nil {
		return nil, err
	}
	if cfg.Mail.URL != "" {
		mc := cfg.Mail
		if mc.Log == nil {
			mc.Log = cfg.Log
		}
		if s.Mailer, err = mail.New(mc); err != nil {
			return nil, fmt.Errorf("-smtp-url: %w", err)
		}
	}
	var signIn *auth.Provider
	if s.Issuer != nil {
		// The built-in issuer's accounts live in the database, beside the engine's rows.
		issuer := s.Issuer.URL()
		eng := s.Engine
		signIn, err = auth.NewProvider(auth.ProviderConfig{
			Issuer:    s.Issuer,
			Accounts:  accountStore{s.db.Accounts()},
			Security:  AccountSecurity(s.db.Accounts()),
			Community: SignUpCommunity(s.Engine, issuer),
			WebURL:    cfg.WebURL,
			Now:       cfg.SignInClock,
			Log:       cfg.Log,
			Password:  cfg.PasswordParams,
			// The intake's client address: -trusted-proxy applies to sign-in's limits too.
			ClientAddr: ClientAddr,
			Mailer:     s.Mailer,
			TwoStepRequired: func(subject string) bool {
				return eng.TwoStepRequired(engine.Login{Issuer: issuer, Subject: subject})
			},
		})
		if err != nil {
			return nil, err
		}
		s.SignIn = signIn
	}
	if s.Notify, err = openNotify(cfg, opts, s.Engine, s.Metrics, s.Mailer, signIn); err != nil {
		return nil, err
	}
	s.log = cfg.Log
	s.writeTimeout = cfg.WriteTimeout
	if s.writeTimeout <= 0 {
		s.writeTimeout = writeTimeout
	}
	s.conns = &connLimit{proxies: cfg.TrustedProxies, max: cfg.MaxConnsPerAddr}
	if s.conns.max == 0 {
		s.conns.max = maxConnsPerAddr
	}
	s.handler, s.intake = newHandler(Options{
		Engine:         s.Engine,
		Plugins:        s.Plugins,
		Notify:         s.Notify,
		Voice:          s.Voice,
		Verifier:       verifier,
		Issuer:         s.Issuer,
		SignIn:         signIn,
		OIDCClients:    cfg.OIDCClients,
		CORSOrigins:    cfg.CORSOrigins,
		WebURL:         cfg.WebURL,
		FilesRedirect:  cfg.FilesRedirect,
		Log:            cfg.Log,
		Metrics:        s.Metrics,
		TrustedProxies: cfg.TrustedProxies,
		WriteTimeout:   s.writeTimeout,
		StalledAfter:   cfg.StalledAfter,
		conns:          s.conns,
	})
	if err := s.openBackups(ctx, cfg, opts); err != nil {
		return nil, err
	}
	if cfg.AdminSocket {
		if s.admin, err = listenAdmin(cfg.Data, s.Engine, s.Backups, signIn, opts.Version, cfg.Log); err != nil {
			// The socket is for operators' commands; a server that cannot have one (a data
			// directory whose path is too long for a socket) still serves.
			cfg.Log.Warn("no admin socket: hearth backup and hearth healthcheck will not reach this server", "err", err)
		}
	}
	cfg.Log.Info("starting", "version", opts.Version, "data", absPath(cfg.Data), "bucket", s.Bucket.Where(),
		"issuers", opts.TrustedIssuers, "backups", s.Backups.Destination().String(), "backup_every", cfg.Backups.Every)
	return s, nil
}

// WaitRequests returns once no request is being handled, or with ctx's error. A server that
// shuts down calls it after closing its connections, so that every handler has let go of
// what it held (an upload its temporary file) before Close.
func (s *Server) WaitRequests(ctx context.Context) error {
	if s.intake == nil {
		return nil
	}
	return s.intake.running.wait(ctx)
}

// openBackups makes the backup service on its destination and starts its schedule.
func (s *Server) openBackups(ctx context.Context, cfg Config, opts engine.Options) error {
	var dest backup.Destination = backup.InBucket{Bucket: s.Bucket}
	var skip []string
	switch to := cfg.Backups.To; {
	case strings.Contains(to, "://"):
		b, err := blob.Open(ctx, to, "")
		if err != nil {
			return fmt.Errorf("open the backup bucket: %w", err)
		}
		s.backupBucket = b
		if err := b.CheckAs(ctx, "backup", "-backup-to"); err != nil {
			return err
		}
		dest = backup.InBucket{Bucket: b}
	case to != "":
		dest = backup.Folder(to)
		skip = append(skip, to)
	}
	bopts := backup.Options{Dest: dest, Keep: cfg.Backups.Keep, Clock: opts.Clock}
	// A backup written to the data disk stops before the disk is full: the database must
	// never find it at its end (diskspace).
	if local := localDir(dest); local != "" && diskspace.SameDisk(local, cfg.Data) {
		bopts.Room = s.Disk.Check
	}
	if s.Metrics != nil {
		bopts.Done = func(at time.Time, res backup.Result, err error) { s.Metrics.BackupDone(at, res.Bytes, err) }
	}
	s.Backups = backup.NewService(backup.Source{
		DB: s.db, Dir: cfg.Data, Bucket: s.Bucket, Skip: skip, Version: opts.Version, Log: cfg.Log,
	}, bopts)
	s.Backups.Schedule(cfg.Backups.Every)
	s.Engine.ReportBackups(func() (engine.LastBackup, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		o, ok := s.Backups.Latest(ctx)
		return engine.LastBackup{At: o.At, Err: o.Err, Location: o.Result.Location, Bytes: o.Result.Bytes}, ok
	})
	return nil
}

// localDir is the folder of a destination on this machine, or "".
func localDir(d backup.Destination) string {
	switch d := d.(type) {
	case backup.Folder:
		return string(d)
	case backup.InBucket:
		return d.Bucket.Dir()
	}
	return ""
}

// Listening tells the admin socket where the main port listens, for `hearth healthcheck`.
func (s *Server) Listening(addr string, tls bool) {
	if s.admin != nil {
		s.admin.listening(addr, tls)
	}
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Accounts is the built-in issuer's account store in the server's database.
func (s *Server) Accounts() auth.AccountStore { return accountStore{s.db.Accounts()} }

// AccountSecurity is the built-in issuer's security records (second steps, verified addresses)
// in the server's database.
func (s *Server) AccountSecurity() auth.SecurityStore { return AccountSecurity(s.db.Accounts()) }

// Handler serves every endpoint of the server.
func (s *Server) Handler() http.Handler { return s.handler }

// CloseStreams ends every Subscribe stream and voice session (and with them their Signal
// streams), so that an HTTP server shutting down can drain.
func (s *Server) CloseStreams() {
	if s.Voice != nil {
		s.Voice.Close()
	}
	if s.Engine != nil {
		s.Engine.CloseStreams()
	}
}

// Close stops everything in order: backups (one in progress is cancelled), the admin socket,
// the plugins (they call the engine), the engine (streams end, queued changes are committed),
// the sandbox (nothing is left to inspect), the database and the bucket. Closing again does
// nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	if s.Backups != nil {
		s.Backups.Close()
	}
	if s.admin != nil {
		s.admin.close()
	}
	if s.backupBucket != nil {
		s.backupBucket.Close()
	}
	if s.stopAuth != nil {
		s.stopAuth()
	}
	if s.Plugins != nil {
		// First: the plugins call the engine.
		s.Plugins.Close()
	}
	if s.Notify != nil {
		s.Notify.Close()
	}
	if s.Mailer != nil {
		// After the notifier, which mails the digests.
		s.Mailer.Close()
	}
	if s.Voice != nil {
		// Before the engine: the sessions leave their seats as they end.
		s.Voice.Close()
	}
	if s.Engine != nil {
		s.Engine.Close()
	}
	if s.ownSandbox != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s.ownSandbox.Close(ctx)
		cancel()
	}
	var err error
	if s.db != nil {
		err = s.db.Close()
	}
	if s.ownBucket != nil {
		s.ownBucket.Close()
	}
	return err
}

// HTTPServer returns the HTTP server that serves s (see NewHTTPServer), with the cap on
// connections per client address (Config.MaxConnsPerAddr).
func (s *Server) HTTPServer() *http.Server {
	srv := NewHTTPServer(s.Handler(), s.log, s.writeTimeout)
	srv.ConnState = s.ConnState
	return srv
}

// ConnState is the http.Server hook that caps the connections per client address: a
// connection over the cap is closed as it opens. Connections from a -trusted-proxy, and from
// loopback and private addresses (a reverse proxy on the same host or network), are not
// capped: only the TCP peer is known when a connection opens.
func (s *Server) ConnState(c net.Conn, st http.ConnState) {
	if s.conns != nil {
		s.conns.state(c, st)
	}
}

// NewHTTPServer is the HTTP server every Hearth listener uses: net/http's HTTP/1.1, HTTP/2
// over TLS (chosen by ALPN when it serves TLS) and cleartext HTTP/2 with prior knowledge (h2c)
// on one port, so that Connect, gRPC and gRPC-Web all work with and without TLS (as behind a
// reverse proxy that terminates it). Request headers must come within 10 s, idle connections
// close after 2 minutes. Writes are bounded per write, not per answer (see answerWriter):
// writeTimeout is also how long an HTTP/2 connection may go without the client taking any of
// what waits for it (a client that reads nothing), after which it is closed.
func NewHTTPServer(h http.Handler, log *slog.Logger, writeTimeout time.Duration) *http.Server {
	if writeTimeout <= 0 {
		writeTimeout = 30 * time.Second
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		HTTP2: &http.HTTP2Config{
			// net/http's own default, said here: each connection's streams are bounded, and
			// so are the connections per address.
			MaxConcurrentStreams: 250,
			WriteByteTimeout:     writeTimeout,
		},
	}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}
