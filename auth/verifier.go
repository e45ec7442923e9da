package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"hearth/engine/outbound"
)

const (
	// clockSkew is how far nbf and iat may lie in our future, for clocks that disagree a little.
	clockSkew = 60 * time.Second
	// maxTokenBytes bounds the work a token can ask for; real ones are a few KiB at most.
	maxTokenBytes = 16 << 10
	// defaultHTTPTimeout applies when the config brings no HTTP client.
	defaultHTTPTimeout = 10 * time.Second
)

// Identity is a verified login: who the issuer says the person is.
type Identity struct {
	// Issuer is the trusted issuer URL as configured (no trailing slash), so that a login
	// is the same whether or not a token's iss ends in "/".
	Issuer  string
	Subject string
	// PreferredUsername and Name are the claims of those names, when they are strings.
	PreferredUsername string
	Name              string
}

// VerifierConfig says which tokens a Verifier accepts.
type VerifierConfig struct {
	// Audience is the server's base URL; a token's aud must contain it.
	Audience string
	// TrustedIssuers are the issuers whose tokens are accepted (a trailing "/" is ignored).
	TrustedIssuers []string
	// HTTPClient fetches discovery documents and key sets: the server's outbound client
	// (hearth/engine/outbound) with the operator's policy, since issuers are named by the
	// operator and may be on loopback or the local network. nil means such a client with a
	// 10 s timeout.
	HTTPClient *http.Client
	// Now is the clock for exp, nbf, iat and the refetch rate limit; nil means time.Now.
	Now func() time.Time
	// Issuer is the server's own issuer, if it runs one. Its URL must be among
	// TrustedIssuers; its tokens are checked against its keys in memory, without HTTP.
	Issuer *Issuer
}

// Verifier checks human login tokens. It is safe for concurrent use.
type Verifier struct {
	audience string
	now      func() time.Time
	local    *Issuer
	remotes  map[string]*remoteIssuer
	// cache remembers tokens that verified; nil verifies every token in full.
	cache *tokenCache
	// verified counts full verifications that succeeded, for tests.
	verified atomic.Int64
}

// NewVerifier prepares a Verifier. It fetches nothing: an issuer's discovery document and
// keys are fetched on first use, so a server starts even while an issuer is down. ctx bounds
// the life of the background key refresh.
func NewVerifier(ctx context.Context, cfg VerifierConfig) (*Verifier, error) {
	if cfg.Audience == "" {
		return nil, errors.New("auth: the verifier needs an audience (the server's base URL)")
	}
	v := &Verifier{
		audience: strings.TrimSuffix(cfg.Audience, "/"),
		now:      cfg.Now,
		local:    cfg.Issuer,
		remotes:  make(map[string]*remoteIssuer),
	}
	if v.now == nil {
		v.now = time.Now
	}
	v.cache = newTokenCache(v.now, tokenCacheSize, tokenCacheShards, tokenCacheTTL)
	client := cfg.HTTPClient
	if client == nil {
		client = outbound.New(outbound.Options{Policy: outbound.Operator, Timeout: defaultHTTPTimeout}).HTTPClient()
	}
	// A change in a remote issuer's keys drops every cached verification.
	cache := &keyCache{ctx: ctx, client: client, now: v.now, keysChanged: v.cache.invalidate}
	localTrusted := false
	for _, iss := range cfg.TrustedIssuers {
		iss = strings.TrimSuffix(iss, "/")
		if v.local != nil && iss == v.local.URL() {
			// The server's own base URL may be plain http on a LAN; it is never fetched.
			localTrusted = true
			continue
		}
		if err := ValidateIssuerURL(iss); err != nil {
			return nil, fmt.Errorf("auth: trusted issuer: %w", err)
		}
		v.remotes[iss] = newRemoteIssuer(iss, cache)
	}
	if v.local != nil && !localTrusted {
		return nil, fmt.Errorf("auth: the local issuer %s is not among the trusted issuers", v.local.URL())
	}
	return v, nil
}

// Verify checks token and returns who it names. Every error says which check failed, in
// words fit for the client; none says why a signature did not verify.
//
// A token that verified is remembered for a short while (see tokenCache) and not checked
// again until then, unless it expires or its issuer's keys change first.
func (v *Verifier) Verify(ctx context.Context, token string) (Identity, error) {
	id, _, err := v.VerifyExpiry(ctx, token)
	return id, err
}

// VerifyExpiry is Verify that also returns when the token expires (its exp, never zero: a
// token without one is refused). What the token proves holds until then, and no longer: a
// Subscribe stream opened with it ends then (see engine.Subscribe).
func (v *Verifier) VerifyExpiry(ctx context.Context, token string) (Identity, time.Time, error) {
	// A token too long to be valid is refused by parseHeader before it is hashed.
	if v.cache == nil || len(token) > maxTokenBytes {
		return v.verify(ctx, token)
	}
	key := sha256.Sum256([]byte(token))
	if id, exp, ok := v.cache.get(&key); ok {
		return id, exp, nil
	}
	// Read before verify looks at any key: if the keys change meanwhile, the answer is not
	// stored.
	gen := v.cache.generation()
	id, exp, err := v.verify(ctx, token)
	if err != nil {
		return Identity{}, time.Time{}, err
	}
	v.cache.put(&key, id, v.now(), exp, gen)
	return id, exp, nil
}

// verify checks token in full and returns who it names and when it expires.
func (v *Verifier) verify(ctx context.Context, token string) (Identity, time.Time, error) {
	id, exp, err := v.verifyToken(ctx, token)
	if err == nil {
		v.verified.Add(1)
	}
	return id, exp, err
}

func (v *Verifier) verifyToken(ctx context.Context, token string) (Identity, time.Time, error) {
	msg, alg, err := parseHeader(token)
	if err != nil {
		return Identity{}, time.Time{}, err
	}
	claims, err := parseClaims(msg.Payload())
	if err != nil {
		return Identity{}, time.Time{}, err
	}
	// iss is read before the signature is checked only to choose whose keys check it; an
	// issuer that is not trusted is refused here, before any request could be made for it.
	rawIss := claims.Issuer()
	iss := strings.TrimSuffix(rawIss, "/")
	if iss == "" {
		return Identity{}, time.Time{}, fail(ErrMissingClaim, "token has no issuer (iss)")
	}
	key, err := v.key(ctx, iss, rawIss, msg.Signatures()[0].ProtectedHeaders().KeyID())
	if err != nil {
		return Identity{}, time.Time{}, err
	}
	if err := checkKeyFits(key, alg); err != nil {
		return Identity{}, time.Time{}, err
	}
	// Header keys such as jku, x5u and jwk are never used: keys come from the issuer only.
	// The signature is checked by jwx's verifier for alg over the token's signing input as it
	// came (RFC 7515 section 5.2: the text before the last dot), which is what jws.Verify
	// checks too, after parsing the whole token a second time: a fifth of a verification's
	// garbage, and verifications come all at once when a restarted server's clients reconnect.
	verifier, err := jws.NewVerifier(alg)
	if err != nil {
		return Identity{}, time.Time{}, fail(ErrAlgorithm, "unsupported signing algorithm "+printable(alg.String()))
	}
	signed := token[:strings.LastIndexByte(token, '.')]
	if err := verifier.Verify([]byte(signed), msg.Signatures()[0].Signature(), key); err != nil {
		return Identity{}, time.Time{}, fail(ErrSignature, "invalid token signature")
	}
	if err := v.checkClaims(claims); err != nil {
		return Identity{}, time.Time{}, err
	}
	if v.local != nil && iss == v.local.URL() && isIDToken(claims) {
		return Identity{}, time.Time{}, fail(ErrNotAccessToken, "an ID token is not an access token: send the access_token of the token response")
	}
	return Identity{
		Issuer:            iss,
		Subject:           claims.Subject(),
		PreferredUsername: stringClaim(claims, "preferred_username"),
		Name:              stringClaim(claims, "name"),
	}, claims.Expiration(), nil
}

// key finds the key of issuer iss named kid.
func (v *Verifier) key(ctx context.Context, iss, rawIss, kid string) (jwk.Key, error) {
	if v.local != nil && iss == v.local.URL() {
		if k, ok := pickKey(v.local.public, kid); ok {
			return k, nil
		}
		return nil, fail(ErrUnknownKey, "unknown signing key")
	}
	r, ok := v.remotes[iss]
	if !ok {
		return nil, fail(ErrUntrustedIssuer, fmt.Sprintf("issuer %s is not trusted", printable(rawIss)))
	}
	return r.key(ctx, kid)
}

// parseHeader reads the token's one signature header and refuses any algorithm but the
// asymmetric ones, before a key is looked at.
func parseHeader(token string) (*jws.Message, jwa.SignatureAlgorithm, error) {
	malformed := fail(ErrMalformed, "malformed token")
	if len(token) > maxTokenBytes {
		return nil, "", fail(ErrMalformed, fmt.Sprintf("malformed token: longer than %d bytes", maxTokenBytes))
	}
	// Compact serialization only (header.payload.signature): the JSON serialization may
	// carry several signatures, and jwt.Parse would even take an unsigned JSON object.
	if strings.Count(token, ".") != 2 {
		return nil, "", malformed
	}
	msg, err := jws.Parse([]byte(token), jws.WithCompact())
	if err != nil || len(msg.Signatures()) != 1 {
		return nil, "", malformed
	}
	h := msg.Signatures()[0].ProtectedHeaders()
	alg := h.Algorithm()
	if !allowedAlgorithm(alg) {
		return nil, "", fail(ErrAlgorithm, "unsupported signing algorithm "+printable(alg.String()))
	}
	// RFC 7515 section 4.1.11: a token whose crit lists extensions we do not implement
	// must be refused, and we implement none.
	if len(h.Critical()) > 0 {
		return nil, "", fail(ErrMalformed, "malformed token: critical header extensions (crit) are not supported")
	}
	return msg, alg, nil
}

// parseClaims reads the claims. They are not trusted until the signature is checked.
func parseClaims(payload []byte) (jwt.Token, error) {
	// A JSON object and nothing else: jwt.Parse would also unwrap a nested JWS or JWE.
	if !bytes.HasPrefix(bytes.TrimSpace(payload), []byte("{")) {
		return nil, fail(ErrMalformed, "malformed token")
	}
	claims, err := jwt.Parse(payload, jwt.WithVerify(false), jwt.WithValidate(false))
	if err != nil {
		return nil, fail(ErrMalformed, "malformed token")
	}
	return claims, nil
}

// checkClaims checks the time and audience claims. exp gets no leeway (the token must not
// have expired), nbf and iat get clockSkew (a token minted a moment "in the future" by an
// issuer whose clock runs ahead is still fine).
func (v *Verifier) checkClaims(claims jwt.Token) error {
	now := v.now()
	exp := claims.Expiration()
	switch {
	case exp.IsZero():
		return fail(ErrMissingClaim, "token has no expiry (exp)")
	case !now.Before(exp):
		return fail(ErrExpired, "token expired")
	}
	if nbf := claims.NotBefore(); !nbf.IsZero() && nbf.After(now.Add(clockSkew)) {
		return fail(ErrNotYetValid, "token is not valid yet")
	}
	if iat := claims.IssuedAt(); !iat.IsZero() && iat.After(now.Add(clockSkew)) {
		return fail(ErrNotYetValid, "token was issued in the future")
	}
	if !v.audienceIn(claims.Audience()) {
		return fail(ErrAudience, "token audience does not include "+v.audience)
	}
	if claims.Subject() == "" {
		return fail(ErrMissingClaim, "token has no subject (sub)")
	}
	return nil
}

// audienceIn compares like issuers: a trailing "/" makes no difference.
func (v *Verifier) audienceIn(aud []string) bool {
	for _, a := range aud {
		if strings.TrimSuffix(a, "/") == v.audience {
			return true
		}
	}
	return false
}

// isIDToken tells an ID token of the built-in issuer from its access tokens. Both carry the
// same audience (the authorization request's: the server and the client), so aud cannot tell
// them apart. OpenID wants azp in an ID token issued to one client, and at_hash whenever an
// access token comes with it; zitadel's op puts both in every ID token it makes (code and
// refresh grants alike) and neither in an access token, and Mint (hearth token, login links)
// uses neither. Either one marks an ID token.
func isIDToken(claims jwt.Token) bool {
	for _, name := range []string{"azp", "at_hash"} {
		if _, ok := claims.Get(name); ok {
			return true
		}
	}
	return false
}

func stringClaim(claims jwt.Token, name string) string {
	v, _ := claims.Get(name)
	s, _ := v.(string)
	return s
}
