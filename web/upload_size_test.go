package web_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hearth/blob"
	"hearth/blob/blobtest"
	"hearth/engine"
	"hearth/engine/sandbox"
	"hearth/web/webtest"
)

// How much more than a 1 KB upload a 25 MB + 1 byte one may allocate in the whole process
// (server and the test's client): on a file bucket, its 1 MiB copy buffer and small change;
// on S3, the bucket's own bound (blob's conformance suite), a few 5 MiB parts. Reading the
// upload into memory would take 25 MB more. Every upload also starts a sandbox instance,
// whose memory (about 18 MB, whatever the file) both measurements include.
var uploadAllocLimit = map[string]uint64{"file": 8 << 20, "s3": 40 << 20}

// An upload one byte over 25 MB is refused with 413 as that byte arrives, without reading
// the body into memory, and leaves nothing in the bucket; exactly 25 MB is stored whole.
func TestUploadSizeLimit(t *testing.T) {
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		// Without a pool, each upload starts its own sandbox instance in the measured
		// window, rather than a refill landing in one window or the other.
		s := webtest.Start(t, bucket, withSandbox(t, sandbox.Options{Pool: -1}))
		owner := s.Join("owner")
		small := blobtest.Allocated(func() {
			mustUpload(t, s, owner, "small.bin", patternBytes(0, 1000))
		})
		var over uploaded
		alloc := blobtest.Allocated(func() {
			over = postUpload(t, s, owner.Token, part{form: "file", file: "big.bin", body: io.LimitReader(&pattern{}, engine.MaxUploadBytes+1)})
		})
		wantRefused(t, "25 MB + 1 byte", over, http.StatusRequestEntityTooLarge, "the file is larger than 25 MB (25,000,000 bytes)")
		if keys := bucketKeys(t, s); len(keys) != 1 {
			t.Errorf("the refused upload left objects: %v", keys)
		}
		backend := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
		t.Logf("a 1 KB upload allocated %d bytes, a refused 25 MB + 1 byte one %d", small, alloc)
		if alloc > small+uploadAllocLimit[backend] {
			t.Errorf("a 25 MB + 1 byte upload allocated %d bytes, a 1 KB one %d; at most %d more is streaming", alloc, small, uploadAllocLimit[backend])
		}

		res := postUpload(t, s, owner.Token, part{form: "file", file: "exact.bin", body: io.LimitReader(&pattern{}, engine.MaxUploadBytes)})
		if res.status != http.StatusOK || res.att.GetSize() != engine.MaxUploadBytes {
			t.Fatalf("exactly 25 MB: %d %q %v", res.status, res.err, res.att)
		}
		// What comes back is what went in, byte for byte.
		r, err := http.Get(s.URL + res.att.GetUrl())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		got, want := sha256.New(), sha256.New()
		n, err := io.Copy(got, r.Body)
		if err != nil || n != engine.MaxUploadBytes {
			t.Fatalf("download: %d bytes, %v", n, err)
		}
		io.CopyN(want, &pattern{}, engine.MaxUploadBytes)
		if string(got.Sum(nil)) != string(want.Sum(nil)) {
			t.Error("the downloaded file differs from the upload")
		}
	})
}

// A body that says up front it is over the limit is refused before any of it is read: the
// request below sends its headers only.
func TestUploadDeclaredTooLarge(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n", owner.Token, engine.MaxUploadBytes+1<<20)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "the file is larger than 25 MB") {
		t.Errorf("%d %s, want 413", res.StatusCode, body)
	}
}

// BenchmarkUpload25MB sends 25 MB files through the HTTP server into a file bucket. B/op is
// what the process allocates per upload, client included, and does not grow with the file:
// about 18 MB is the memory of the sandbox instance that reads the file's head (the same for
// a 1 KB file), about 1 MiB the bucket's copy buffer, the rest small change.
func BenchmarkUpload25MB(b *testing.B) {
	clock := webtest.NewClock()
	s := webtest.Start(b, webtest.WithClock(clock), withSandbox(b, sandbox.Options{Pool: -1}))
	owner := s.Join("owner")
	b.ReportAllocs()
	b.SetBytes(engine.MaxUploadBytes)
	for b.Loop() {
		clock.Advance(2 * time.Second) // past the upload rate limit
		res := benchUpload(b, s, owner.Token)
		if err := s.Bucket().Delete(context.Background(), blob.FileKey(res)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchUpload uploads 25 MB and returns the upload's id.
func benchUpload(b *testing.B, s *webtest.Server, token string) string {
	pr, pw := io.Pipe()
	go func() {
		const head = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n"
		io.WriteString(pw, head)
		io.CopyN(pw, &pattern{}, engine.MaxUploadBytes)
		io.WriteString(pw, "\r\n--b--\r\n")
		pw.Close()
	}()
	r, err := http.NewRequest(http.MethodPost, s.URL+"/upload", pr)
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	r.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var out struct{ ID string }
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("upload: %d %s", res.StatusCode, body)
	}
	if i := strings.Index(string(body), `"id":"`); i >= 0 {
		out.ID = strings.SplitN(string(body[i+6:]), `"`, 2)[0]
	}
	return out.ID
}
