package blobtest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"hearth/blob"
)

func testSeek(t *testing.T, b *blob.Bucket) {
	key := blob.FileKey(newID(t))
	data := newPattern(300_000).all()
	size := int64(len(data))
	put(t, b, key, data, "application/octet-stream")
	o, err := b.Open(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	// Each step seeks, then reads up to n bytes with io.ReadFull; the steps run in order
	// on one Object, so they also cover seeking away from an open read and back.
	steps := []struct {
		offset int64
		whence int
		n      int
		at     int64 // the offset Seek must return
	}{
		{0, io.SeekStart, 10, 0},
		{0, io.SeekCurrent, 10, 10}, // read on where we were
		{1, io.SeekStart, 1000, 1},
		{size / 2, io.SeekStart, 70_000, size / 2},
		{-5, io.SeekCurrent, 5, size/2 + 70_000 - 5}, // back a little
		{size - 1, io.SeekStart, 10, size - 1},       // the last byte
		{-100, io.SeekEnd, 100, size - 100},
		{0, io.SeekEnd, 10, size},                // the end: nothing to read
		{size + 50, io.SeekStart, 10, size + 50}, // past the end: allowed, nothing to read
		{0, io.SeekStart, 100, 0},                // and back to the start
	}
	for _, s := range steps {
		at, err := o.Seek(s.offset, s.whence)
		if err != nil || at != s.at {
			t.Fatalf("Seek(%d, %d) = %d, %v; want %d", s.offset, s.whence, at, err, s.at)
		}
		buf := make([]byte, s.n)
		n, err := io.ReadFull(o, buf)
		want := data[min(at, size):min(at+int64(s.n), size)]
		if n != len(want) || !bytes.Equal(buf[:n], want) {
			t.Fatalf("after Seek(%d, %d): read %d bytes (%v), want the %d at %d", s.offset, s.whence, n, err, len(want), at)
		}
		if len(want) < s.n && err != io.EOF && err != io.ErrUnexpectedEOF {
			t.Fatalf("after Seek(%d, %d): reading past the end gave %v, want EOF", s.offset, s.whence, err)
		}
	}
	if _, err := o.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek to a negative offset succeeded")
	}
}

// testServeContent checks what the web layer relies on: http.ServeContent over an Object
// answers ranges, HEAD and conditions with the exact bytes.
func testServeContent(t *testing.T, b *blob.Bucket) {
	key := blob.FileKey(newID(t))
	data := newPattern(200_000).all()
	size := len(data)
	put(t, b, key, data, "video/mp4")

	serve := func(method string, header ...string) *http.Response {
		t.Helper()
		o, err := b.Open(ctx(t), key)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		req := httptest.NewRequest(method, "/files/x/clip.mp4", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		// Setting the type up front keeps ServeContent from sniffing (reading) it.
		rec.Header().Set("Content-Type", o.ContentType())
		http.ServeContent(rec, req, "", o.ModTime(), o)
		return rec.Result()
	}
	body := func(resp *http.Response) []byte {
		t.Helper()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	for _, tc := range []struct {
		rng        string
		start, end int // the bytes expected, end exclusive
	}{
		{"bytes=100-199", 100, 200},
		{"bytes=0-0", 0, 1},
		{fmt.Sprintf("bytes=%d-", size-5), size - 5, size},
		{"bytes=-10", size - 10, size},
		{fmt.Sprintf("bytes=70000-%d", size+1000), 70000, size}, // an end past the end is cut
	} {
		resp := serve(http.MethodGet, "Range", tc.rng)
		got := body(resp)
		wantRange := fmt.Sprintf("bytes %d-%d/%d", tc.start, tc.end-1, size)
		if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != wantRange {
			t.Errorf("Range %s: %d %q, want 206 %q", tc.rng, resp.StatusCode, resp.Header.Get("Content-Range"), wantRange)
		}
		if !bytes.Equal(got, data[tc.start:tc.end]) {
			t.Errorf("Range %s: got %d bytes, not the %d wanted", tc.rng, len(got), tc.end-tc.start)
		}
	}

	// Two ranges: a multipart answer, each part from its own seek.
	resp := serve(http.MethodGet, "Range", "bytes=10-19,150000-150009")
	mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusPartialContent || mt != "multipart/byteranges" {
		t.Fatalf("two ranges: %d %s", resp.StatusCode, mt)
	}
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for _, start := range []int{10, 150000} {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		if !bytes.Equal(got, data[start:start+10]) {
			t.Errorf("two ranges: the part at %d differs", start)
		}
	}

	resp = serve(http.MethodGet, "Range", fmt.Sprintf("bytes=%d-", size))
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %d, want 416", resp.StatusCode)
	}

	resp = serve(http.MethodHead)
	if got := body(resp); resp.StatusCode != http.StatusOK || len(got) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(size) {
		t.Errorf("HEAD: %d, %d bytes of body, Content-Length %q", resp.StatusCode, len(got), resp.Header.Get("Content-Length"))
	}

	resp = serve(http.MethodGet)
	if got := body(resp); resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
		t.Errorf("GET: %d, %d bytes", resp.StatusCode, len(got))
	}
	lastMod := resp.Header.Get("Last-Modified")

	// If-Range naming the current version honours the range; an older one gets it all.
	resp = serve(http.MethodGet, "Range", "bytes=0-9", "If-Range", lastMod)
	if got := body(resp); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, data[:10]) {
		t.Errorf("If-Range current: %d, %d bytes", resp.StatusCode, len(got))
	}
	old := time.Unix(0, 0).UTC().Format(http.TimeFormat)
	resp = serve(http.MethodGet, "Range", "bytes=0-9", "If-Range", old)
	if got := body(resp); resp.StatusCode != http.StatusOK || len(got) != size {
		t.Errorf("If-Range old: %d, %d bytes", resp.StatusCode, len(got))
	}
	resp = serve(http.MethodGet, "If-Modified-Since", lastMod)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since current: %d, want 304", resp.StatusCode)
	}
}
