package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
// unsupported content type, a body over the limit or malformed).
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := &requestLog{log: log, addr: requestAddr(r), start: time.Now()}
		r = r.WithContext(context.WithValue(r.Context(), requestLogKey{}, l))
		lw := &logWriter{StatusWriter: metrics.NewStatusWriter(w)}
		next.ServeHTTP(lw, r)
		if !l.logged {
			l.logRequest(r, lw)
		}
	})
}

// maxLoggedErrorBody is how much of an error answer's body the log keeps to find its message.
const maxLoggedErrorBody = 4 << 10

// logWriter is the response as the request log sees it: its status, and the start of the body
// of an error answer (status 400 and up), which holds its message: `{"error": ...}` from a
// plain endpoint, `{"code": ..., "message": ...}` from a Connect call that failed before the
// interceptors. A gRPC call's code is in its headers or trailers (its HTTP status is 200).
type logWriter struct {
	*metrics.StatusWriter
	errBody []byte
}

func (w *logWriter) Write(b []byte) (int, error) {
	if w.Status >= 400 && len(w.errBody) < maxLoggedErrorBody {
		w.errBody = append(w.errBody, b[:min(len(b), maxLoggedErrorBody-len(w.errBody))]...)
	}
	return w.StatusWriter.Write(b)
}

// outcome is the code and message of a request that no interceptor logged: for a call, its
// Connect code ("ok" when it succeeded) and the error's message; for a plain endpoint, its
// error's text. failed says whether it failed.
func (w *logWriter) outcome(call bool) (code, msg string, failed bool) {
	var body struct {
		Code, Message, Error string
	}
	if len(w.errBody) > 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		json.Unmarshal(w.errBody, &body)
	}
	if !call {
		return "", body.Error, w.Status >= 400
	}
	if status, message, ok := grpcStatus(w.Header()); ok {
		return status, message, status != "ok"
	}
	if w.Status >= 400 {
		if body.Code == "" {
			body.Code = "unknown"
		}
		return body.Code, body.Message, true
	}
	return "ok", "", false
}

// grpcStatus reads a gRPC or gRPC-Web answer's status from its headers or trailers (net/http
// takes trailers set after the body as headers with http.TrailerPrefix).
func grpcStatus(h http.Header) (code, msg string, ok bool) {
	get := func(name string) (string, bool) {
		for k, v := range h {
			k = strings.TrimPrefix(k, http.TrailerPrefix)
			if len(v) > 0 && strings.EqualFold(k, name) {
				return v[0], true
			}
		}
		return "", false
	}
	s, ok := get("Grpc-Status")
	if !ok {
		return "", "", false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "unknown", s, true
	}
	if n == 0 {
		return "ok", "", true
	}
	msg, _ = get("Grpc-Message")
	if m, err := url.PathUnescape(msg); err == nil {
		msg = m
	}
	return connect.Code(n).String(), msg, true
}

// maxLoggedPath bounds a path logged as it came (an unknown route or procedure): a client can
// send one of a megabyte.
const maxLoggedPath = 200

// logRequest writes the line of a request no interceptor logged.
//
// Never inlined, like the other ends of a request's log: the handlers around a Subscribe
// stream wait in their frames for the stream's whole life, and a log line's attributes in
// those frames would keep every idle stream's goroutine on a stack twice the size (see
// engine.RunOnFreshStack).
//
//go:noinline
func (l *requestLog) logRequest(r *http.Request, w *logWriter) {
	call := isCall(r)
	code, errMsg, failed := w.outcome(call)
	level := slog.LevelDebug
	if failed {
		level = slog.LevelInfo
	}
	if !l.log.Enabled(r.Context(), level) {
		return
	}
	route := r.Pattern // set by the mux on the request it was given
	if route == "" || call {
		// A call is named by its procedure, as the interceptor names it.
		route = r.URL.Path
		if !call {
			route = r.Method + " " + route
		}
		if len(route) > maxLoggedPath {
			route = strings.ToValidUTF8(route[:maxLoggedPath], "") + "..."
		}
	}
	msg := "request"
	if failed {
		msg = "request failed"
	}
	attrs := []slog.Attr{slog.String("method", route), slog.Int("status", w.Status)}
	if call {
		attrs = append(attrs, slog.String("code", code))
	}
	attrs = append(attrs, slog.String("member", l.member), slog.String("addr", l.addr), slog.Duration("took", time.Since(l.start)))
	if errMsg != "" {
		attrs = append(attrs, slog.String("error", errMsg))
	}
	if l.cause != nil {
		attrs = append(attrs, slog.String("err", l.cause.Error()))
	}
	l.log.LogAttrs(r.Context(), level, msg, attrs...)
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
