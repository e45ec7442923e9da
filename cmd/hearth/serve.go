package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"hearth/auth"
	"hearth/blob"
	"hearth/engine"
	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/web"
	"hearth/web/metrics"
)

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Config
	serveFlags(fs, &c)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if err := c.validate(); err != nil {
		return usageError{err}
	}
	level, _ := c.level()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := openApp(ctx, c, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		a.close()
		return usageError{fmt.Errorf("-addr %s: %v", c.Addr, err)}
	}
	if err := a.serveMetrics(c.MetricsAddr, stdout, log); err != nil {
		ln.Close()
		a.close()
		return usageError{err}
	}
	fmt.Fprintf(stdout, "Hearth is running at %s (listening on %s)\n", c.BaseURL, ln.Addr())
	if !c.NoLocalIssuer {
		fmt.Fprintf(stdout, "Log in with a token from the local issuer:\n  go run ./cmd/hearth token -data %s -base-url %s -sub alice\n", c.Data, c.BaseURL)
	}
	return a.serve(ctx, ln, c, log)
}

// app is the assembled server: database, bucket, sandbox, engine, authentication and HTTP
// surface.
type app struct {
	db      *store.DB
	bucket  *blob.Bucket
	sandbox *sandbox.Lazy
	eng     *engine.Engine
	srv     *http.Server
	// metrics is nil unless -metrics-addr is set; metricsSrv serves it there.
	metrics    *metrics.Metrics
	metricsSrv *http.Server
}

// sandboxQuiet is how long the sandbox stays started after its last upload.
const sandboxQuiet = 5 * time.Minute

func openApp(ctx context.Context, c Config, log *slog.Logger) (*app, error) {
	owner, _ := c.ownerLogin()
	bucket, err := blob.Open(ctx, c.Bucket, c.Data)
	if err != nil {
		return nil, fmt.Errorf("open the file bucket: %w", err)
	}
	profile, _ := store.ParseProfile(c.Memory)
	tuneGC(profile, os.Getenv)
	db, err := store.Open(filepath.Join(c.Data, "db"), profile, log)
	if err != nil {
		bucket.Close()
		return nil, err
	}
	a := &app{db: db, bucket: bucket}
	signer, err := blob.LoadOrCreateSigner(c.Data)
	if err != nil {
		a.close()
		return nil, err
	}
	// The sandbox starts on the first upload and stops after sandboxQuiet without one: a
	// started sandbox holds 60 MB and more, an idle server should not. Compiled code is
	// cached under the data folder, so that every start but the very first takes a tenth
	// of a second rather than a whole one.
	a.sandbox, err = sandbox.NewLazy(sandbox.Options{CacheDir: filepath.Join(c.Data, "cache", "wazero")}, sandboxQuiet)
	if err != nil {
		a.close()
		return nil, err
	}
	if c.FilesRedirect && !bucket.CanSign() {
		log.Warn("-files-redirect does nothing on this bucket: it cannot sign its own URLs, so files are served by the server")
	}
	var observer engine.Observer
	if c.MetricsAddr != "" {
		a.metrics = metrics.New()
		observer = a.metrics
	}
	var issuer *auth.Issuer
	if !c.NoLocalIssuer {
		if issuer, err = auth.LoadOrCreateIssuer(c.Data, c.BaseURL, time.Now); err != nil {
			a.close()
			return nil, err
		}
	}
	var updates engine.UpdateChecker
	if c.UpdateFeed != "" {
		updates = newUpdateFeed(ctx, c.UpdateFeed, &http.Client{Timeout: 30 * time.Second}, log)
	}
	a.eng, err = engine.Open(db, engine.Options{
		BaseURL:        c.BaseURL,
		TrustedIssuers: c.issuers(),
		Owner:          owner,
		Name:           c.Name,
		Version:        version,
		Updates:        updates,
		BotRate:        c.BotRate,
		BotBurst:       c.BotBurst,
		ReplayDays:     c.ReplayDays,
		ReplayEvents:   c.ReplayEvents,
		Bucket:         bucket,
		Signer:         signer,
		Sandbox:        a.sandbox,
		SpoolDir:       filepath.Join(c.Data, "tmp"),
		Log:            log,
		Observer:       observer,
	})
	if err != nil {
		a.close()
		return nil, err
	}
	if a.metrics != nil {
		a.metrics.Watch(a.eng.Stats)
	}
	verifier, err := auth.NewVerifier(ctx, auth.VerifierConfig{
		Audience:       c.BaseURL,
		TrustedIssuers: c.issuers(),
		HTTPClient:     &http.Client{Timeout: 10 * time.Second},
		Now:            time.Now,
		Issuer:         issuer,
	})
	if err != nil {
		a.close()
		return nil, err
	}
	a.srv = &http.Server{
		Handler:           web.New(web.Options{Engine: a.eng, Verifier: verifier, Issuer: issuer, WebURL: c.WebURL, FilesRedirect: c.FilesRedirect, Log: log, Metrics: a.metrics}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Cleartext HTTP/2 (h2c) next to HTTP/1.1 on one port: Connect, gRPC and gRPC-Web all work
	// without TLS, as behind a reverse proxy that terminates it.
	a.srv.Protocols = new(http.Protocols)
	a.srv.Protocols.SetHTTP1(true)
	a.srv.Protocols.SetHTTP2(true)
	a.srv.Protocols.SetUnencryptedHTTP2(true)
	return a, nil
}

// serve runs until ctx ends (SIGINT or SIGTERM), then shuts down in order: streams first so
// the HTTP server can drain, then the writer (what is queued is committed), the sandbox (no
// upload is left to inspect), the database and the bucket.
func (a *app) serve(ctx context.Context, ln net.Listener, c Config, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() {
		if c.TLSCert != "" {
			cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
			if err != nil {
				errc <- usageError{fmt.Errorf("-tls-cert/-tls-key: %v", err)}
				return
			}
			a.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			errc <- a.srv.ServeTLS(ln, "", "")
			return
		}
		errc <- a.srv.Serve(ln)
	}()
	var err error
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-errc:
	}
	a.eng.CloseStreams()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e := a.srv.Shutdown(shutdownCtx); e != nil && err == nil {
		err = e
	}
	a.close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err == nil {
		log.Info("stopped")
	}
	return err
}

func (a *app) close() {
	if a.metricsSrv != nil {
		a.metricsSrv.Close()
	}
	if a.eng != nil {
		a.eng.Close()
	}
	if a.sandbox != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a.sandbox.Close(ctx)
		cancel()
	}
	if a.db != nil {
		a.db.Close()
	}
	if a.bucket != nil {
		a.bucket.Close()
	}
}
