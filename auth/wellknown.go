package auth

import (
	"net/http"
	"strconv"
)

const (
	discoveryPath = "/.well-known/openid-configuration"
	jwksPath      = "/.well-known/jwks.json"
)

// discoveryDocument is the issuer's OpenID Provider metadata: where its keys are, and the
// sign-in flow of the browser client (authorization code with PKCE S256, public client).
// Tokens are also minted by "hearth token".
func (i *Issuer) discoveryDocument() map[string]any {
	return map[string]any{
		"issuer":                                     i.url,
		"jwks_uri":                                   i.url + jwksPath,
		"authorization_endpoint":                     i.url + authorizePath,
		"token_endpoint":                             i.url + tokenPath,
		"revocation_endpoint":                        i.url + revokePath,
		"id_token_signing_alg_values_supported":      []string{issuerAlg.String()},
		"subject_types_supported":                    []string{"public"},
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                           []string{"openid", "offline_access"},
		"claims_supported":                           []string{"iss", "sub", "aud", "exp", "iat", "nbf", "name", "preferred_username"},
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
