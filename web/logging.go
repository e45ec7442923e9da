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
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

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
	// logged is set once the Connect interceptor wrote the line; counted once the call was
	// counted in the metrics, by their interceptor or by the gate.
	logged, counted bool
	// opened and end: a stream the engine opened, and how it ended.
	opened bool
	end    engine.StreamEnd
	// cause is the error behind an internal error, which the client is not told.
	cause error
}

// requestState is the one value the middleware keeps in a request's context: what its log
// line learns (requestLog) and what the intake tells the handlers inside (intakeState). One
// value, put there by the outermost handler (logRequests), where a value per fact cost a
// context each, and the intake a copy of the request, all alive for as long as a Subscribe
// stream is open (docs/performance.md).
type requestState struct {
	requestLog
	intake intakeState
}

type requestStateKey struct{}

func requestStateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(requestStateKey{}).(*requestState)
	return st
}

// withRequestState is r with st in its context.
func withRequestState(r *http.Request, st *requestState) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), requestStateKey{}, st))
}

// requestLogOf is the request's log line, nil outside logRequests.
func requestLogOf(ctx context.Context) *requestLog {
	if st := requestStateOf(ctx); st != nil && st.log != nil {
		return &st.requestLog
	}
	return nil
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
// unsupported content type, a body over the limit or malformed). Every call that reaches them,
// gRPC's own services' included, is logged by the interceptor (logInterceptor).
// The calls that failed before the interceptors are counted in m too (nil: no metrics).
func logRequests(log *slog.Logger, m *metrics.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &requestState{requestLog: requestLog{log: log, addr: requestAddr(r), start: time.Now()}}
		r = withRequestState(r, st)
		l := &st.requestLog
		// One allocation for both writers: the StatusWriter is held by value.
		lw := &logWriter{StatusWriter: metrics.StatusWriter{ResponseWriter: w, Status: http.StatusOK}}
		next.ServeHTTP(lw, r)
		if !l.logged {
			l.logRequest(r, lw)
		}
		// A preflight (OPTIONS) asks whether a call may be made; it is none.
		if m != nil && !l.counted && (isCall(r) || isToolCall(r)) && r.Method != http.MethodOptions {
			countUnreached(m, r, lw)
		}
	})
}

// countUnreached counts a call that ended before the interceptors, with the code its log line
// names. Never inlined (see logRequest).
//
//go:noinline
func countUnreached(m *metrics.Metrics, r *http.Request, w *logWriter) {
	code, _ := w.result(true)
	if code == "" {
		code, _ = w.message(true, code)
	}
	proc := r.URL.Path
	if !knownProcedures[proc] {
		proc = "unknown"
	}
	m.Unreached(proc, code)
}

// knownProcedures are the paths of every procedure served: those of the API's services (as
// health and reflection name them) and of gRPC's own.
var knownProcedures = func() map[string]bool {
	known := map[string]bool{
		"/" + grpchealth.HealthV1ServiceName + "/Check":                       true,
		"/" + grpchealth.HealthV1ServiceName + "/Watch":                       true,
		"/" + grpcreflect.ReflectV1ServiceName + "/ServerReflectionInfo":      true,
		"/" + grpcreflect.ReflectV1AlphaServiceName + "/ServerReflectionInfo": true,
	}
	for _, name := range services {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			panic("web: service " + name + " is not linked in: " + err.Error())
		}
		methods := d.(protoreflect.ServiceDescriptor).Methods()
		for i := range methods.Len() {
			known["/"+name+"/"+string(methods.Get(i).Name())] = true
		}
	}
	return known
}()

// maxLoggedErrorBody is how much of an error answer's body the log keeps to find its message.
const maxLoggedErrorBody = 4 << 10

// logWriter is the response as the request log sees it, for a request no interceptor logged
// (a plain endpoint's, or a call refused before the interceptors): its status, and the start
// of the body of an error answer (status 400 and up), which holds its message: `{"error": ...}`
// from a plain endpoint, `{"code": ..., "message": ...}` from a Connect call. A gRPC or
// gRPC-Web call refused so has sent no message, and its status is in its headers (HTTP status
// 200). Nothing of a successful request's body is kept or read.
type logWriter struct {
	metrics.StatusWriter
	// errBody is the start of an error answer's body.
	errBody []byte
}

func (w *logWriter) Write(b []byte) (int, error) {
	if w.Status >= 400 && len(w.errBody) < maxLoggedErrorBody {
		w.errBody = append(w.errBody, b[:min(len(b), maxLoggedErrorBody-len(w.errBody))]...)
	}
	return w.StatusWriter.Write(b)
}

// result is how a request no interceptor logged ended, as far as it can be told without
// reading an error's body: whether it failed, and for a call its code when its headers say it
// ("" when only the error body does).
func (w *logWriter) result(call bool) (code string, failed bool) {
	if !call {
		return "", w.Status >= 400
	}
	if w.Status >= 400 {
		return "", true
	}
	if s, ok := grpcHeader(w.Header(), "Grpc-Status"); ok {
		code = grpcCode(s)
		return code, code != "ok"
	}
	return "ok", false
}

// message is the message of a failed request and, for a call whose code only its error body
// holds, that code. It reads the body: it runs only for a line that is written.
func (w *logWriter) message(call bool, code string) (string, string) {
	if s, ok := grpcHeader(w.Header(), "Grpc-Status"); call && ok {
		if _, err := strconv.ParseUint(s, 10, 32); err != nil {
			return "unknown", s
		}
		msg, _ := grpcHeader(w.Header(), "Grpc-Message")
		return grpcCode(s), grpcMessage(msg)
	}
	var body struct {
		Code, Message, Error string
	}
	if len(w.errBody) > 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		json.Unmarshal(w.errBody, &body)
	}
	if !call {
		return "", body.Error
	}
	if body.Code == "" {
		body.Code = clientCode(w.Status)
	}
	return body.Code, body.Message
}

// clientCode is the code a Connect client reads from an answer whose body holds none: its
// HTTP status, mapped as Connect's protocol maps it (a 404 for an unknown procedure is
// unimplemented).
func clientCode(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated.String()
	case http.StatusForbidden:
		return connect.CodePermissionDenied.String()
	case http.StatusNotFound:
		return connect.CodeUnimplemented.String()
	case http.StatusBadRequest:
		return connect.CodeInternal.String()
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return connect.CodeUnavailable.String()
	}
	return connect.CodeUnknown.String()
}

// grpcHeader reads a gRPC or gRPC-Web answer's status header from its headers or trailers
// (net/http takes trailers set after the body as headers with http.TrailerPrefix; Connect sets
// them in canonical form).
func grpcHeader(h http.Header, name string) (string, bool) {
	if v := h[name]; len(v) > 0 {
		return v[0], true
	}
	if v := h[http.TrailerPrefix+name]; len(v) > 0 {
		return v[0], true
	}
	return "", false
}

// grpcMessage is a grpc-message value as it was before its percent-encoding.
func grpcMessage(msg string) string {
	if m, err := url.PathUnescape(msg); err == nil {
		return m
	}
	return msg
}

// grpcCode is the Connect code name of a grpc-status value.
func grpcCode(status string) string {
	n, err := strconv.ParseUint(status, 10, 32)
	switch {
	case err != nil:
		return "unknown"
	case n == 0:
		return "ok"
	}
	return connect.Code(n).String()
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
	call := isCall(r) || isToolCall(r)
	// The level first: an error's body is read only for a line that is written.
	code, failed := w.result(call)
	level := slog.LevelDebug
	if failed {
		level = slog.LevelInfo
	}
	if !l.log.Enabled(r.Context(), level) {
		return
	}
	errMsg := ""
	if failed {
		code, errMsg = w.message(call, code)
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
			l.logged, l.counted = true, true
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
			l.logged, l.counted = true, true
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
