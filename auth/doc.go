// Package auth decides who is calling: it verifies people's JWTs against trusted OIDC issuers
// (discovery, JWKS cached by jwx and refreshed on an unknown key), runs the server's own
// issuer (a signing key in the data directory, its discovery document and JWKS), and makes
// and hashes bot tokens.
//
// Nothing here knows about HTTP handlers beyond the issuer's well-known endpoints, nor about
// members: the web layer turns a verified Identity into a member with the engine.
package auth
