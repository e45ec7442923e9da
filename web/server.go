// Package web is Hearth's HTTP surface: the Connect handlers of the three services (thin: each
// calls one engine method), the plain endpoints, and the middleware: the intake (intake.go:
// the client address, the requests in flight before authentication, body deadlines), the
// authentication of calls before their body is read (authn.go), CORS and the request log. It
// is also where a whole server is assembled (Open, in assembly.go), once, for the binary and
// the tests alike.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	"hearth/engine/notify"
	"hearth/engine/plugins"
	"hearth/engine/voice"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/metrics"
)

// Options configure the HTTP surface.
type Options struct {
	Engine   *engine.Engine
	Verifier *auth.Verifier
	// Plugins runs the plugins; without it the plugin calls answer unavailable.
	Plugins *plugins.Host
	// Notify sends Web Push notifications; without it GetPushConfig answers unavailable.
	Notify *notify.Service
	// Voice is the voice server; without it VoiceService answers unavailable.
	Voice *voice.Server
	// Issuer, when set, serves the local issuer's discovery document and keys.
	Issuer *auth.Issuer
	// SignIn, when set, serves the built-in issuer's sign-in (/oauth/...).
	SignIn *auth.Provider
	// OIDCClients are the external issuers the browser client may sign in with
	// (-oidc-client), listed with the built-in issuer at /oauth/issuers.
	OIDCClients []auth.OIDCClient
	// CORSOrigins restricts cross-origin calls to these origins (-cors-origin); empty
	// allows any.
	CORSOrigins []string
	// WebURL is the web client's address, where invite links lead (default {base_url}/app).
	WebURL string
	// FilesRedirect answers GET /files with a redirect to the bucket's own short-lived URL
	// where the bucket can make one (-files-redirect).
	FilesRedirect bool
	Log           *slog.Logger
	// Metrics, when set, counts and times every call and route.
	Metrics *metrics.Metrics
	// TrustedProxies are the proxies whose forwarding headers name the client address
	// (-trusted-proxy); from any other peer, the client address is the peer's.
	TrustedProxies []netip.Prefix
	// WriteTimeout bounds each write to a client (default 30 s; see Config.WriteTimeout).
	WriteTimeout time.Duration
	// StalledAfter: a request waiting on its client this long stops counting among its
	// address's requests in flight (default 5 s; see Config.StalledAfter).
	StalledAfter time.Duration
	// conns is the cap on connections per client address, which the WebSocket streams keep
	// counting once their connections are hijacked (nil: none).
	conns *connLimit
}

// maxRequestBytes bounds one decoded request. The largest valid ones (a message of 8,000
// characters, server settings with a 4,000-character description) are well under 100 KiB even
// as escaped JSON; uploads have their own endpoint and limit.
const maxRequestBytes = 1 << 20

// New returns the handler of every endpoint of the server.
func New(opts Options) http.Handler {
	h, _ := newHandler(opts)
	return h
}

// newHandler is New, with the intake that counts the requests running (Server.WaitRequests).
func newHandler(opts Options) (http.Handler, *intake) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	a := &authenticator{eng: opts.Engine, verifier: opts.Verifier, metrics: opts.Metrics}
	// The calls refused by the gate (authentication) reach neither: it counts and logs them.
	interceptors := []connect.Interceptor{logInterceptor{}}
	if opts.Metrics != nil {
		interceptors = append([]connect.Interceptor{opts.Metrics.Interceptor()}, interceptors...)
	}
	handlerOpts := append(codecs(opts.Engine.SignURLs),
		// Authentication, before any of the body is read.
		connect.WithRequestGate(a.gate),
		connect.WithInterceptors(interceptors...),
		// Connect reads (and decompresses) a request before any interceptor runs, so this bound
		// is what stops a large or gzip-bombed body from a member.
		connect.WithReadMaxBytes(maxRequestBytes))
	mux := http.NewServeMux()
	mux.Handle(svcv1connect.NewChatServiceHandler(&chatService{eng: opts.Engine}, handlerOpts...))
	mux.Handle(svcv1connect.NewServerServiceHandler(&serverService{eng: opts.Engine, signIn: opts.SignIn}, handlerOpts...))
	mux.Handle(svcv1connect.NewBotServiceHandler(&botService{eng: opts.Engine, plugins: opts.Plugins}, handlerOpts...))
	mux.Handle(svcv1connect.NewNotificationServiceHandler(&notificationService{eng: opts.Engine, notify: opts.Notify}, handlerOpts...))
	mux.Handle(svcv1connect.NewVoiceServiceHandler(&voiceService{eng: opts.Engine, voice: opts.Voice}, handlerOpts...))
	// gRPC's own services are counted and logged as calls too, by their codes (a failed gRPC
	// call's HTTP status is 200).
	mountHealth(mux, opts.Engine, connect.WithInterceptors(interceptors...))
	base := opts.Engine.ServerInfo().GetBaseUrl()
	webURL := strings.TrimSuffix(opts.WebURL, "/")
	if webURL == "" {
		webURL = base + "/app"
	}
	mux.HandleFunc(uploadRoute, upload(opts.Engine, a))
	handleEmoji(mux, opts.Engine, a)
	mux.HandleFunc("GET /files/{id}/{name}", serveFile(opts.Engine, opts.FilesRedirect))
	mux.HandleFunc(exportRoute, serveExport(opts.Engine))
	mux.HandleFunc(previewImageRoute, servePreviewImage(opts.Engine))
	mux.HandleFunc("GET /invite/{code}", inviteRedirect(webURL, base))
	mux.HandleFunc("GET /i/{code}", inviteRedirect(webURL, base))
	wt := opts.WriteTimeout
	if wt == 0 {
		wt = writeTimeout
	}
	// The intake before the routes: /events counts its streams among the intake's running
	// handlers.
	in := &intake{proxies: opts.TrustedProxies, writeTimeout: opts.WriteTimeout}
	mux.Handle(eventsRoute, &events{eng: opts.Engine, auth: a, origins: opts.CORSOrigins, conns: opts.conns, running: &in.running, timeout: wt,
		proto: codec{name: "proto", present: opts.Engine.SignURLs}, json: codec{name: "json", json: true, present: opts.Engine.SignURLs}})
	mountApp(mux)
	mountInstallable(mux, opts.Engine)
	mountFrontDoor(mux, opts.Engine)
	mountSignIn(mux, opts)
	var h http.Handler = mux
	if opts.Metrics != nil {
		h = opts.Metrics.Routes(mux)
	}
	if in.writeTimeout == 0 {
		in.writeTimeout = writeTimeout
	}
	in.writes.timeout = in.writeTimeout
	in.slots.stalledAfter = opts.StalledAfter
	// The request log outermost, so that it sees every answer (the intake names the client
	// address to it); CORS outside the intake, so that what the intake refuses still reaches a
	// browser on another origin as a refusal.
	return logRequests(opts.Log, opts.Metrics, withCORS(opts.CORSOrigins, in.wrap(h))), in
}

// call runs a unary engine method for the authenticated caller.
func call[Req, Res any](ctx context.Context, req *connect.Request[Req], fn func(context.Context, engine.Caller, *Req) (*Res, error)) (*connect.Response[Res], error) {
	res, err := fn(ctx, callerOf(ctx), req.Msg)
	if err != nil {
		noteCause(ctx, err)
		return nil, toConnect(err)
	}
	return connect.NewResponse(res), nil
}
