package web

import (
	"context"
	"net/http"
	"strconv"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

func (s *chatService) GetLinkPreviews(ctx context.Context, r *connect.Request[svcv1.GetLinkPreviewsRequest]) (*connect.Response[svcv1.GetLinkPreviewsResponse], error) {
	return call(ctx, r, s.eng.GetLinkPreviews)
}

// previewImageRoute serves the images of link previews. They are public and immutable: an
// id is never reused, so a browser and any cache in between may keep the image until the
// preview expires.
const previewImageRoute = "GET /previews/{id}"

func servePreviewImage(eng *engine.Engine) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		img, err := eng.OpenPreviewImage(r.Context(), r.PathValue("id"))
		servePublicImage(w, r, img, err)
	}
}

// servePublicImage serves an image anyone may load (an emoji, a preview's image), found with
// err: public, immutable, cached for img.MaxAge, shown in place but never run (nosniff, and a
// sandbox should a browser open it as a page); its id is a strong validator.
func servePublicImage(w http.ResponseWriter, r *http.Request, img *engine.PublicImage, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	body, err := img.Open(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", img.ContentType)
	h.Set("Content-Disposition", "inline")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(img.MaxAge.Seconds()))+", immutable")
	h.Set("ETag", `"`+img.ID+`"`)
	http.ServeContent(w, r, "", img.ModTime, body)
}
