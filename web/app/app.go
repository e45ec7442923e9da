// Package app is Hearth's browser client: the TypeScript source in src/, and the built bundle in
// dist/, which is committed and embedded in the binary, so that running or building the server
// needs no Node. `go generate ./web/app` rebuilds dist/ (see build/main.go); CI fails when the
// committed bundle is not what the source builds.
//
// Handler serves the bundle under a strict Content-Security-Policy: scripts and styles only
// from the bundle itself, no inline script or style, no frames, no plugins. The client talks to
// the Hearth whose URL it is given, which may be another origin, so calls and images may go to
// any http(s) origin (see docs/decisions.md, "The browser client").
package app

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./build

//go:embed dist
var dist embed.FS

// ContentSecurityPolicy is sent with every file of the client.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' https: http: data: blob:; media-src 'self' https: http: blob:; " +
	"connect-src 'self' https: http: wss: ws:; manifest-src 'self'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'; object-src 'none'"

// file is one file of the bundle, with its gzipped form and its ETag computed on its first
// request: a server that nobody opens the client of never holds them, and starting does not
// pay for gzip at its best compression (~5 MB allocated for the bundle, and the system's MIME
// table read) before it can answer.
type file struct {
	name        string // the path in dist
	once        sync.Once
	body, gz    []byte
	contentType string
	etag        string
}

func (f *file) load() {
	f.once.Do(func() {
		b, err := dist.ReadFile(f.name)
		if err != nil {
			// The bundle is compiled in and was listed at start: it cannot go missing.
			panic("web/app: reading the embedded bundle: " + err.Error())
		}
		sum := sha256.Sum256(b)
		f.body = b
		f.contentType = mime.TypeByExtension(path.Ext(f.name))
		f.etag = `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		if buf.Len() < len(b) {
			f.gz = buf.Bytes()
		}
	})
}

// bundle lists the embedded files, each read and compressed on its first request. It is the
// process's, shared by every Handler: the files are compiled in, and a test process runs many
// servers, each of which compressed the whole bundle again.
var bundle = sync.OnceValue(func() map[string]*file {
	files := map[string]*file{}
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[strings.TrimPrefix(p, "dist/")] = &file{name: p}
		return nil
	})
	if err != nil {
		// The bundle is compiled in; a broken one is a build error, never a runtime condition.
		panic("web/app: reading the embedded bundle: " + err.Error())
	}
	return files
})

// Handler serves the client: GET {prefix}/ is index.html, {prefix}/app.js the script and so on.
// prefix is where the handler is mounted, e.g. "/app".
func Handler(prefix string) http.Handler {
	files := bundle()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, prefix), "/")
		if name == "" {
			name = "index.html"
		}
		f, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.load()
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		// The file names never change, so the browser asks each time; an unchanged file is a 304.
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Set("Vary", "Accept-Encoding")
		h.Set("Content-Type", f.contentType)
		if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := f.body
		if f.gz != nil && acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			body = f.gz
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
