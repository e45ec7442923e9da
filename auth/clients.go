package auth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
)

// OIDCClient is an external issuer the browser client signs in with, and the client id the
// operator registered there (-oidc-client ISSUER=CLIENT_ID).
type OIDCClient struct {
	Issuer   string
	ClientID string
}

// clientIDMax bounds a client id; real ones are a few dozen characters.
const clientIDMax = 255

// ParseOIDCClient reads ISSUER=CLIENT_ID. The issuer follows the trusted issuer rules; the
// client id is printable text without spaces.
func ParseOIDCClient(s string) (OIDCClient, error) {
	iss, id, ok := strings.Cut(s, "=")
	iss, id = strings.TrimSpace(iss), strings.TrimSpace(id)
	if !ok || iss == "" || id == "" {
		return OIDCClient{}, fmt.Errorf("%q must be ISSUER=CLIENT_ID, e.g. https://login.example.com=hearth", s)
	}
	if err := ValidateIssuerURL(iss); err != nil {
		return OIDCClient{}, err
	}
	if len(id) > clientIDMax || strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return OIDCClient{}, fmt.Errorf("client id %q must be at most %d printable characters without spaces", id, clientIDMax)
	}
	return OIDCClient{Issuer: strings.TrimSuffix(iss, "/"), ClientID: id}, nil
}

// issuerEntry is one issuer of the issuers document.
type issuerEntry struct {
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
	BuiltIn  bool   `json:"built_in,omitempty"`
}

// IssuersHandler serves the public JSON document that tells a browser client, before it has
// a token, which issuers it can sign in with and under which client id: the built-in issuer
// first (builtIn, empty when it is off), then the external ones in the order given.
func IssuersHandler(builtIn string, external []OIDCClient) http.Handler {
	doc := struct {
		Issuers []issuerEntry `json:"issuers"`
	}{Issuers: []issuerEntry{}}
	if builtIn != "" {
		doc.Issuers = append(doc.Issuers, issuerEntry{Issuer: builtIn, ClientID: WebClientID, BuiltIn: true})
	}
	for _, c := range external {
		doc.Issuers = append(doc.Issuers, issuerEntry{Issuer: c.Issuer, ClientID: c.ClientID})
	}
	body, err := json.Marshal(doc)
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		// It changes only with the server's flags.
		h.Set("Cache-Control", "public, max-age=300")
		w.Write(body)
	})
}
