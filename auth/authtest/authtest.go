// Package authtest runs a real OpenID issuer for tests: an httptest server on loopback that
// serves discovery and a JWKS for a fresh RSA key, and signs tokens with it, including the
// forged kinds a verifier must refuse. It counts the requests it gets, so tests can check
// what a verifier fetched.
package authtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
)

// Issuer is a running test issuer. Its methods are safe for concurrent use.
type Issuer struct {
	t   testing.TB
	srv *httptest.Server

	mu          sync.Mutex
	signing     jwk.Key   // the key Sign uses (private)
	published   []jwk.Key // the public keys the JWKS lists
	kids        int       // the keys made for signing so far, for the next kid
	omitAlg     bool
	stranger    jwk.Key // a key the JWKS never lists, for SignWithUnknownKid
	unknownKids int
	down        bool
	keysDown    bool
	discovery   int
	jwks        int
	requests    int
}

// NewIssuer starts an issuer with one RSA key, kid "k1", alg RS256. It stops when the test
// ends.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	i := &Issuer{t: t, kids: 1}
	i.signing = i.newKey("k1")
	i.published = []jwk.Key{i.public(i.signing)}
	i.srv = httptest.NewServer(http.HandlerFunc(i.serve))
	t.Cleanup(i.srv.Close)
	return i
}

// URL is the issuer URL, e.g. http://127.0.0.1:41234.
func (i *Issuer) URL() string { return i.srv.URL }

// Token signs a token with the usual claims: iss, sub, aud, iat, nbf now and exp now+ttl.
func (i *Issuer) Token(sub, audience string, ttl time.Duration) string {
	now := time.Now()
	return i.Sign(map[string]any{
		"iss": i.URL(),
		"sub": sub,
		"aud": []string{audience},
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(ttl).Unix(),
	})
}

// Sign signs exactly the given claims with the current key (RS256, its kid in the header).
func (i *Issuer) Sign(claims map[string]any) string {
	i.mu.Lock()
	key := i.signing
	i.mu.Unlock()
	return i.sign(claims, jwa.RS256, key)
}

// SignAlg signs claims with the current RSA key but names alg in the header (an RSA
// algorithm: RS* or PS*), to test that a key is not used with another algorithm.
func (i *Issuer) SignAlg(alg string, claims map[string]any) string {
	i.mu.Lock()
	key := i.signing
	i.mu.Unlock()
	return i.sign(claims, jwa.SignatureAlgorithm(alg), key)
}

// SignNone makes an unsigned token: alg "none", the current kid, an empty signature.
func (i *Issuer) SignNone(claims map[string]any) string {
	i.mu.Lock()
	kid := i.signing.KeyID()
	i.mu.Unlock()
	h := jws.NewHeaders()
	i.check(h.Set(jws.KeyIDKey, kid))
	i.check(h.Set(jws.TypeKey, "JWT"))
	tok, err := jws.Sign(i.payload(claims), jws.WithInsecureNoSignature(jws.WithProtectedHeaders(h)))
	i.check(err)
	return string(tok)
}

// SignHS256WithPublicKey forges the classic confusion attack: HS256 with the issuer's public
// key (its PEM text, as a verifier might hold it) as the HMAC secret, under the current kid.
func (i *Issuer) SignHS256WithPublicKey(claims map[string]any) string {
	i.mu.Lock()
	key := i.signing
	i.mu.Unlock()
	var priv rsa.PrivateKey
	i.check(key.Raw(&priv))
	der, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	i.check(err)
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	h := jws.NewHeaders()
	i.check(h.Set(jws.KeyIDKey, key.KeyID()))
	i.check(h.Set(jws.TypeKey, "JWT"))
	tok, err := jws.Sign(i.payload(claims), jws.WithKey(jwa.HS256, secret, jws.WithProtectedHeaders(h)))
	i.check(err)
	return string(tok)
}

// SignWithUnknownKid signs with a key the issuer does not publish, under a kid it has never
// used ("unknown-1", "unknown-2", ...).
func (i *Issuer) SignWithUnknownKid(claims map[string]any) string {
	i.mu.Lock()
	stranger := i.stranger
	i.mu.Unlock()
	if stranger == nil {
		stranger = i.newKey("")
	}
	i.mu.Lock()
	if i.stranger == nil {
		i.stranger = stranger
	}
	i.unknownKids++
	key, err := i.stranger.Clone()
	kid := fmt.Sprintf("unknown-%d", i.unknownKids)
	i.mu.Unlock()
	i.check(err)
	i.check(key.Set(jwk.KeyIDKey, kid))
	return i.sign(claims, jwa.RS256, key)
}

// RotateKey makes a new key, publishes it next to the old ones and signs with it from now
// on. It returns the new kid ("k2", "k3", ...).
func (i *Issuer) RotateKey() string {
	i.mu.Lock()
	i.kids++
	kid := fmt.Sprintf("k%d", i.kids)
	i.mu.Unlock()
	key := i.newKey(kid)
	pub := i.public(key)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.signing = key
	i.published = append(i.published, pub)
	return kid
}

// Unpublish drops the key named kid from the JWKS, as an issuer does when it retires a key
// (or a leaked one). Sign keeps signing with the current key, even if that is the one dropped.
func (i *Issuer) Unpublish(kid string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.published = slices.DeleteFunc(i.published, func(k jwk.Key) bool { return k.KeyID() == kid })
}

// OmitKeyAlg makes the JWKS list keys without "alg", as some issuers do.
func (i *Issuer) OmitKeyAlg() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.omitAlg = true
}

// SetDown makes every request fail with 503 (true) or be served again (false).
func (i *Issuer) SetDown(down bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.down = down
}

// SetKeysDown makes the JWKS alone fail with 503 (true) or be served again (false).
func (i *Issuer) SetKeysDown(down bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keysDown = down
}

// DiscoveryFetches counts the requests for the discovery document, JWKSFetches those for
// the key set, and Requests every request, down or not.
func (i *Issuer) DiscoveryFetches() int { i.mu.Lock(); defer i.mu.Unlock(); return i.discovery }
func (i *Issuer) JWKSFetches() int      { i.mu.Lock(); defer i.mu.Unlock(); return i.jwks }
func (i *Issuer) Requests() int         { i.mu.Lock(); defer i.mu.Unlock(); return i.requests }

func (i *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	i.mu.Lock()
	i.requests++
	down := i.down
	var doc any
	var err error
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		i.discovery++
		doc = map[string]any{"issuer": i.URL(), "jwks_uri": i.URL() + "/.well-known/jwks.json"}
	case "/.well-known/jwks.json":
		i.jwks++
		down = down || i.keysDown
		doc, err = i.jwksDocument()
	}
	i.mu.Unlock()
	switch {
	case err != nil:
		// Not t.Fatal: this runs on the server's goroutine.
		i.t.Errorf("authtest: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case down:
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
	case doc == nil:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}
}

// jwksDocument is the published key set. Hold mu.
func (i *Issuer) jwksDocument() (jwk.Set, error) {
	set := jwk.NewSet()
	for _, k := range i.published {
		k, err := k.Clone()
		if err != nil {
			return nil, err
		}
		if i.omitAlg {
			if err := k.Remove(jwk.AlgorithmKey); err != nil {
				return nil, err
			}
		}
		if err := set.AddKey(k); err != nil {
			return nil, err
		}
	}
	return set, nil
}

func (i *Issuer) newKey(kid string) jwk.Key {
	raw, err := rsa.GenerateKey(rand.Reader, 2048)
	i.check(err)
	key, err := jwk.FromRaw(raw)
	i.check(err)
	i.check(key.Set(jwk.AlgorithmKey, jwa.RS256))
	if kid != "" {
		i.check(key.Set(jwk.KeyIDKey, kid))
	}
	return key
}

func (i *Issuer) public(key jwk.Key) jwk.Key {
	pub, err := key.PublicKey()
	i.check(err)
	return pub
}

func (i *Issuer) sign(claims map[string]any, alg jwa.SignatureAlgorithm, key jwk.Key) string {
	h := jws.NewHeaders()
	i.check(h.Set(jws.TypeKey, "JWT"))
	tok, err := jws.Sign(i.payload(claims), jws.WithKey(alg, key, jws.WithProtectedHeaders(h)))
	i.check(err)
	return string(tok)
}

func (i *Issuer) payload(claims map[string]any) []byte {
	b, err := json.Marshal(claims)
	i.check(err)
	return b
}

func (i *Issuer) check(err error) {
	if err != nil {
		i.t.Helper()
		i.t.Fatalf("authtest: %v", err)
	}
}
