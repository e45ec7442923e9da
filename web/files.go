package web

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"hearth/engine"
)

// serveFile is GET (and HEAD) /files/{id}/{name}?exp=&sig=: a signed file URL. The {name}
// segment is for people and browsers only; the signature covers the id and the expiry.
//
// Images, audio and video are shown inline. Anything else is a download, with nosniff and a
// sandboxing Content-Security-Policy, so that an uploaded page or script never runs on the
// server's origin. With redirect (-files-redirect) on a bucket that can sign its own URLs,
// the answer is a 302 to a short-lived bucket URL; a download is redirected only where the
// bucket can sign its attachment disposition, else it is streamed here.
func serveFile(eng *engine.Engine, redirect bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f, err := eng.OpenFile(r.Context(), r.PathValue("id"), q.Get("exp"), q.Get("sig"))
		if err != nil {
			writeError(w, err)
			return
		}
		// A valid signature is this request's credential: a download, however long, no longer
		// counts among its address's requests in flight before authentication.
		authenticated(r.Context())
		inline := showsInline(f.ContentType)
		disposition := "attachment"
		if inline {
			disposition = "inline"
		}
		disposition = mime.FormatMediaType(disposition, map[string]string{"filename": f.Name})
		if redirect {
			signed := ""
			if !inline {
				signed = disposition
			}
			u, ok, err := f.RedirectURL(r.Context(), signed)
			if err != nil {
				writeError(w, err)
				return
			}
			if ok {
				w.Header().Set("Cache-Control", "no-store")
				http.Redirect(w, r, u, http.StatusFound)
				return
			}
		}
		writeFile(w, r, f, "private, immutable, max-age="+strconv.Itoa(int(f.MaxAge.Seconds())), func(h http.Header) {
			h.Set("Content-Disposition", disposition)
			if !inline {
				h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
			}
		})
	}
}

// writeFile streams an upload's bytes (ranges and conditional requests included) with its
// type, nosniff, cacheControl and its id as the ETag; extra, when set, adds other headers.
func writeFile(w http.ResponseWriter, r *http.Request, f *engine.File, cacheControl string, extra func(http.Header)) {
	body, err := f.Open(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if extra != nil {
		extra(h)
	}
	h.Set("Cache-Control", cacheControl)
	// The object is never rewritten, so its id is a strong validator.
	h.Set("ETag", `"`+f.ID+`"`)
	http.ServeContent(w, r, "", f.ModTime, body)
}

// showsInline says which sniffed types a browser may show in place: images, audio and video.
// The sniffer never says image/svg+xml (an SVG sniffs as text/xml), but an SVG is a document
// that runs scripts, so it is excluded by name too.
func showsInline(contentType string) bool {
	t, _, _ := mime.ParseMediaType(contentType)
	if t == "image/svg+xml" {
		return false
	}
	return strings.HasPrefix(t, "image/") || strings.HasPrefix(t, "audio/") || strings.HasPrefix(t, "video/")
}
