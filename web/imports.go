package web

import (
	"context"
	"mime"
	"net/http"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// Imports and exports (EXTENSIONS.md 9): ClaimMember, ExportMyData and the export's download.

func (s *serverService) ClaimMember(ctx context.Context, r *connect.Request[svcv1.ClaimMemberRequest]) (*connect.Response[svcv1.ClaimMemberResponse], error) {
	return call(ctx, r, s.eng.ClaimMember)
}

func (s *serverService) ExportMyData(ctx context.Context, r *connect.Request[svcv1.ExportMyDataRequest]) (*connect.Response[svcv1.ExportMyDataResponse], error) {
	return call(ctx, r, s.eng.ExportMyData)
}

// exportRoute is a data export's signed link.
const exportRoute = "GET /exports/{id}/{name}"

// serveExport is GET (and HEAD) /exports/{id}/{name}?exp=&sig=: the zip of an ExportMyData,
// always a download.
func serveExport(eng *engine.Engine) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f, err := eng.OpenExport(r.Context(), r.PathValue("id"), r.PathValue("name"), q.Get("exp"), q.Get("sig"))
		if err != nil {
			writeError(w, err)
			return
		}
		authenticated(r.Context())
		body, err := f.Open(r.Context())
		if err != nil {
			writeError(w, err)
			return
		}
		defer body.Close()
		h := w.Header()
		h.Set("Content-Type", "application/zip")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
		h.Set("Cache-Control", "private, no-store")
		http.ServeContent(w, r, "", f.ModTime, body)
	}
}
