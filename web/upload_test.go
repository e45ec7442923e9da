package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func TestUploadAndDownload(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		clock := webtest.NewClock()
		s := webtest.Start(t, webtest.WithClock(clock), bucket)
		owner := s.Join("owner")
		img := pngImage(t, 30, 20)
		att := mustUpload(t, s, owner, "holiday photo.png", img)
		if att.GetId() == "" || att.GetName() != "holiday photo.png" || att.GetContentType() != "image/png" ||
			att.GetSize() != int64(len(img)) || att.GetWidth() != 30 || att.GetHeight() != 20 {
			t.Fatalf("attachment %v", att)
		}
		wantPrefix := "/files/" + att.GetId() + "/holiday%20photo.png?exp="
		if !strings.HasPrefix(att.GetUrl(), wantPrefix) {
			t.Fatalf("url %q, want it to start %q", att.GetUrl(), wantPrefix)
		}
		// The URL is valid one to two hours, and cached until then.
		exp := urlExpiry(t, att.GetUrl())
		if d := exp.Sub(clock.Now()); d < time.Hour || d > 2*time.Hour {
			t.Fatalf("the URL expires in %v", d)
		}
		got := fetch(t, s, http.MethodGet, att.GetUrl())
		if got.status != http.StatusOK || !bytes.Equal(got.body, img) {
			t.Fatalf("GET: %d, %d bytes", got.status, len(got.body))
		}
		for k, v := range map[string]string{
			"Content-Type":            "image/png",
			"Content-Disposition":     `inline; filename="holiday photo.png"`,
			"X-Content-Type-Options":  "nosniff",
			"Cache-Control":           fmt.Sprintf("private, immutable, max-age=%d", int(exp.Sub(clock.Now()).Seconds())),
			"Content-Security-Policy": "",
			"Accept-Ranges":           "bytes",
		} {
			if got.header.Get(k) != v {
				t.Errorf("%s: %q, want %q", k, got.header.Get(k), v)
			}
		}
		// Ranges and HEAD go through http.ServeContent.
		r := fetch(t, s, http.MethodGet, att.GetUrl(), "Range", "bytes=10-19")
		if r.status != http.StatusPartialContent || !bytes.Equal(r.body, img[10:20]) || r.header.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(img)) {
			t.Errorf("range: %d %q %q", r.status, r.header.Get("Content-Range"), r.body)
		}
		r = fetch(t, s, http.MethodGet, att.GetUrl(), "Range", fmt.Sprintf("bytes=%d-", len(img)-5))
		if r.status != http.StatusPartialContent || !bytes.Equal(r.body, img[len(img)-5:]) {
			t.Errorf("suffix range: %d %q", r.status, r.body)
		}
		r = fetch(t, s, http.MethodHead, att.GetUrl())
		if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("Content-Length") != fmt.Sprint(len(img)) {
			t.Errorf("HEAD: %d, %d bytes, length %q", r.status, len(r.body), r.header.Get("Content-Length"))
		}
		r = fetch(t, s, http.MethodGet, att.GetUrl(), "If-None-Match", got.header.Get("ETag"))
		if r.status != http.StatusNotModified {
			t.Errorf("If-None-Match: %d", r.status)
		}
		// Anything that is not an image, audio or video is a download that cannot run here.
		page := mustUpload(t, s, owner, "page.html", []byte("<!DOCTYPE html><script>alert(1)</script>"))
		if page.GetContentType() != "text/html; charset=utf-8" || page.GetWidth() != 0 {
			t.Fatalf("html upload: %v", page)
		}
		got = fetch(t, s, http.MethodGet, page.GetUrl())
		for k, v := range map[string]string{
			"Content-Type":            "text/html; charset=utf-8",
			"Content-Disposition":     `attachment; filename=page.html`,
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": "sandbox; default-src 'none'",
		} {
			if got.header.Get(k) != v {
				t.Errorf("download %s: %q, want %q", k, got.header.Get(k), v)
			}
		}
	})
}

// A file the sandbox cannot read is stored as a download of unknown type: never a failed
// upload. The evil guest loops on this input until the sandbox's deadline stops it.
func TestUploadUnreadableIsOctetStream(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t, withEvilSandbox(t))
	owner := s.Join("owner")
	att := mustUpload(t, s, owner, "loop.png", []byte("loop"))
	if att.GetContentType() != "application/octet-stream" || att.GetWidth() != 0 || att.GetHeight() != 0 || att.GetSize() != 4 {
		t.Fatalf("attachment %v, want application/octet-stream without dimensions", att)
	}
	got := fetch(t, s, http.MethodGet, att.GetUrl())
	if string(got.body) != "loop" || got.header.Get("Content-Disposition") != "attachment; filename=loop.png" {
		t.Errorf("GET: %q, %q", got.body, got.header.Get("Content-Disposition"))
	}
}

func TestUploadRefusals(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		clock := webtest.NewClock()
		s := webtest.Start(t, webtest.WithClock(clock), bucket)
		owner := s.Join("owner")
		file := func(data string) part { return part{form: "file", file: "a.txt", body: strings.NewReader(data)} }
		const multipartOnly = `the body must be multipart/form-data with one part named "file"`
		wantRefused(t, "no token", postUpload(t, s, "", file("x")), 401, `no Authorization header; send "Authorization: Bearer <token>"`)
		wantRefused(t, "not a member", postUpload(t, s, s.Token("stranger"), file("x")), 403, "you are not a member of this community; call Join first")
		wantRefused(t, "no parts", postUpload(t, s, owner.Token), 400, `the body has no part named "file"`)
		wantRefused(t, "another part", postUpload(t, s, owner.Token, part{form: "photo", file: "a.txt", body: strings.NewReader("x")}), 400, `the body has no part named "file"`)
		wantRefused(t, "two parts", postUpload(t, s, owner.Token, file("x"), file("y")), 400, `the body has more than one part; send exactly one, named "file"`)
		wantRefused(t, "empty name", postUpload(t, s, owner.Token, part{form: "file", body: strings.NewReader("x")}), 400, `the "file" part has no file name`)
		wantRefused(t, "not multipart", postBody(t, s, owner.Token, "application/json", strings.NewReader("{}")), 400, multipartOnly)
		cut := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhalf a fi"
		wantRefused(t, "truncated", postBody(t, s, owner.Token, "multipart/form-data; boundary=b", strings.NewReader(cut)), 400, "the multipart body is cut short or malformed")
		garbled := "--b\r\nnot a header\r\n\r\nx\r\n--b--\r\n"
		wantRefused(t, "garbled", postBody(t, s, owner.Token, "multipart/form-data; boundary=b", strings.NewReader(garbled)), 400, "the multipart body is cut short or malformed")
		// Nothing of the refused uploads stayed in the bucket.
		if keys := bucketKeys(t, s); len(keys) != 0 {
			t.Errorf("refused uploads left %v", keys)
		}
		// While the community needs setup only the owner uploads: the rule of every call.
		s2 := webtest.Start(t, bucket)
		first := s2.Client(s2.Token("first"))
		if _, err := first.Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
			t.Fatal(err)
		}
		second := s2.Client(s2.Token("second"))
		if _, err := second.Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, "during setup", postUpload(t, s2, second.Token, file("x")), 403, "the community is being set up; until the owner finishes, only the owner can do this")
		if res := postUpload(t, s2, first.Token, file("x")); res.status != 200 {
			t.Errorf("the owner during setup: %d %s", res.status, res.err)
		}
	})
}

// Thirty uploads a minute per member, then 429 with Retry-After; a bot is limited the same.
func TestUploadRateLimit(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	other := s.Join("other")
	for i := range 30 {
		if res := postUpload(t, s, owner.Token, part{form: "file", file: "a.txt", body: strings.NewReader("x")}); res.status != 200 {
			t.Fatalf("upload %d: %d %s", i, res.status, res.err)
		}
	}
	res := postUpload(t, s, owner.Token, part{form: "file", file: "a.txt", body: strings.NewReader("x")})
	wantRefused(t, "31st upload", res, 429, "uploading files: rate limit reached; retry in 2s")
	if res.header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After %q", res.header.Get("Retry-After"))
	}
	// Others are not held up; time frees the limit.
	if res := postUpload(t, s, other.Token, part{form: "file", file: "a.txt", body: strings.NewReader("x")}); res.status != 200 {
		t.Errorf("another member: %d %s", res.status, res.err)
	}
	clock.Advance(2 * time.Second)
	if res := postUpload(t, s, owner.Token, part{form: "file", file: "a.txt", body: strings.NewReader("x")}); res.status != 200 {
		t.Errorf("two seconds later: %d %s", res.status, res.err)
	}
}

// The file name is kept for display only and can never leave /files/<id>/.
func TestUploadNames(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	for _, tc := range []struct{ sent, name, segment string }{
		{"../../etc/passwd", "passwd", "passwd"},
		{"a/b", "b", "b"},
		{`..\..\boot.ini`, "boot.ini", "boot.ini"},
		{"%2e%2e", "%2e%2e", "%252e%252e"},
		{"%2e%2e%2fsecret", "%2e%2e%2fsecret", "%252e%252e%252fsecret"},
		{"..", "file", "file"},
		{"\u202egnp.exe", "gnp.exe", "gnp.exe"},
		{"名前 1.txt", "名前 1.txt", "%E5%90%8D%E5%89%8D%201.txt"},
	} {
		clock.Advance(2 * time.Second)
		att := mustUpload(t, s, owner, tc.sent, []byte("data"))
		want := "/files/" + att.GetId() + "/" + tc.segment + "?"
		if att.GetName() != tc.name || !strings.HasPrefix(att.GetUrl(), want) {
			t.Errorf("%q: name %q, url %q; want %q and %q...", tc.sent, att.GetName(), att.GetUrl(), tc.name, want)
			continue
		}
		if got := fetch(t, s, http.MethodGet, att.GetUrl()); got.status != 200 || string(got.body) != "data" {
			t.Errorf("%q: GET %d %q", tc.sent, got.status, got.body)
		}
	}
	// A NUL sent raw makes the part header malformed; sent encoded (RFC 2231), it is dropped.
	clock.Advance(2 * time.Second)
	raw := postUpload(t, s, owner.Token, part{disposition: "form-data; name=\"file\"; filename=\"x\x00y.png\"", body: strings.NewReader("data")})
	wantRefused(t, "raw NUL", raw, 400, "the multipart body is cut short or malformed")
	for encoded, want := range map[string]string{"x%00y.png": "xy.png", "x%00y%2F..%2Fz.png": "z.png"} {
		clock.Advance(2 * time.Second)
		res := postUpload(t, s, owner.Token, part{disposition: `form-data; name="file"; filename*=UTF-8''` + encoded, body: strings.NewReader("data")})
		if res.status != 200 || res.att.GetName() != want {
			t.Errorf("encoded %s: %d %q %v, want the name %q", encoded, res.status, res.err, res.att, want)
		}
	}
}
