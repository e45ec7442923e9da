// Package auth decides who is calling: it verifies people's JWTs against trusted OIDC issuers
// (discovery, JWKS cached by jwx and refreshed on an unknown key), runs the server's own
// issuer (a signing key in the data directory, its discovery document and JWKS), and makes
// and hashes bot tokens.
//
// The built-in issuer is also a small OpenID provider (Provider): people's accounts (kept by
// an AccountStore, which web implements over engine/store's accounts in the one database),
// a sign-up and sign-in page that joins the community through the Community interface,
// authorization code with PKCE for the browser client (zitadel/oidc's op package speaks the
// protocol), rotating refresh tokens, sign-out and password changes.
//
// Nothing here knows about the engine or the web layer: the assembly hands the Provider an
// AccountStore and a Community, and the web layer turns a verified Identity into a member.
package auth
