package web

import (
	"net/http"

	"hearth/engine"
	"hearth/web/pwa"
)

// mountInstallable serves what makes the client installable beside it: the manifest, its icons
// and the service worker (package pwa).
func mountInstallable(mux *http.ServeMux, eng *engine.Engine) { pwa.Mount(mux, "/app", eng) }
