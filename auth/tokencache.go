package auth

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// tokenCacheTTL is the longest a verification is reused. It bounds how stale a cached
	// answer can be in the cases the cache cannot see (see tokenCache), and it is short
	// against the lifetime of a login token (hours), so a busy client still costs one full
	// verification a minute.
	tokenCacheTTL = 60 * time.Second
	// tokenCacheSize bounds the entries. An entry is ~270 bytes (the hash, the Identity's
	// strings, the token's exp and the entry's expiry), so the cache never holds more than
	// ~1 MB. The cache only helps tokens that call again within tokenCacheTTL: the load runs
	// have 1,500 senders, and a community of a few thousand people has fewer active at once;
	// an open stream verifies once, when it opens. Past the bound, entries are evicted and the
	// extra tokens cost what they cost before the cache, nothing more.
	tokenCacheSize = 4096
	// tokenCacheShards spreads the entries over locks, so that calls on many cores do not
	// all take one lock. Each shard holds tokenCacheSize/tokenCacheShards entries.
	tokenCacheShards = 16
)

// tokenCache remembers successful verifications, keyed by the SHA-256 of the token (the
// token itself is never kept), so that a client calling many times with one token pays for
// the signature check and the parsing once per tokenCacheTTL.
//
// What it keeps is an answer Verify gave: failures are never cached (a bad token must cost
// whoever sends it, and a key fetched later must be able to make a token valid). An entry
// is used only while now < min(token exp, verified + tokenCacheTTL) on the verifier's clock;
// nbf and iat were checked when the token was verified, and once valid they stay valid.
//
// Invalidation: when a remote issuer's key set changes (a fetch of its JWKS that returns a
// different set, by our refresh on an unknown kid or jwx's background refresh), the whole
// cache is dropped, and a verification that started before the change is not stored (the
// generation check in put). So a key removed from an issuer's JWKS stops working here as
// soon as the verifier fetches the new set, as it would without the cache; until then it
// works with or without the cache. The local issuer's key never changes while the server
// runs (a new key file means a restart, and an empty cache). Dropping everything rather than
// one issuer's entries is simpler and costs little: key sets change rarely, and each active
// token then pays for one full verification.
//
// Worst case: a change the verifier does not see as a change of its keys (a bug here, or a
// way of revoking trust other than the key set) keeps a token that verified before it valid
// here for at most tokenCacheTTL, and never past the token's exp.
type tokenCache struct {
	now       func() time.Time
	ttl       time.Duration
	shardSize int
	// gen counts invalidations. A verification reads it before it looks at any key and
	// stores its answer only if it has not moved since.
	gen    atomic.Uint64
	shards []cacheShard
}

type cacheShard struct {
	mu      sync.RWMutex
	entries map[[sha256.Size]byte]cacheEntry
	// Pad the shard (a 24-byte lock and a map pointer) to 64 bytes, a cache line, so that
	// readers of neighbouring shards do not contend on one line.
	_ [32]byte
}

type cacheEntry struct {
	id Identity
	// exp is the token's; expires, when the entry stops being used (at exp or earlier).
	exp, expires time.Time
}

func newTokenCache(now func() time.Time, size, shards int, ttl time.Duration) *tokenCache {
	c := &tokenCache{now: now, ttl: ttl, shardSize: max(1, size/shards), shards: make([]cacheShard, shards)}
	for i := range c.shards {
		c.shards[i].entries = make(map[[sha256.Size]byte]cacheEntry)
	}
	return c
}

func (c *tokenCache) shard(key *[sha256.Size]byte) *cacheShard {
	// The key is a SHA-256: any of its bytes is uniform.
	return &c.shards[int(key[0])%len(c.shards)]
}

// get returns the cached identity of the token whose hash is key and the token's exp, if
// the entry has not expired.
func (c *tokenCache) get(key *[sha256.Size]byte) (Identity, time.Time, bool) {
	s := c.shard(key)
	s.mu.RLock()
	e, ok := s.entries[*key]
	s.mu.RUnlock()
	if !ok || !c.now().Before(e.expires) {
		return Identity{}, time.Time{}, false
	}
	return e.id, e.exp, true
}

// put stores id for the token whose hash is key, verified at now, expiring at exp; gen is
// what generation returned before the verification began.
func (c *tokenCache) put(key *[sha256.Size]byte, id Identity, now, exp time.Time, gen uint64) {
	expires := now.Add(c.ttl)
	if exp.Before(expires) {
		expires = exp
	}
	if !now.Before(expires) {
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	// Checked under the lock: invalidate moves gen before it empties the shards, so either
	// this sees the new gen, or the entry is stored before the shard is emptied.
	if c.gen.Load() != gen {
		return
	}
	if _, ok := s.entries[*key]; !ok && len(s.entries) >= c.shardSize {
		s.evict(now, c.shardSize)
	}
	s.entries[*key] = cacheEntry{id: id, exp: exp, expires: expires}
}

// evict makes room in a full shard: it drops the expired entries, and if that leaves the
// shard more than 7/8 full, arbitrary ones (Go's map order is random) down to 7/8. Each pass
// over the shard thus frees at least an eighth of it, so a cache that keeps overflowing
// costs O(1) per put on average rather than a full pass each time. Hold s.mu.
func (s *cacheShard) evict(now time.Time, size int) {
	for k, e := range s.entries {
		if !now.Before(e.expires) {
			delete(s.entries, k)
		}
	}
	keep := size - size/8
	if keep >= size {
		keep = size - 1
	}
	for k := range s.entries {
		if len(s.entries) <= keep {
			break
		}
		delete(s.entries, k)
	}
}

// generation is read before a verification looks at keys; see put.
func (c *tokenCache) generation() uint64 { return c.gen.Load() }

// invalidate drops every entry, and keeps verifications already under way from storing.
func (c *tokenCache) invalidate() {
	c.gen.Add(1)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.entries)
		s.mu.Unlock()
	}
}

// len is the number of entries, expired ones included.
func (c *tokenCache) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.entries)
		s.mu.RUnlock()
	}
	return n
}
