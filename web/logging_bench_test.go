package web

import (
	"io"
	"log/slog"
	"net/http"
	"testing"
)

// BenchmarkRequestLog is the request log's own cost per request (logRequests around a handler
// that answers at once, on a writer that keeps nothing), with the log at info, as servers run:
//   - plain-ok: a plain endpoint's success (its line is at debug, not written);
//   - call-ok: a Connect call the interceptor logged (the middleware only wraps it), gRPC's
//     own services' included;
//   - failed-quiet: a failed call with the log at warn: its line is not written either, so
//     nothing of its body should be read.
func BenchmarkRequestLog(b *testing.B) {
	info := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	warn := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	errBody := []byte(`{"code":"invalid_argument","message":"text is longer than 8000 characters"}`)
	for _, c := range []struct {
		name string
		log  *slog.Logger
		path string
		h    http.HandlerFunc
	}{
		{"plain-ok", info, "/files/x/a.txt", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("hello"))
		}},
		{"call-ok", info, "/svc.v1.ChatService/SendMessage", func(w http.ResponseWriter, r *http.Request) {
			requestLogOf(r.Context()).logged = true
			w.Header().Set("Content-Type", "application/proto")
			w.Write([]byte("\x0a\x03abc"))
		}},
		{"failed-quiet", warn, "/svc.v1.ChatService/SendMessage", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(errBody)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := logRequests(c.log, nil, c.h)
			r, err := http.NewRequest(http.MethodPost, "http://hearth.test"+c.path, nil)
			if err != nil {
				b.Fatal(err)
			}
			r.RemoteAddr = "192.0.2.1:5000"
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps only its header map (cleared between requests).
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
