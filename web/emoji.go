package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// Custom emoji over plain HTTP: POST /emoji adds (moderators and higher), GET /emoji lists,
// GET /emoji/{id} serves one image to anyone, GET /emoji.zip exports them all. DeleteEmoji is
// a ServerService call.

// The routes, as the authenticator knows them (member-only; the owner's alone during setup).
const (
	emojiPostRoute   = "POST /emoji"
	emojiListRoute   = "GET /emoji"
	emojiExportRoute = "GET /emoji.zip"
)

func (s *serverService) DeleteEmoji(ctx context.Context, r *connect.Request[svcv1.DeleteEmojiRequest]) (*connect.Response[svcv1.DeleteEmojiResponse], error) {
	return call(ctx, r, s.eng.DeleteEmoji)
}

// handleEmoji adds the emoji endpoints to mux.
func handleEmoji(mux *http.ServeMux, eng *engine.Engine, a *authenticator) {
	mux.HandleFunc(emojiPostRoute, postEmoji(eng, a))
	mux.HandleFunc(emojiListRoute, listEmoji(eng, a))
	mux.HandleFunc(emojiExportRoute, exportEmoji(eng, a))
	mux.HandleFunc("GET /emoji/{id}", serveEmoji(eng))
}

// postEmoji is POST /emoji: multipart/form-data of any number of parts named file, each an
// image or a zip of images, 64 MB in all. Each part streams to the engine as it arrives; the
// answer is an UploadEmojiResponse with one result per image.
func postEmoji(eng *engine.Engine, a *authenticator) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.authenticate(r.Context(), emojiPostRoute, r.Header)
		if err != nil {
			writeError(w, err)
			return
		}
		up, err := eng.BeginEmojiUpload(ctx, callerOf(ctx))
		if err != nil {
			writeError(w, err)
			return
		}
		defer up.Abort()
		const maxBody = engine.MaxEmojiRequestBytes + uploadSlack
		if r.ContentLength > maxBody {
			writeError(w, engine.ErrEmojiRequestTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		mr, err := r.MultipartReader()
		if err != nil {
			writeError(w, badUpload(`the body must be multipart/form-data with parts named "file"`))
			return
		}
		files := 0
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				writeError(w, emojiBodyError(err))
				return
			}
			if part.FormName() != "file" {
				writeError(w, badUpload(`every part must be named "file"; got `+strconv.Quote(part.FormName())))
				return
			}
			name := fileName(part)
			if name == "" {
				writeError(w, errNoFileName)
				return
			}
			if err := up.AddFile(name, emojiPart{part}); err != nil {
				writeError(w, err)
				return
			}
			files++
		}
		if files == 0 {
			writeError(w, errNoFilePart)
			return
		}
		res, err := up.Finish()
		if err != nil {
			writeError(w, err)
			return
		}
		b, err := protojson.Marshal(res)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	}
}

// emojiPart reads one part, its failures turned into the request's: over 64 MB (413), or cut
// short or malformed (400).
type emojiPart struct{ r io.Reader }

func (p emojiPart) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF {
		err = emojiBodyError(err)
	}
	return n, err
}

func emojiBodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return engine.ErrEmojiRequestTooLarge
	}
	return errCutShort
}

// emojiList is GET /emoji's body at one version, encoded once for every member who asks.
type emojiList struct {
	version    int64
	json, gzip []byte
}

// listEmoji is GET /emoji: the ListEmojiResponse as JSON (gzipped when the client takes it),
// with a weak ETag of the emoji's version and 304 on a matching If-None-Match. The body of the
// newest version is kept, so that a version costs one encoding however many members fetch it
// (all of them do, on every emoji_changed).
func listEmoji(eng *engine.Engine, a *authenticator) http.HandlerFunc {
	var cache atomic.Pointer[emojiList]
	cache.Store(&emojiList{version: -1})
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.authenticate(r.Context(), emojiListRoute, r.Header)
		if err != nil {
			writeError(w, err)
			return
		}
		cached := cache.Load()
		list, err := eng.ListEmoji(callerOf(ctx), cached.version)
		if err != nil {
			writeError(w, err)
			return
		}
		body := cached
		if list.Emoji != nil {
			if body, err = encodeEmojiList(list); err != nil {
				writeError(w, err)
				return
			}
			if body.version > cached.version {
				cache.CompareAndSwap(cached, body)
			}
		}
		h := w.Header()
		etag := `W/"` + strconv.FormatInt(body.version, 10) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, no-cache")
		h.Set("Vary", "Accept-Encoding")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "application/json")
		b := body.json
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			b = body.gzip
		}
		h.Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method != http.MethodHead {
			w.Write(b)
		}
	}
}

func encodeEmojiList(list *engine.EmojiList) (*emojiList, error) {
	js, err := protojson.Marshal(&svcv1.ListEmojiResponse{Emoji: list.Emoji})
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(js)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &emojiList{version: list.Version, json: js, gzip: gz.Bytes()}, nil
}

// etagMatches is If-None-Match's weak comparison (RFC 9110, 13.1.2): "*", or any listed tag
// whose opaque part is etag's.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding names gzip (or *) without q=0.
func acceptsGzip(header string) bool {
	for _, c := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(c), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			continue
		}
		return true
	}
	return false
}

// serveEmoji is GET (and HEAD) /emoji/{id}: one emoji's image, to anyone, cached for a year
// (its URL never changes its bytes; a deleted emoji's id is never given to another).
func serveEmoji(eng *engine.Engine) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		img, err := eng.OpenEmoji(r.PathValue("id"))
		servePublicImage(w, r, img, err)
	}
}

// exportEmoji is GET /emoji.zip: every emoji as name.ext, streamed. A failure once the archive
// has begun aborts the response, so that a client never takes a cut archive for a whole one.
func exportEmoji(eng *engine.Engine, a *authenticator) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.authenticate(r.Context(), emojiExportRoute, r.Header)
		if err != nil {
			writeError(w, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/zip")
		h.Set("Content-Disposition", `attachment; filename="emoji.zip"`)
		h.Set("Cache-Control", "private, no-store")
		out := &startedWriter{w: w}
		err = eng.ExportEmoji(ctx, callerOf(ctx), out)
		if err == nil {
			return
		}
		if !out.started {
			h.Del("Content-Disposition")
			writeError(w, err)
			return
		}
		panic(http.ErrAbortHandler)
	}
}

// startedWriter notes whether anything was written.
type startedWriter struct {
	w       io.Writer
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started = true
	return s.w.Write(p)
}
