//go:build hearthpprof

package main

import (
	"net/http"
	"net/http/pprof"
	"runtime"
)

// A build for measuring (go build -tags hearthpprof) serves net/http/pprof under /debug/pprof/
// on the metrics address, never on the public port. Release builds do not include it: profiles
// show the command line and what the server is doing, which is more than the metrics tell.
// It also samples every 4 KiB allocated rather than every 512 KiB, so that small per-stream
// objects show in heap profiles.
func init() {
	runtime.MemProfileRate = 4 << 10
	debugHandlers = func(mux *http.ServeMux) {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
}
