// Package webtest starts a real Hearth for tests, assembled by web.Open as the binary is: a
// Badger database in a temp dir, a file bucket beside it (or any bucket, WithBucketURL), the
// file URL key, the sandbox, the local token issuer, the engine and the HTTP surface on a
// loopback httptest server that speaks HTTP/1.1 and cleartext HTTP/2 (net/http's, set up as
// web.NewHTTPServer sets up the binary's) — and hands out Connect clients logged in as anyone.
package webtest

import (
	"context"
	cryptotls "crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/blob"
	"hearth/engine"
	"hearth/engine/diskspace"
	"hearth/engine/sandbox"
	"hearth/engine/sandbox/sandboxtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
)

// Server is a running Hearth.
type Server struct {
	URL    string
	Dir    string
	Engine *engine.Engine
	Issuer *auth.Issuer

	t       testing.TB
	cfg     web.Config
	http    *httptest.Server
	handler atomic.Pointer[http.Handler]
	// restarting is set while Restart runs: closed when the server is open again.
	restarting atomic.Pointer[chan struct{}]
	// noUpgrades strips requests of their Upgrade (StripUpgrades).
	noUpgrades atomic.Bool
	current    atomic.Pointer[web.Server]
	app        *web.Server
	tls        bool
}

// StripUpgrades makes the server see requests as a proxy that does not pass the WebSocket
// upgrade forwards them (nginx without its Upgrade settings): without Upgrade and Connection.
func (s *Server) StripUpgrades(on bool) { s.noUpgrades.Store(on) }

// Option changes the engine options of a test server.
type Option func(*engine.Options)

// Start starts a server that stops when the test ends. It is assembled by web.Open, as the
// binary is, on a file bucket in the test's folder (unless an Option gives another bucket) and
// a sandbox shared by the test binary.
func Start(t testing.TB, options ...Option) *Server {
	t.Helper()
	return StartConfig(t, nil, options...)
}

// StartConfig is Start with a change to the server's web.Config beyond the engine's options
// (the plugins' limits, say), made before the server opens.
func StartConfig(t testing.TB, config func(*web.Config), options ...Option) *Server {
	t.Helper()
	return start(t, false, config, options...)
}

// StartTLS is StartConfig with the server on TLS (HTTP/2 by ALPN, and HTTP/1.1), on a
// certificate for 127.0.0.1 that TLSConfig trusts. Its Connect clients (Client, Join) speak
// HTTP/2 over TLS.
func StartTLS(t testing.TB, config func(*web.Config), options ...Option) *Server {
	t.Helper()
	return start(t, true, config, options...)
}

func start(t testing.TB, tls bool, config func(*web.Config), options ...Option) *Server {
	t.Helper()
	s := &Server{t: t, Dir: t.TempDir(), tls: tls}
	s.http = httptest.NewUnstartedServer(nil)
	s.URL = "http://" + s.http.Listener.Addr().String()
	if tls {
		s.URL = "https://" + s.http.Listener.Addr().String()
	}
	opts := engine.Options{
		BaseURL:       s.URL,
		PresenceGrace: 50 * time.Millisecond,
	}
	for _, o := range options {
		o(&opts)
	}
	s.URL = opts.BaseURL
	if opts.Sandbox == nil {
		opts.Sandbox = sharedSandbox(t)
	}
	if opts.Bucket == nil {
		// The test's own, open across restarts and seeding, so a test can put objects while
		// the server is stopped; it is the bucket web.Open would open by default.
		b, err := blob.Open(context.Background(), "", s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		opts.Bucket = b
	}
	s.cfg = web.Config{Data: s.Dir, Engine: opts, Log: Logger(), PasswordParams: TestPasswordParams, AdminSocket: true,
		// 1 MiB, not the rule of 1% of the disk: whatever the machine's disk holds, the tests'
		// writes go through (web/diskfull_test.go sets its own).
		Disk: diskspace.Options{MinFree: 1 << 20}}
	if config != nil {
		config(&s.cfg)
	}
	// The HTTP server outlives the assembled server, which a test may restart: its handler
	// and its hook on connections are the current one's.
	s.http.Config = web.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.noUpgrades.Load() {
			r.Header.Del("Upgrade")
			r.Header.Del("Connection")
		}
		if reopened := s.restarting.Load(); reopened != nil {
			select {
			case <-*reopened:
			case <-r.Context().Done():
				return
			}
		}
		h := s.handler.Load()
		if h == nil { // the test is over (release)
			http.Error(w, "the test server is closed", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(w, r)
	}), Logger(), s.cfg.WriteTimeout)
	s.http.Config.ConnState = func(c net.Conn, st http.ConnState) {
		// A connection accepted as the test ends may come after release.
		if cur := s.current.Load(); cur != nil {
			cur.ConnState(c, st)
		}
	}
	s.open()
	if tls {
		s.http.EnableHTTP2 = true
		s.http.TLS = &cryptotls.Config{NextProtos: []string{"h2", "http/1.1"}}
		s.http.StartTLS()
	} else {
		s.http.Start()
	}
	t.Cleanup(func() {
		s.http.Close()
		s.close()
		s.release()
	})
	return s
}

// TLSConfig is a client's TLS configuration that trusts a StartTLS server, offering protos
// by ALPN.
func (s *Server) TLSConfig(protos ...string) *cryptotls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(s.http.Certificate())
	return &cryptotls.Config{RootCAs: pool, NextProtos: protos}
}

// Logger is quiet unless a test fails loudly: warnings and errors only.
func Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// open assembles the server on the test's data directory. On a restart the database's
// directory lock may still be held for a moment: Badger releases it by closing its descriptor,
// and a process that a test running in parallel starts just then holds a copy of every
// descriptor until it runs its program. So a lock held is waited for, a while.
func (s *Server) open() {
	s.t.Helper()
	app, err := web.Open(context.Background(), s.cfg)
	for deadline := time.Now().Add(Wait); err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		app, err = web.Open(context.Background(), s.cfg)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	s.app, s.Engine, s.Issuer = app, app.Engine, app.Issuer
	h := app.Handler()
	s.handler.Store(&h)
	s.current.Store(app)
}

func (s *Server) close() {
	if err := s.app.Close(); err != nil {
		s.t.Error(err)
	}
}

// release lets go of the closed server's engine, caches and handlers. The testing package
// keeps every parallel test, and what its cleanups refer to, until the whole run ends: the
// servers of web's tests held some 700 MB there, which every collection of the test process
// went through again.
func (s *Server) release() {
	s.app, s.Engine, s.Issuer, s.cfg = nil, nil, nil, web.Config{}
	s.handler.Store(nil)
	s.current.Store(nil)
}

// SetFilesRedirect turns the -files-redirect mode on or off; the server restarts to take it.
func (s *Server) SetFilesRedirect(on bool) {
	s.cfg.FilesRedirect = on
	s.Restart()
}

// SetTrustedProxies sets -trusted-proxy: requests from these peers (the tests' are from
// 127.0.0.1) are taken to come from the address their X-Forwarded-For or Forwarded names. The
// server restarts to take it.
func (s *Server) SetTrustedProxies(cidrs ...string) {
	s.t.Helper()
	s.cfg.TrustedProxies = nil
	for _, c := range cidrs {
		s.cfg.TrustedProxies = append(s.cfg.TrustedProxies, netip.MustParsePrefix(c))
	}
	s.Restart()
}

// TestPasswordParams make argon2id cheap for tests (1 MiB, one pass): the code path is the
// same as with the default cost, which the auth package tests on its own.
var TestPasswordParams = auth.PasswordParams{MemoryKiB: 1024, Iterations: 1, Parallelism: 1}

// SetWebURL sets -web-url (the invite redirects' target and a redirect URI of the sign-in);
// the server restarts to take it.
func (s *Server) SetWebURL(u string) {
	s.cfg.WebURL = u
	s.Restart()
}

// SetCORSOrigins restricts cross-origin calls to origins (-cors-origin); the server restarts.
func (s *Server) SetCORSOrigins(origins ...string) {
	s.cfg.CORSOrigins = origins
	s.Restart()
}

// SetOIDCClients lists external issuers for the browser client and trusts them
// (-oidc-client); the server restarts.
func (s *Server) SetOIDCClients(clients ...auth.OIDCClient) {
	s.cfg.OIDCClients = clients
	s.Restart()
}

// SetSignInClock runs the built-in issuer's sign-in on now (refresh token expiry, codes, the
// sign-in limits); the server restarts, so sign-ins in progress are forgotten.
func (s *Server) SetSignInClock(now func() time.Time) {
	s.cfg.SignInClock = now
	s.Restart()
}

// SetBackups sets where and how often the server takes backups; the server restarts to take it.
func (s *Server) SetBackups(b web.BackupConfig) {
	s.cfg.Backups = b
	s.Restart()
}

// App is the assembled server (its metrics, its disk guard, its backups).
func (s *Server) App() *web.Server { return s.app }

// Bucket is the server's file bucket.
func (s *Server) Bucket() *blob.Bucket { return s.app.Bucket }

// WithBucketURL runs the server on the bucket at u (for instance blobtest.SharedS3's) instead
// of a file bucket in the test's folder. The bucket is closed when the test ends.
func WithBucketURL(t testing.TB, u string) Option {
	t.Helper()
	b, err := blob.Open(context.Background(), u, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return func(o *engine.Options) { o.Bucket = b }
}

// The sandbox is shared by every server of a test binary: compiling the guest takes a second
// or more (far more under the race detector), and a sandbox never lets one input see another.
var (
	sandboxOnce sync.Once
	sandboxBox  *sandbox.Sandbox
	sandboxErr  error
)

func sharedSandbox(t testing.TB) *sandbox.Sandbox {
	sandboxOnce.Do(func() {
		// A deadline a busy machine under the race detector cannot reach: tests of what the
		// server does with a file the sandbox gives up on bring a sandbox of their own.
		// The compiled guest is kept across runs (sandboxtest.CacheDir); without a cache
		// directory it is compiled in memory.
		dir, _ := sandboxtest.CacheDir()
		sandboxBox, sandboxErr = sandbox.New(context.Background(), sandbox.Options{CacheDir: dir, Timeout: time.Minute})
	})
	if sandboxErr != nil {
		t.Fatal(sandboxErr)
	}
	return sandboxBox
}

// SettleSandbox waits until the shared sandbox's pool is full. Until then it starts guests in
// the background, after its start or after any test's call took one, and a test that measures
// the heap would count their memory as its own.
func SettleSandbox(t testing.TB) {
	t.Helper()
	sb := sharedSandbox(t)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if waiting, size := sb.Pooled(); waiting == size {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the shared sandbox's pool did not fill within a minute")
		}
	}
}

// Restart stops the server and opens it again on the same data directory, at the same
// address. Open streams end. Requests that come meanwhile wait for the server opened again,
// as a listener that outlives its process (systemd's sockets) would keep them: how long a
// restart takes on a loaded machine (the database's lock waited for, above) then decides
// nothing about what a test sees. Clients that reconnect after an error are tested with
// errors of their own (a stream cut, sends blocked).
func (s *Server) Restart() {
	s.t.Helper()
	s.RestartAfter(func() {})
}

// RestartAfter is Restart with fn run while the server is stopped: a test moves the clock
// there, as time passes while a server is down, or writes the database (Seed), or restores a
// backup (RestoreFresh).
func (s *Server) RestartAfter(fn func()) {
	s.t.Helper()
	reopened := make(chan struct{})
	s.restarting.Store(&reopened)
	defer func() {
		s.restarting.Store(nil)
		close(reopened)
	}()
	s.app.CloseStreams()
	s.close()
	fn()
	s.open()
}

// Token mints a login token for sub from the server's local issuer.
func (s *Server) Token(sub string) string {
	s.t.Helper()
	tok, err := s.Issuer.Mint(sub, "", time.Hour)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// Client is a set of Connect clients that all send one bearer token.
type Client struct {
	Token  string
	Chat   svcv1connect.ChatServiceClient
	Server svcv1connect.ServerServiceClient
	Bot    svcv1connect.BotServiceClient
	// Member is the member the client joined as (set by Join).
	Member *svcv1.Member
}

// HTTPClient speaks cleartext HTTP/2 to the test server (one connection carries every call and
// stream of a client, as gRPC needs). Plain HTTP/1.1 is tested with http.DefaultClient.
func HTTPClient() *http.Client {
	tr := &http.Transport{}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: tr}
}

// Client returns clients that send token (Connect protocol unless opts say otherwise).
func (s *Server) Client(token string, opts ...connect.ClientOption) *Client {
	opts = append([]connect.ClientOption{connect.WithInterceptors(auth.WithBearer(token))}, opts...)
	hc := HTTPClient()
	if s.tls {
		hc = &http.Client{Transport: &http.Transport{TLSClientConfig: s.TLSConfig("h2"), ForceAttemptHTTP2: true}}
	}
	return &Client{
		Token:  token,
		Chat:   svcv1connect.NewChatServiceClient(hc, s.URL, opts...),
		Server: svcv1connect.NewServerServiceClient(hc, s.URL, opts...),
		Bot:    svcv1connect.NewBotServiceClient(hc, s.URL, opts...),
	}
}

// Join logs sub in and joins the community; the first to join becomes the owner and finishes
// the setup, so that tests start from a community in use.
func (s *Server) Join(sub string) *Client {
	s.t.Helper()
	c := s.Client(s.Token(sub))
	res, err := c.Server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		s.t.Fatalf("join %s: %v", sub, err)
	}
	c.Member = res.Msg.GetMember()
	if c.Member.GetRole() == svcv1.MemberRole_MEMBER_ROLE_OWNER && s.Engine.NeedsSetup() {
		done := true
		_, err := c.Server.UpdateServerSettings(context.Background(), connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done}))
		if err != nil {
			s.t.Fatalf("finish setup: %v", err)
		}
	}
	return c
}
