package web_test

import (
	"archive/zip"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// BenchmarkEmojiZip uploads a zip of n emoji of about 63.7 KB each (pixels that do not
// compress): 1,000 of them make a 64 MB request, the most one may be. It reports the time per
// emoji and the heap in use (HeapInuse, which counts garbage not yet collected) before the
// request, at its peak while the request runs, and after it (once collected): the peak does
// not grow with the archive, because entries stream through one buffer and the archive is
// spooled to disk. The client streams the archive from a file, so its heap stays small too.
func BenchmarkEmojiZip(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("emoji=%d", n), func(b *testing.B) { benchEmojiZip(b, n) })
	}
}

func benchEmojiZip(b *testing.B, n int) {
	archive := filepath.Join(b.TempDir(), "emoji.zip")
	size := writeNoiseZip(b, archive, n)
	if size > engine.MaxEmojiRequestBytes-64<<10 {
		b.Fatalf("the archive is %d bytes, too large for one request", size)
	}
	clock := webtest.NewClock()
	s := webtest.Start(b, webtest.WithClock(clock))
	owner := s.Join("owner")
	// The sandbox starts with the first inspection; start it before measuring.
	mustAddEmoji(b, s, owner, filePart("warmup.png", noisePNG(b, 8, 8, 99)))

	b.SetBytes(size)
	var before, peak, after uint64
	runs := 0
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		clock.Advance(time.Minute) // past the upload rate limit
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before += ms.HeapInuse
		stop := sampleHeap()
		b.StartTimer()

		a := postEmojiFile(b, s, owner.Token, archive)

		b.StopTimer()
		peak += stop()
		if a.status != http.StatusOK || len(a.results) != n {
			b.Fatalf("POST /emoji: %d %s, %d results", a.status, a.err, len(a.results))
		}
		for _, r := range a.results {
			if r.GetStatus() != svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_ADDED {
				b.Fatalf("%s: %s %s", r.GetFile(), r.GetStatus(), r.GetError())
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		after += ms.HeapInuse
		runs++
		for _, r := range a.results {
			if _, err := owner.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: r.GetName()})); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	mb := func(v uint64) float64 { return float64(v) / float64(runs) / (1 << 20) }
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*n), "ms/emoji")
	b.ReportMetric(mb(before), "heap-before-MB")
	b.ReportMetric(mb(peak), "heap-peak-MB")
	b.ReportMetric(mb(after), "heap-after-MB")
}

// sampleHeap samples HeapInuse every 2 ms until the returned function is called, which gives
// the highest sample.
func sampleHeap() func() uint64 {
	var top atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > top.Load() {
				top.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return top.Load()
	}
}

// writeNoiseZip writes a zip of n distinct incompressible 126x126 PNGs (stored) to path and
// returns its size.
func writeNoiseZip(b *testing.B, path string, n int) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for i := range n {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("pack/e%04d.png", i), Method: zip.Store})
		if err == nil {
			_, err = w.Write(noisePNG(b, 126, 126, uint64(i)))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// postEmojiFile streams the file at path to POST /emoji as its one part.
func postEmojiFile(b *testing.B, s *webtest.Server, token, path string) emojiAnswer {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		defer f.Close()
		w, err := mw.CreateFormFile("file", filepath.Base(path))
		if err == nil {
			_, err = io.Copy(w, f)
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	return postEmojiBody(b, s, token, mw.FormDataContentType(), pr)
}
