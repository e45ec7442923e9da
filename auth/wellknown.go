package auth

import (
	"net/http"
	"strconv"
)

const (
	discoveryPath = "/.well-known/openid-configuration"
	jwksPath      = "/.well-known/jwks.json"
)

// discoveryDocument is the issuer's OpenID Provider metadata: enough for a verifier to find
// the keys. There is no authorization endpoint: tokens are minted by "hearth token".
func (i *Issuer) discoveryDocument() map[string]any {
	return map[string]any{
		"issuer":                                i.url,
		"jwks_uri":                              i.url + jwksPath,
		"id_token_signing_alg_values_supported": []string{issuerAlg.String()},
		"subject_types_supported":               []string{"public"},
		"response_types_supported":              []string{"id_token"},
		"claims_supported":                      []string{"iss", "sub", "aud", "exp", "iat", "nbf", "name"},
	}
}

// Handler serves the discovery document and the JWKS. It routes on the full request path,
// as the server mounts it at /.well-known/, and answers 404 to any other path.
func (i *Issuer) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		switch r.URL.Path {
		case discoveryPath:
			body = i.discoveryJSON
		case jwksPath:
			body = i.jwksJSON
		default:
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		// Short enough that a replaced key reaches other verifiers soon.
		h.Set("Cache-Control", "public, max-age=300")
		w.Write(body)
	})
}
