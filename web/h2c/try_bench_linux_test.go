package h2c_test

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"hearth/web/h2c"
)

// BenchmarkTryWrite writes a 200-byte event without waiting, as the engine's deliverers write
// one to a stream, to a loopback socket whose client reads and discards: with TryWrite, and
// with the Write then TryFlush it takes the place of when the response holds nothing.
// ns/op is mostly the kernel's send; user-ns/op is the writing thread's CPU outside the
// kernel, what this package decides, and sys-ns/op its CPU in the kernel (getrusage for the
// thread, which the writer keeps to itself). held/op counts the writes the socket had no
// room for (a Flush then waits for the client). allocs/op counts the whole process's, the
// client's reads among them.
func BenchmarkTryWrite(b *testing.B) {
	event := bytes.Repeat([]byte("e"), 200)
	b.Run("TryWrite", func(b *testing.B) {
		benchmarkNowWrites(b, func(w http.ResponseWriter, nw h2c.NowWriter) bool {
			taken, flushed, _ := nw.TryWrite(event)
			if !taken {
				w.Write(event)
			}
			return flushed
		})
	})
	b.Run("WriteTryFlush", func(b *testing.B) {
		benchmarkNowWrites(b, func(w http.ResponseWriter, nw h2c.NowWriter) bool {
			nw.HoldWrites(true)
			w.Write(event)
			nw.HoldWrites(false)
			flushed, _ := nw.TryFlush()
			return flushed
		})
	})
}

type threadTimes struct{ user, sys time.Duration }

func (t threadTimes) since(start threadTimes) threadTimes {
	return threadTimes{t.user - start.user, t.sys - start.sys}
}

func nowThreadTimes() threadTimes {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return threadTimes{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

func benchmarkNowWrites(b *testing.B, write func(http.ResponseWriter, h2c.NowWriter) bool) {
	type result struct {
		times threadTimes
		held  int
	}
	runs := make(chan int)
	results := make(chan result)
	_, addr := serve(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nw := w.(h2c.NowWriter)
		if err := nw.FlushError(); err != nil {
			return
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for n := range runs {
			var res result
			start := nowThreadTimes()
			for range n {
				if !write(w, nw) {
					res.held++
					nw.FlushError()
				}
			}
			res.times = nowThreadTimes().since(start)
			results <- res
		}
	}), nil)
	c := dialRaw(b, addr, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	c.fr.WriteWindowUpdate(0, 1<<31-1-65535)
	c.settle()
	c.headers(1, true, "GET", "/")
	c.readUntil("HEADERS", func(f http2.Frame) bool { _, ok := f.(*http2.MetaHeadersFrame); return ok })
	go io.Copy(io.Discard, c.conn)
	b.ReportAllocs()
	b.ResetTimer()
	runs <- b.N
	res := <-results
	b.StopTimer()
	close(runs)
	b.ReportMetric(float64(res.times.user)/float64(b.N), "user-ns/op")
	b.ReportMetric(float64(res.times.sys)/float64(b.N), "sys-ns/op")
	b.ReportMetric(float64(res.held)/float64(b.N), "held/op")
}
