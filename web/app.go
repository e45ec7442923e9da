package web

import (
	"net/http"

	"hearth/web/app"
)

// mountApp serves the embedded browser client at /app/ (and sends /app there), so that a
// browser needs nothing but the server's address.
func mountApp(mux *http.ServeMux) {
	h := app.Handler("/app")
	mux.Handle("GET /app/", h) // HEAD too
	mux.Handle("GET /app", http.RedirectHandler("/app/", http.StatusMovedPermanently))
}
