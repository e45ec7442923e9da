package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"hearth/blob"
	"hearth/blob/blobtest"
	"hearth/engine"
	"hearth/engine/sandbox"
	"hearth/engine/sandbox/sandboxtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// forBuckets runs a test on a file bucket and on S3 (versitygw, see blobtest.SharedS3: a
// bucket of the test's own), each with a server of its own: the file endpoints must behave the
// same on every bucket.
func forBuckets(t *testing.T, test func(t *testing.T, bucket webtest.Option)) {
	t.Run("file", func(t *testing.T) { test(t, func(*engine.Options) {}) })
	t.Run("s3", func(t *testing.T) { test(t, webtest.WithBucketURL(t, blobtest.SharedS3(t))) })
}

// uploaded is the answer to POST /upload.
type uploaded struct {
	status int
	header http.Header
	att    *svcv1.Attachment // on 200
	err    string            // the {"error"} text otherwise
}

// part is one part of a multipart body: its form name, file name and content; disposition,
// when set, is its Content-Disposition header as is.
type part struct {
	form, file  string
	body        io.Reader
	disposition string
}

// postUpload sends the parts as a multipart/form-data body, streamed, with token (none if "").
func postUpload(t *testing.T, s *webtest.Server, token string, parts ...part) uploaded {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, p := range parts {
			h := textproto.MIMEHeader{}
			cd := p.disposition
			if cd == "" {
				cd = fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quoteEscaper.Replace(p.form), quoteEscaper.Replace(p.file))
			}
			h.Set("Content-Disposition", cd)
			w, err := mw.CreatePart(h)
			if err == nil {
				_, err = io.Copy(w, p.body)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(mw.Close())
	}()
	return postBody(t, s, token, mw.FormDataContentType(), pr)
}

// quoteEscaper escapes a MIME quoted-string as multipart.Writer does: nothing else, so control
// characters reach the server as sent.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// postBody sends any body to POST /upload.
func postBody(t *testing.T, s *webtest.Server, token, contentType string, body io.Reader) uploaded {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, s.URL+"/upload", body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("POST /upload: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := uploaded{status: res.StatusCode, header: res.Header}
	if res.StatusCode == http.StatusOK {
		out.att = new(svcv1.Attachment)
		if err := protojson.Unmarshal(b, out.att); err != nil {
			t.Fatalf("the upload answered %s: %v", b, err)
		}
		return out
	}
	var e struct{ Error string }
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Fatalf("status %d with body %q, want {\"error\": ...}", res.StatusCode, b)
	}
	out.err = e.Error
	return out
}

// mustUpload uploads one file and returns its attachment.
func mustUpload(t *testing.T, s *webtest.Server, by *webtest.Client, name string, data []byte) *svcv1.Attachment {
	t.Helper()
	res := postUpload(t, s, by.Token, part{form: "file", file: name, body: bytes.NewReader(data)})
	if res.status != http.StatusOK {
		t.Fatalf("upload %s: %d %s", name, res.status, res.err)
	}
	return res.att
}

// wantRefused checks a failed upload's status and exact error text.
func wantRefused(t *testing.T, what string, got uploaded, status int, text string) {
	t.Helper()
	if got.status != status || got.err != text {
		t.Errorf("%s: got %d %q, want %d %q", what, got.status, got.err, status, text)
	}
}

// fetched is the answer to a GET of a file URL.
type fetched struct {
	status int
	header http.Header
	body   []byte
}

// fetch GETs (or HEADs) a URL relative to the server, with extra headers; redirects are not
// followed.
func fetch(t *testing.T, s *webtest.Server, method, u string, header ...string) fetched {
	t.Helper()
	if strings.HasPrefix(u, "/") {
		u = s.URL + u
	}
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fetched{res.StatusCode, res.Header, b}
}

// fetchError GETs a URL that must fail, and returns its status and {"error"} text.
func fetchError(t *testing.T, s *webtest.Server, u string) (int, string) {
	t.Helper()
	f := fetch(t, s, http.MethodGet, u)
	var e struct{ Error string }
	if err := json.Unmarshal(f.body, &e); err != nil {
		t.Fatalf("GET %s: status %d with body %q, want {\"error\": ...}", u, f.status, f.body)
	}
	return f.status, e.Error
}

// withQuery returns u with one query parameter replaced.
func withQuery(t *testing.T, u, key, value string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := pu.Query()
	q.Set(key, value)
	pu.RawQuery = q.Encode()
	return pu.String()
}

// pngImage is a real w x h PNG.
func pngImage(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.White)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeader is a PNG signature and IHDR chunk claiming w x h pixels, and nothing more: what
// a decompression bomb shows before its data.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 0, 17)
	ihdr = append(ihdr, "IHDR"...)
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, 13)
	out = append(out, ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}

// zipBomb is a small zip whose one entry inflates to 16 MiB of zeros.
func zipBomb(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("zeros.bin")
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 16 {
		if _, err := w.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pattern is an endless reader of a byte pattern that is not all one value, so that a
// misplaced range shows.
type pattern struct{ n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(p.n % 251)
		p.n++
	}
	return len(b), nil
}

// patternBytes is the first n bytes of a pattern.
func patternBytes(from, n int64) []byte {
	b := make([]byte, n)
	p := &pattern{n: from}
	p.Read(b)
	return b
}

// urlExpiry reads the exp of a signed URL.
func urlExpiry(t *testing.T, u string) time.Time {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	var sec int64
	if _, err := fmt.Sscan(pu.Query().Get("exp"), &sec); err != nil {
		t.Fatalf("%s has no exp: %v", u, err)
	}
	return time.Unix(sec, 0)
}

// withEvilSandbox runs the server's uploads through the sandbox's misbehaving test guest,
// which does what its input names: "loop" loops until the deadline.
func withEvilSandbox(t *testing.T) webtest.Option {
	t.Helper()
	module, err := os.ReadFile("../engine/sandbox/testdata/evil.wasm")
	if err != nil {
		t.Fatal(err)
	}
	return withSandbox(t, sandbox.Options{Module: module, Timeout: time.Second, Pool: -1})
}

// withSandbox gives the server a sandbox of its own.
func withSandbox(t testing.TB, opts sandbox.Options) webtest.Option {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir, _ = sandboxtest.CacheDir()
	}
	sb, err := sandbox.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close(context.Background()) })
	return func(o *engine.Options) { o.Sandbox = sb }
}

// bucketKeys lists the objects under files/.
func bucketKeys(t *testing.T, s *webtest.Server) []string {
	t.Helper()
	var keys []string
	err := s.Bucket().List(context.Background(), blob.FileKey(""), func(key string, _ int64, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// inBucket reports whether the object of an upload is in the bucket.
func inBucket(t *testing.T, s *webtest.Server, id string) bool {
	t.Helper()
	_, err := s.Bucket().Stat(context.Background(), blob.FileKey(id))
	if err != nil && !errors.Is(err, blob.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}
