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
	"strconv"
	"syscall"
	"time"

	"hearth/engine"
	"hearth/engine/diskspace"
	"hearth/engine/mail"
	"hearth/engine/outbound"
	"hearth/engine/store"
	"hearth/engine/voice"
	"hearth/web"
)

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Config
	serveFlags(fs, &c)
	fs.Usage = func() { printUsage(fs.Output(), fs) }
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
	// The OpenID provider library logs through the default logger: make it this one.
	slog.SetDefault(log)

	// The ports are taken before anything opens: a port in use or a bad address is one line,
	// with no database opened and closed for nothing.
	addrFlag, addr := "-addr", c.Addr
	if len(c.Domains) > 0 {
		addrFlag, addr = "-https-addr", c.HTTPSAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError{fmt.Errorf("%s %s: %v", addrFlag, addr, err)}
	}
	var metricsLn, httpLn net.Listener
	if len(c.Domains) > 0 && c.HTTPAddr != "" {
		if httpLn, err = net.Listen("tcp", c.HTTPAddr); err != nil {
			ln.Close()
			return usageError{fmt.Errorf("-http-addr %s: %v", c.HTTPAddr, err)}
		}
	}
	if c.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", c.MetricsAddr); err != nil {
			ln.Close()
			if httpLn != nil {
				httpLn.Close()
			}
			return usageError{fmt.Errorf("-metrics-addr %s: %v", c.MetricsAddr, err)}
		}
	}
	if c.VoicePort != 0 {
		if c.voiceUDP, c.voiceTCP, err = voice.Listen(":" + strconv.Itoa(c.VoicePort)); err != nil {
			ln.Close()
			if metricsLn != nil {
				metricsLn.Close()
			}
			return usageError{fmt.Errorf("-voice-port %d: %v (-voice-port 0 turns voice off)", c.VoicePort, err)}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := openApp(ctx, c, log)
	if err != nil {
		ln.Close()
		for _, l := range []net.Listener{metricsLn, httpLn} {
			if l != nil {
				l.Close()
			}
		}
		if c.voiceUDP != nil {
			c.voiceUDP.Close()
			c.voiceTCP.Close()
		}
		return err
	}
	a.serveMetrics(metricsLn, stdout, log)
	if len(c.Domains) > 0 {
		a.serveACME(ctx, c, httpLn, stdout, log)
	}
	a.Listening(ln.Addr().String(), c.TLSCert != "" || len(c.Domains) > 0)
	fmt.Fprintf(stdout, "Hearth is running at %s (listening on %s)\n", c.BaseURL, ln.Addr())
	if !c.NoLocalIssuer {
		fmt.Fprintf(stdout, "Log in with a token from the local issuer:\n  %s token -data %s -base-url %s -sub alice\n", selfCommand(), c.Data, c.BaseURL)
		fmt.Fprintf(stdout, "or in the browser client with a link:\n  %s login-link -data %s -base-url %s -web-url %s -sub alice\n", selfCommand(), c.Data, c.BaseURL, c.WebURL)
	}
	return a.serve(ctx, ln, c, log)
}

// app is the assembled server (web.Open) with what only the binary has: its HTTP server and
// the metrics listener.
type app struct {
	*web.Server
	srv *http.Server
	// metricsSrv serves Metrics on -metrics-addr.
	metricsSrv *http.Server
	// acme gets and renews the certificates of -domain; httpSrv answers on -http-addr.
	acme    *acmeSite
	httpSrv *http.Server
}

func openApp(ctx context.Context, c Config, log *slog.Logger) (*app, error) {
	owner, _ := c.ownerLogin()
	profile, _ := store.ParseProfile(c.Memory)
	proxies, _ := c.trustedProxies()
	tuneGC(profile, os.Getenv)
	var updates engine.UpdateChecker
	if c.UpdateFeed != "" {
		feed := outbound.New(outbound.Options{Policy: outbound.Operator, Timeout: 30 * time.Second, MaxBody: feedMaxBytes, UserAgent: outbound.UserAgent(version)})
		updates = newUpdateFeed(ctx, c.UpdateFeed, feed.HTTPClient(), log)
	}
	oidcClients, _ := c.oidcClients()
	s, err := web.Open(ctx, web.Config{
		Data: c.Data,
		Engine: engine.Options{
			BaseURL:        c.BaseURL,
			TrustedIssuers: c.trustedIssuers(),
			Owner:          owner,
			Name:           c.Name,
			Version:        version,
			Updates:        updates,
			BotRate:        c.BotRate,
			BotBurst:       c.BotBurst,
			ReplayDays:     c.ReplayDays,
			ReplayEvents:   c.ReplayEvents,
			PreviewPolicy:  c.previewPolicy(),
			PushPolicy:     c.pushPolicy(),
		},
		BucketURL:      c.Bucket,
		WebURL:         c.WebURL,
		NoLocalIssuer:  c.NoLocalIssuer,
		FilesRedirect:  c.FilesRedirect,
		Memory:         profile,
		Metrics:        c.MetricsAddr != "",
		OIDCClients:    oidcClients,
		CORSOrigins:    c.CORSOrigins,
		TrustedProxies: proxies,
		Log:            log,
		AdminSocket:    true,
		Backups:        web.BackupConfig{To: c.BackupTo, Every: c.BackupEvery, Keep: c.BackupKeep},
		Mail:           mail.Config{URL: c.SMTPURL, From: c.MailFrom},
		Disk:           diskspace.Options{MinFree: uint64(c.DiskMinFree)},
		Voice:          voice.Options{UDP: c.voiceUDP, TCP: c.voiceTCP, PublicIP: c.voicePublic},
	})
	if err != nil {
		return nil, err
	}
	return &app{Server: s, srv: s.HTTPServer()}, nil
}

// How a stop is spent (DECISIONS.md: SIGTERM exits 0 within 10 s, however slow a client is).
const (
	// drainTime is how long the requests in progress get to finish once no new one is taken.
	drainTime = 5 * time.Second
	// cutTime is how long handlers get to return after their connections were closed under
	// them (an upload then removes its temporary file).
	cutTime = 2 * time.Second
)

// serve runs until ctx ends (SIGINT or SIGTERM) or the engine stops taking changes
// (enginestop.go), then shuts down in order: streams first, then
// the HTTP server stops taking requests and lets those in progress finish for drainTime; the
// connections of any still running are closed, and their handlers get cutTime to return. Then
// the writer (what is queued is committed), the sandbox, the database and the bucket close. A
// client, however slow, delays the stop by drainTime + cutTime at most.
func (a *app) serve(ctx context.Context, ln net.Listener, c Config, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() {
		if c.tlsCert != nil {
			a.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*c.tlsCert}, MinVersion: tls.VersionTLS12}
			errc <- a.srv.ServeTLS(ln, "", "")
			return
		}
		if a.acme != nil {
			a.srv.TLSConfig = a.acme.TLSConfig()
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
	case <-a.Engine.Stopped():
		err = engineStopped(a.Engine.StopCause(), log)
	}
	a.CloseStreams()
	drainCtx, cancel := context.WithTimeout(context.Background(), drainTime)
	defer cancel()
	if a.srv.Shutdown(drainCtx) != nil {
		log.Warn("closing the connections of requests still running", "after", drainTime)
		a.srv.Close()
		cutCtx, cancel := context.WithTimeout(context.Background(), cutTime)
		defer cancel()
		if a.WaitRequests(cutCtx) != nil {
			log.Warn("requests still running when the server stopped", "after", drainTime+cutTime)
		}
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
	if a.httpSrv != nil {
		a.httpSrv.Close()
	}
	a.Server.Close()
}
