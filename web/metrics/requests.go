package metrics

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
)

// Interceptor counts and times every Connect call that reaches the interceptors; the calls
// refused before (by authentication) are counted with Refused.
func (m *Metrics) Interceptor() connect.Interceptor { return interceptor{m} }

type interceptor struct{ m *Metrics }

func (i interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		start := time.Now()
		res, err := next(ctx, req)
		proc := req.Spec().Procedure
		i.m.rpcRequests.WithLabelValues(proc, codeOf(err)).Inc()
		i.m.rpcDuration.WithLabelValues(proc).Observe(time.Since(start).Seconds())
		return res, err
	}
}

func (i interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler counts a stream when it ends; how many are open is the engine's
// hearth_subscribe_streams, and how long they last is no latency.
func (i interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		i.count(conn.Spec().Procedure, err)
		return err
	}
}

// count counts a call or stream that ended.
func (i interceptor) count(procedure string, err error) {
	i.m.rpcRequests.WithLabelValues(procedure, codeOf(err)).Inc()
}

func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Code().String()
	}
	return connect.CodeUnknown.String()
}

// Routes counts and times the plain HTTP endpoints by the pattern that served them (never by
// path, which would put ids in labels). Connect calls, ours and gRPC's own services' (health,
// reflection), go straight through: the interceptor counts them.
func (m *Metrics) Routes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/svc.v1.") || strings.HasPrefix(r.URL.Path, "/grpc.") {
			next.ServeHTTP(w, r)
			return
		}
		m.serveRoute(next, w, r)
	})
}

// serveRoute serves a plain endpoint's request, counted and timed.
func (m *Metrics) serveRoute(next http.Handler, w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := NewStatusWriter(w)
	next.ServeHTTP(sw, r)
	// ServeMux sets the pattern on the request it was given.
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	m.httpRequests.WithLabelValues(route, strconv.Itoa(sw.Status)).Inc()
	m.httpDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
}

// StatusWriter records the status a handler answered with (200 unless it said otherwise) and
// whether it wrote anything; the request logs use it too.
type StatusWriter struct {
	http.ResponseWriter
	Status int
	Wrote  bool
}

// NewStatusWriter wraps w.
func NewStatusWriter(w http.ResponseWriter) *StatusWriter {
	return &StatusWriter{ResponseWriter: w, Status: http.StatusOK}
}

func (w *StatusWriter) WriteHeader(code int) {
	if !w.Wrote {
		w.Status, w.Wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	w.Wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush keeps streamed responses streaming through the wrapper.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
