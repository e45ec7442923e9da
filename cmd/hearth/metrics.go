package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// debugHandlers, when set (builds with the hearthpprof tag, see pprof.go), adds profiling
// endpoints to the metrics address. Release builds leave it nil.
var debugHandlers func(*http.ServeMux)

// serveMetrics serves /metrics on ln, -metrics-addr's listener when it is set. A separate
// listener rather than a path on the public port: behind a reverse proxy every request comes
// from loopback, so "localhost only" on the main port would publish the metrics to everyone.
// The metrics hold no member data, but they do tell how busy the community is.
func (a *app) serveMetrics(ln net.Listener, stdout io.Writer, log *slog.Logger) {
	if ln == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.Metrics.Handler())
	if debugHandlers != nil {
		debugHandlers(mux)
	}
	a.metricsSrv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "Metrics at http://%s/metrics\n", ln.Addr())
	go func() {
		if err := a.metricsSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
}
