package web

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/web/metrics"
)

// Request logs (DECISIONS.md, "Observability"): at info, one line per failed call or request
// and per stream opened and closed; at debug, the successful ones too. Each line names the
// method (a Connect procedure, or an HTTP method and route), the code or status, the member
// (once authenticated), the client address and the duration. Bodies, tokens and signed URLs
// never appear.

// requestLog is what one request's log line learns while it is served: the HTTP middleware
// makes it, authentication adds the member, the Connect interceptor logs calls with their code
// (a gRPC call's HTTP status is always 200), and Subscribe says how its stream ended.
type requestLog struct {
	log    *slog.Logger
	addr   string
	start  time.Time
	member string
	// logged is set once the Connect interceptor wrote the line.
	logged bool
	// opened and end: a stream the engine opened, and how it ended.
	opened bool
	end    engine.StreamEnd
	// cause is the error behind an internal error, which the client is not told.
	cause error
}

type requestLogKey struct{}

func requestLogOf(ctx context.Context) *requestLog {
	l, _ := ctx.Value(requestLogKey{}).(*requestLog)
	return l
}

// noteMember records the authenticated member of the request.
func noteMember(ctx context.Context, id string) {
	if l := requestLogOf(ctx); l != nil {
		l.member = id
	}
}

// noteCause records the error behind an internal error, for the log only.
func noteCause(ctx context.Context, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if l := requestLogOf(ctx); l != nil && err != nil && engine.CodeOf(err) == engine.CodeInternal {
		l.cause = err
	}
}

// streamOpened logs a stream the engine is about to serve.
func (l *requestLog) streamOpened(ctx context.Context, procedure string) {
	if l == nil {
		return
	}
	l.opened = true
	l.log.LogAttrs(ctx, slog.LevelInfo, "stream opened", slog.String("method", procedure), slog.String("member", l.member), slog.String("addr", l.addr))
}

// requestAddr is the TCP peer's address of a request; the intake replaces it in the request's
// log with the client address (the same, unless the peer is a trusted proxy).
func requestAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// logRequests is the outermost handler: it logs the plain endpoints' requests, and those
// Connect requests that failed before reaching the interceptors (an unknown procedure, an
// unsupported content type, a body over the limit).
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := &requestLog{log: log, addr: requestAddr(r), start: time.Now()}
		r = r.WithContext(context.WithValue(r.Context(), requestLogKey{}, l))
		sw := metrics.NewStatusWriter(w)
		next.ServeHTTP(sw, r)
		if !l.logged {
			l.logRequest(r, sw.Status)
		}
	})
}

// logRequest writes the line of a request no interceptor logged.
//
// Never inlined, like the other ends of a request's log: the handlers around a Subscribe
// stream wait in their frames for the stream's whole life, and a log line's attributes in
// those frames would keep every idle stream's goroutine on a stack twice the size (see
// engine.RunOnFreshStack).
//
//go:noinline
func (l *requestLog) logRequest(r *http.Request, status int) {
	level := slog.LevelDebug
	if status >= 400 {
		level = slog.LevelInfo
	}
	if !l.log.Enabled(r.Context(), level) {
		return
	}
	route := r.Pattern // set by the mux on the request it was given
	if route == "" {
		route = r.Method + " " + r.URL.Path
	}
	msg := "request"
	if level == slog.LevelInfo {
		msg = "request failed"
	}
	l.log.LogAttrs(r.Context(), level, msg, slog.String("method", route), slog.Int("status", status),
		slog.String("member", l.member), slog.String("addr", l.addr), slog.Duration("took", time.Since(l.start)))
}

// logInterceptor logs Connect calls and streams with their codes. It runs outside
// authentication, so that refused calls are logged too.
type logInterceptor struct{}

func (logInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		if l := requestLogOf(ctx); l != nil {
			l.logged = true
			l.logCall(ctx, req.Spec().Procedure, err)
		}
		return res, err
	}
}

func (logInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (logInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		if l := requestLogOf(ctx); l != nil {
			l.logged = true
			l.logStreamEnd(ctx, conn.Spec().Procedure, err)
		}
		return err
	}
}

// logStreamEnd logs how a stream ended, or the call if it never opened. Never inlined (see
// logRequest).
//
//go:noinline
func (l *requestLog) logStreamEnd(ctx context.Context, procedure string, err error) {
	if !l.opened {
		l.logCall(ctx, procedure, err)
		return
	}
	attrs := []slog.Attr{slog.String("method", procedure), slog.String("ended", string(l.end)), slog.String("code", codeName(err)),
		slog.String("member", l.member), slog.String("addr", l.addr), slog.Duration("took", time.Since(l.start))}
	if l.cause != nil {
		attrs = append(attrs, slog.String("err", l.cause.Error()))
	}
	l.log.LogAttrs(ctx, slog.LevelInfo, "stream closed", attrs...)
}

func (l *requestLog) logCall(ctx context.Context, procedure string, err error) {
	level, msg := slog.LevelDebug, "call"
	if err != nil {
		level, msg = slog.LevelInfo, "call failed"
	}
	if !l.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("method", procedure), slog.String("code", codeName(err)),
		slog.String("member", l.member), slog.String("addr", l.addr), slog.Duration("took", time.Since(l.start))}
	var ce *connect.Error
	if errors.As(err, &ce) {
		attrs = append(attrs, slog.String("error", ce.Message()))
	}
	if l.cause != nil {
		attrs = append(attrs, slog.String("err", l.cause.Error()))
	}
	l.log.LogAttrs(ctx, level, msg, attrs...)
}

// codeName is a Connect error's code, "ok" for none.
func codeName(err error) string {
	if err == nil {
		return "ok"
	}
	return connect.CodeOf(err).String()
}
