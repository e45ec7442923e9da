package app_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"hearth/web/app"
	"hearth/web/webtest"
)

func get(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// No redirects followed and no transparent gzip: the test sees the answer as sent.
	c := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// TestAppServed: the server serves the embedded client at /app/ with its security headers,
// gzip, ETags, and nothing else under /app/.
func TestAppServed(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t)

	res := get(t, srv.URL+"/app", nil)
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/app/" {
		t.Fatalf("GET /app: %d to %q, want 301 to /app/", res.StatusCode, res.Header.Get("Location"))
	}

	res = get(t, srv.URL+"/app/", nil)
	body, _ := io.ReadAll(res.Body)
	want, err := os.ReadFile("dist/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("GET /app/: %d, %d bytes, want 200 and dist/index.html", res.StatusCode, len(body))
	}
	for header, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": app.ContentSecurityPolicy,
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "no-cache",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := res.Header.Get(header); got != want {
			t.Errorf("GET /app/ %s: %q, want %q", header, got, want)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, part := range []string{"script-src 'self'", "style-src 'self'", "default-src 'none'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, part+";") && !strings.HasSuffix(csp, part) {
			t.Errorf("the CSP %q lacks %q", csp, part)
		}
	}
	if strings.Contains(csp, "unsafe-") {
		t.Errorf("the CSP %q allows something unsafe", csp)
	}

	// The page has no inline script or style and loads only files of the bundle.
	page := string(want)
	if regexp.MustCompile(`<script(?:[^>]*)>\s*[^<\s]`).MatchString(page) || strings.Contains(page, "<style") || strings.Contains(page, "style=") {
		t.Errorf("index.html has inline script or style:\n%s", page)
	}
	for _, ref := range regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if strings.Contains(ref[1], "//") || strings.HasPrefix(ref[1], "/") {
			t.Errorf("index.html loads %q, not a file of the bundle", ref[1])
		}
	}

	// app.js is a few bytes that start the code, in the chunk index.html preloads beside it.
	preload := regexp.MustCompile(`<link rel="modulepreload" href="([^"/]+\.js)">`).FindStringSubmatch(page)
	if preload == nil {
		t.Fatalf("index.html preloads no chunk of the bundle:\n%s", page)
	}
	code := preload[1]
	res = get(t, srv.URL+"/app/app.js", nil)
	app, _ := io.ReadAll(res.Body)
	if wantApp, _ := os.ReadFile("dist/app.js"); res.StatusCode != 200 || !bytes.Equal(app, wantApp) || !bytes.Contains(app, []byte(code)) || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("GET /app/app.js: %d, type %q, %q; want dist/app.js, which imports %s", res.StatusCode, res.Header.Get("Content-Type"), app, code)
	}
	res = get(t, srv.URL+"/app/"+code, map[string]string{"Accept-Encoding": "gzip"})
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("GET /app/%s: encoding %q, type %q", code, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(zr)
	wantJS, _ := os.ReadFile("dist/" + code)
	if !bytes.Equal(js, wantJS) {
		t.Fatalf("GET /app/%s (gzip) is not dist/%s", code, code)
	}
	etag := res.Header.Get("ETag")
	if res = get(t, srv.URL+"/app/"+code, map[string]string{"If-None-Match": etag}); res.StatusCode != http.StatusNotModified {
		t.Errorf("GET /app/%s with its ETag: %d, want 304", code, res.StatusCode)
	}
	if res = get(t, srv.URL+"/app/app.css", nil); res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("GET /app/app.css without gzip: %d, encoding %q, type %q", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
	}
	for _, path := range []string{"/app/nothing.js", "/app/src/main.tsx", "/app/build/main.go", "/app/dist/app.js"} {
		if res = get(t, srv.URL+path, nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}
