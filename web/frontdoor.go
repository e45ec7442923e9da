package web

import (
	"net/http"
	"strconv"

	"hearth/engine"
	"hearth/web/app"
)

// The front door: a person who opens the server's address in a browser lands in the client,
// and the browser's tab shows the community's icon.

// mountFrontDoor serves GET / (a redirect to the client at /app/) and /favicon.ico (the
// community's icon, or the client's own when the community has none).
func mountFrontDoor(mux *http.ServeMux, eng *engine.Engine) {
	// Found, not Moved Permanently: a browser must not remember it for good.
	mux.Handle("GET /{$}", http.RedirectHandler("/app/", http.StatusFound))
	client := app.Handler("/app")
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		f, err := eng.CommunityIcon()
		if err != nil {
			writeError(w, err)
			return
		}
		if f == nil {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/app/icon.svg"
			client.ServeHTTP(w, r2)
			return
		}
		// Public, as the rest of the community's card is.
		writeFile(w, r, f, "public, max-age="+strconv.Itoa(int(f.MaxAge.Seconds())), nil)
	})
}
