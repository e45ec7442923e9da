package web

import (
	"net/http"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"
)

// corsMaxAge is how long a browser may reuse a preflight's answer (Chromium caps it at 2 h).
const corsMaxAge = 2 * time.Hour

// withCORS answers preflights and adds CORS headers on the endpoints a browser client served
// from another origin calls (decisions.md, "Cross-origin calls"): the Connect services, the
// Bearer endpoints for files and emoji, and the sign-in endpoints a client fetches. Any
// origin unless origins names some. Every one of them is authorized by a Bearer header or by
// nothing, never by a cookie, so no answer allows credentials.
func withCORS(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		// If-None-Match and ETag: GET /emoji answers 304 to a client that has the list.
		AllowedHeaders: append(connectcors.AllowedHeaders(),
			"Authorization", "Connect-Content-Encoding", "Connect-Accept-Encoding", "Grpc-Accept-Encoding", "If-None-Match"),
		ExposedHeaders: append(connectcors.ExposedHeaders(),
			"Retry-After", "Connect-Content-Encoding", "Content-Disposition", "ETag"),
		AllowCredentials: false,
		MaxAge:           int(corsMaxAge / time.Second),
	})
	cross := c.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if crossOriginPath(r.URL.Path) {
			cross.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOriginPath lists the paths that may be called from another origin. Pages (the
// sign-in and password forms), signed file URLs, invite redirects and /healthz are not.
func crossOriginPath(p string) bool {
	switch p {
	case "/upload", "/emoji", "/emoji.zip",
		"/oauth/token", "/oauth/revoke", "/oauth/issuers",
		"/.well-known/openid-configuration", "/.well-known/jwks.json":
		return true
	}
	return strings.HasPrefix(p, "/svc.v1.") || strings.HasPrefix(p, "/emoji/")
}
