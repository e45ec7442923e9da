package web

import (
	"net/http"

	"hearth/engine"
)

func mountInstallable(mux *http.ServeMux, eng *engine.Engine) {}
