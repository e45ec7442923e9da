package auth

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

const (
	// refetchInterval is the least time between two fetches we start for one issuer: a retry
	// after a failure, a refresh on an unknown kid. Tokens come from anyone; without this,
	// every forged kid would cost a request to the issuer.
	refetchInterval = 10 * time.Second
	// jwksRefreshInterval is how often jwx refreshes a key set in the background when the
	// issuer's Cache-Control does not ask for longer.
	jwksRefreshInterval = 15 * time.Minute
)

// keyCache is what the remote issuers of one Verifier share: the HTTP client, the clock and
// jwx's JWKS cache. The cache runs goroutines until the Verifier's context ends, so it is
// made only when an external issuer is first used: a server trusting only itself runs none.
type keyCache struct {
	ctx    context.Context
	client *http.Client
	now    func() time.Time
	// keysChanged is called when an issuer's key set changes, after the new set is in use.
	keysChanged func()

	once  sync.Once
	cache *jwk.Cache
}

func (c *keyCache) jwks() *jwk.Cache {
	c.once.Do(func() { c.cache = jwk.NewCache(c.ctx) })
	return c.cache
}

// remoteIssuer is one trusted external issuer: its discovery state and the rate limit of
// the fetches we start for it.
type remoteIssuer struct {
	url   string
	cache *keyCache

	// jwksURL is set once discovery succeeded, keys after each successful fetch of the key
	// set (ours, or jwx's background refresh). Every Verify reads them without a lock, so it
	// never waits for a fetch in progress unless it needs a key we do not have.
	jwksURL atomic.Pointer[string]
	keys    atomic.Pointer[jwk.Set]
	// keysMu orders the stores of keys (ours and jwx's run on different goroutines) and
	// guards keysPrint, the fingerprint of the set in keys.
	keysMu    sync.Mutex
	keysPrint string

	// sem admits one fetch at a time (a channel rather than a mutex, so that a waiting
	// caller can give up when its context ends); it guards the fields below.
	sem       chan struct{}
	lastFetch time.Time
	lastErr   error
}

func newRemoteIssuer(iss string, cache *keyCache) *remoteIssuer {
	return &remoteIssuer{url: iss, cache: cache, sem: make(chan struct{}, 1)}
}

// key returns the issuer's key named kid (any key if kid is empty and there is one).
func (r *remoteIssuer) key(ctx context.Context, kid string) (jwk.Key, error) {
	if r.cache.ctx.Err() != nil {
		return nil, r.unavailable(errStopped)
	}
	u, err := r.discover(ctx)
	if err != nil {
		return nil, err
	}
	if set := r.keys.Load(); set != nil {
		if k, ok := pickKey(*set, kid); ok {
			return k, nil
		}
	}
	// Either the kid is new (the issuer rotated its keys) or no fetch of the keys has
	// worked yet: fetch them again, if the rate limit allows.
	set, err := r.refresh(ctx, u)
	if err != nil {
		return nil, err
	}
	if k, ok := pickKey(set, kid); ok {
		return k, nil
	}
	return nil, fail(ErrUnknownKey, "unknown signing key")
}

// discover returns the issuer's jwks_uri, fetching its discovery document the first time.
// A failure is not kept for good: the next call after refetchInterval tries again, so an
// issuer that was down when we started is used as soon as it is back.
func (r *remoteIssuer) discover(ctx context.Context) (string, error) {
	if u := r.jwksURL.Load(); u != nil {
		return *u, nil
	}
	if err := r.lock(ctx); err != nil {
		return "", err
	}
	defer r.unlock()
	if u := r.jwksURL.Load(); u != nil {
		return *u, nil
	}
	if !r.mayFetch() {
		return "", r.unavailable(r.lastErr)
	}
	u, err := r.fetchDiscovery(ctx)
	if err != nil {
		r.lastErr = err
		return "", r.unavailable(err)
	}
	cache := r.cache.jwks()
	if !cache.IsRegistered(u) {
		err := cache.Register(u,
			jwk.WithHTTPClient(jwksClient{r.cache.client}),
			jwk.WithMinRefreshInterval(jwksRefreshInterval),
			jwk.WithPostFetcher(jwk.PostFetchFunc(func(_ string, set jwk.Set) (jwk.Set, error) {
				r.setKeys(set)
				return set, nil
			})))
		if err != nil {
			r.lastErr = err
			return "", r.unavailable(err)
		}
	}
	// The first fetch of the keys belongs to discovery's turn of the rate limit. If it fails
	// the jwks_uri is still known, and key() retries the keys alone.
	r.fetchKeys(ctx, u)
	r.jwksURL.Store(&u)
	return u, nil
}

// fetchKeys fetches the key set now. Hold sem.
func (r *remoteIssuer) fetchKeys(ctx context.Context, u string) {
	set, err := r.cache.jwks().Refresh(ctx, u)
	if err != nil {
		// jwx keeps the set it had; so do we.
		r.lastErr = err
		return
	}
	// Also stored by the post-fetcher, unless another issuer registered the same jwks_uri.
	r.setKeys(set)
	r.lastErr = nil
}

// setKeys puts a freshly fetched key set in use. If it differs from the set we had (a key
// added, removed or changed), keysChanged is told, after the new set is in use: the
// verifications cached with the old set are dropped, and none started from now on can have
// used it.
func (r *remoteIssuer) setKeys(set jwk.Set) {
	fp, ok := keySetFingerprint(set)
	r.keysMu.Lock()
	had := r.keys.Load() != nil
	changed := had && (!ok || fp != r.keysPrint)
	r.keys.Store(&set)
	r.keysPrint = fp
	r.keysMu.Unlock()
	if changed && r.cache.keysChanged != nil {
		r.cache.keysChanged()
	}
}

// keySetFingerprint sums up what of a key set decides whether a token verifies: each key's
// kid, alg, use and its RFC 7638 thumbprint (type, curve and public numbers), in an order of
// its own, so that a refetch returning the same keys in another order is no change. ok is
// false when a key has no thumbprint; the set then counts as changed.
func keySetFingerprint(set jwk.Set) (string, bool) {
	parts := make([]string, 0, set.Len())
	for i := range set.Len() {
		k, _ := set.Key(i)
		tp, err := k.Thumbprint(crypto.SHA256)
		if err != nil {
			return "", false
		}
		parts = append(parts, strings.Join([]string{k.KeyID(), k.Algorithm().String(), k.KeyUsage(), string(tp)}, "\x00"))
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x01"), true
}

// refresh fetches the key set again unless we did so within refetchInterval, and returns
// the freshest set there is (a failed refresh keeps the set we had).
func (r *remoteIssuer) refresh(ctx context.Context, u string) (jwk.Set, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if r.mayFetch() {
		r.fetchKeys(ctx, u)
	}
	if set := r.keys.Load(); set != nil {
		return *set, nil
	}
	return nil, r.unavailable(r.lastErr)
}

// mayFetch says whether the rate limit allows a fetch now, and if so counts it. Hold sem.
func (r *remoteIssuer) mayFetch() bool {
	now := r.cache.now()
	if !r.lastFetch.IsZero() && now.Sub(r.lastFetch) < refetchInterval {
		return false
	}
	r.lastFetch = now
	return true
}

func (r *remoteIssuer) lock(ctx context.Context) error {
	select {
	case r.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return r.unavailable(ctx.Err())
	}
}

func (r *remoteIssuer) unlock() { <-r.sem }

// unavailable is the error for keys we could not get. It names the issuer and the request
// that failed, which helps whoever runs the server, and says nothing about the token.
func (r *remoteIssuer) unavailable(cause error) error {
	reason := "no key set fetched yet"
	var fe *fetchError
	switch {
	case errors.As(cause, &fe):
		reason = fe.msg
	case cause != nil:
		reason = cause.Error()
	}
	return &checkError{
		kind:  ErrKeysUnavailable,
		msg:   fmt.Sprintf("cannot get the signing keys of issuer %s: %s", r.url, reason),
		cause: cause,
	}
}

// discovery is the part of an OpenID Provider's metadata we use.
type discovery struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// fetchDiscovery reads {iss}/.well-known/openid-configuration and returns its jwks_uri.
func (r *remoteIssuer) fetchDiscovery(ctx context.Context) (string, error) {
	where := r.url + "/.well-known/openid-configuration"
	_, body, err := get(ctx, r.cache.client, where, maxDiscoveryBytes)
	if err != nil {
		return "", err
	}
	var doc discovery
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", &fetchError{fmt.Sprintf("%s is not a JSON discovery document: %v", where, err)}
	}
	// OpenID Connect Discovery 1.0, section 4.3: the document must name the issuer we asked
	// about, or one issuer could pass off another's keys as its own.
	if strings.TrimSuffix(doc.Issuer, "/") != r.url {
		return "", &fetchError{fmt.Sprintf("%s names issuer %q, not %s", where, printable(doc.Issuer), r.url)}
	}
	ju, err := url.Parse(doc.JWKSURI)
	if err != nil || doc.JWKSURI == "" {
		return "", &fetchError{fmt.Sprintf("%s has no valid jwks_uri", where)}
	}
	if err := checkFetchURL(ju); err != nil {
		return "", &fetchError{fmt.Sprintf("%s: jwks_uri %q %v", where, printable(doc.JWKSURI), err)}
	}
	return ju.String(), nil
}
