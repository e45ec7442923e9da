package auth

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jwt"
)

// issuerAlg is the local issuer's signing algorithm. ES256 rather than EdDSA because every
// JWT library verifies it, should someone point another service at our JWKS.
const issuerAlg = jwa.ES256

// Issuer is the server's own token issuer: it signs login tokens with a key kept in the
// data directory and publishes the public half for anyone who verifies them.
type Issuer struct {
	url string
	now func() time.Time
	key jwk.Key // private, with kid and alg
	// private is the same key for op, which signs the sign-in flow's tokens with go-jose.
	private *ecdsa.PrivateKey
	public  jwk.Set // the public key alone

	discoveryJSON []byte
	jwksJSON      []byte
}

// LoadOrCreateIssuer opens the local issuer whose URL is baseURL, reusing the key in
// <dataDir>/issuer-key (so tokens survive restarts) or making one (mode 0600) on first use.
func LoadOrCreateIssuer(dataDir, baseURL string, now func() time.Time) (*Issuer, error) {
	baseURL = strings.TrimSuffix(baseURL, "/")
	if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("auth: issuer URL %q must be an absolute http or https URL", baseURL)
	}
	if now == nil {
		now = time.Now
	}
	priv, err := loadOrCreateKey(filepath.Join(dataDir, IssuerKeyFile))
	if err != nil {
		return nil, err
	}
	return newIssuer(baseURL, priv, now)
}

func newIssuer(baseURL string, priv *ecdsa.PrivateKey, now func() time.Time) (*Issuer, error) {
	key, err := jwk.FromRaw(priv)
	if err != nil {
		return nil, err
	}
	if err := key.Set(jwk.AlgorithmKey, issuerAlg); err != nil {
		return nil, err
	}
	if err := key.Set(jwk.KeyUsageKey, jwk.ForSignature); err != nil {
		return nil, err
	}
	// The kid is the key's RFC 7638 thumbprint: the same key file gives the same kid after
	// every restart, and a new key a new kid.
	if err := jwk.AssignKeyID(key); err != nil {
		return nil, err
	}
	pub, err := key.PublicKey()
	if err != nil {
		return nil, err
	}
	public := jwk.NewSet()
	if err := public.AddKey(pub); err != nil {
		return nil, err
	}
	i := &Issuer{url: baseURL, now: now, key: key, private: priv, public: public}
	if i.jwksJSON, err = json.Marshal(public); err != nil {
		return nil, err
	}
	if i.discoveryJSON, err = json.Marshal(i.discoveryDocument()); err != nil {
		return nil, err
	}
	return i, nil
}

// URL is the issuer's URL: the server's base URL, without a trailing slash.
func (i *Issuer) URL() string { return i.url }

// Mint signs a login token for sub, valid for ttl from now, with the server as audience.
// name goes in the "name" claim when not empty.
func (i *Issuer) Mint(sub, name string, ttl time.Duration) (string, error) {
	if sub == "" {
		return "", errors.New("auth: a token needs a subject")
	}
	if ttl <= 0 {
		return "", fmt.Errorf("auth: token lifetime %s must be positive", ttl)
	}
	now := i.now().Truncate(time.Second)
	b := jwt.NewBuilder().
		Issuer(i.url).
		Audience([]string{i.url}).
		Subject(sub).
		IssuedAt(now).
		NotBefore(now).
		Expiration(now.Add(ttl))
	if name != "" {
		b = b.Claim("name", name)
	}
	tok, err := b.Build()
	if err != nil {
		return "", err
	}
	// jws puts the key's kid in the header.
	signed, err := jwt.Sign(tok, jwt.WithKey(issuerAlg, i.key))
	if err != nil {
		return "", err
	}
	return string(signed), nil
}
