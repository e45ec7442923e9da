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
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/metrics"
)

// Options configure the HTTP surface.
type Options struct {
	Engine   *engine.Engine
	Verifier *auth.Verifier
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
	var interceptors []connect.Interceptor
	if opts.Metrics != nil {
		interceptors = append(interceptors, opts.Metrics.Interceptor())
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
	mux.Handle(svcv1connect.NewServerServiceHandler(&serverService{eng: opts.Engine}, handlerOpts...))
	mux.Handle(svcv1connect.NewBotServiceHandler(&botService{eng: opts.Engine}, handlerOpts...))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok"))
	})
	base := opts.Engine.ServerInfo().GetBaseUrl()
	webURL := strings.TrimSuffix(opts.WebURL, "/")
	if webURL == "" {
		webURL = base + "/app"
	}
	mux.HandleFunc(uploadRoute, upload(opts.Engine, a))
	handleEmoji(mux, opts.Engine, a)
	mux.HandleFunc("GET /files/{id}/{name}", serveFile(opts.Engine, opts.FilesRedirect))
	mux.HandleFunc(previewImageRoute, servePreviewImage(opts.Engine))
	mux.HandleFunc("GET /invite/{code}", inviteRedirect(webURL, base))
	mux.HandleFunc("GET /i/{code}", inviteRedirect(webURL, base))
	mountSignIn(mux, opts)
	var h http.Handler = mux
	if opts.Metrics != nil {
		h = opts.Metrics.Routes(mux)
	}
	// CORS outside the intake, so that what the intake refuses still reaches a browser on
	// another origin as a refusal; logging inside it, where the client address is known.
	in := &intake{proxies: opts.TrustedProxies}
	return withCORS(opts.CORSOrigins, in.wrap(logRequests(opts.Log, h))), in
}

// call runs a unary engine method for the authenticated caller.
func call[Req, Res any](ctx context.Context, req *connect.Request[Req], fn func(context.Context, engine.Caller, *Req) (*Res, error)) (*connect.Response[Res], error) {
	res, err := fn(ctx, callerOf(ctx), req.Msg)
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(res), nil
}

// logRequests writes one line per request at debug level.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !log.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "client", clientAddr(r.Context()), "took", time.Since(start))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush keeps streaming responses streaming through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
