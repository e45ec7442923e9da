package auth

// What the tests outside the package may see of the token cache.

const (
	TokenCacheTTL  = tokenCacheTTL
	TokenCacheSize = tokenCacheSize
)

// FullVerifications counts the verifications that checked a signature and succeeded: a
// Verify served from the cache does not count.
func (v *Verifier) FullVerifications() int64 { return v.verified.Load() }

// CachedTokens is the number of cache entries, expired ones included.
func (v *Verifier) CachedTokens() int {
	if v.cache == nil {
		return 0
	}
	return v.cache.len()
}

// SetTokenCacheSize replaces the cache with an empty one of size entries (0: no cache).
// Call it before the verifier is used.
func (v *Verifier) SetTokenCacheSize(size int) {
	if size == 0 {
		v.cache = nil
		return
	}
	c := newTokenCache(v.now, size, tokenCacheShards, tokenCacheTTL)
	v.cache = c
	for _, r := range v.remotes {
		r.cache.keysChanged = c.invalidate
	}
}
