package auth

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"
)

func cacheKey(i int) [sha256.Size]byte { return sha256.Sum256(fmt.Appendf(nil, "token-%d", i)) }

// A verification that began before an invalidation must not store its answer: it may have
// been checked with a key that is gone now.
func TestTokenCacheIgnoresPutFromBeforeInvalidation(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newTokenCache(func() time.Time { return now }, 64, 4, time.Minute)
	k := cacheKey(1)
	gen := c.generation()
	c.invalidate()
	c.put(&k, Identity{Subject: "alice"}, now, now.Add(time.Hour), gen)
	if _, _, ok := c.get(&k); ok {
		t.Fatal("an answer from before the invalidation was stored")
	}
	c.put(&k, Identity{Subject: "alice"}, now, now.Add(time.Hour), c.generation())
	if id, _, ok := c.get(&k); !ok || id.Subject != "alice" {
		t.Fatalf("get = %+v, %v after a put of the current generation", id, ok)
	}
}

// An entry lives until the token's exp or the TTL, whichever comes first.
func TestTokenCacheExpiry(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := now
	c := newTokenCache(func() time.Time { return clock }, 64, 4, time.Minute)
	short, long := cacheKey(1), cacheKey(2)
	c.put(&short, Identity{Subject: "a"}, now, now.Add(10*time.Second), c.generation())
	c.put(&long, Identity{Subject: "b"}, now, now.Add(time.Hour), c.generation())
	clock = now.Add(10*time.Second - time.Nanosecond)
	if _, _, ok := c.get(&short); !ok {
		t.Fatal("entry gone before its token's exp")
	}
	clock = now.Add(10 * time.Second)
	if _, _, ok := c.get(&short); ok {
		t.Fatal("entry served at its token's exp")
	}
	// The cached answer carries the token's exp, not the entry's end.
	if _, exp, ok := c.get(&long); !ok || !exp.Equal(now.Add(time.Hour)) {
		t.Fatalf("get = exp %v, %v before the TTL; want the token's exp %v", exp, ok, now.Add(time.Hour))
	}
	clock = now.Add(time.Minute)
	if _, _, ok := c.get(&long); ok {
		t.Fatal("entry served at the end of the TTL")
	}
	// A token that has already expired is not stored at all.
	k := cacheKey(3)
	c.put(&k, Identity{}, clock, clock, c.generation())
	if n := c.len(); n != 2 {
		t.Fatalf("len = %d, want 2", n)
	}
}

// A full shard drops its expired entries before live ones, and never grows past its size.
func TestTokenCacheEvictsExpiredFirst(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newTokenCache(func() time.Time { return now }, 64, 1, time.Minute)
	for i := range 32 {
		k := cacheKey(i)
		c.put(&k, Identity{}, now, now.Add(time.Second), c.generation())
	}
	for i := 32; i < 64; i++ {
		k := cacheKey(i)
		c.put(&k, Identity{}, now, now.Add(time.Hour), c.generation())
	}
	later := now.Add(2 * time.Second)
	k := cacheKey(64)
	c.put(&k, Identity{}, later, later.Add(time.Hour), c.generation())
	if n := c.len(); n != 33 {
		t.Fatalf("len = %d, want 33: the 32 live entries and the new one", n)
	}
	for i := 32; i <= 64; i++ {
		k := cacheKey(i)
		if _, ok := c.shards[0].entries[k]; !ok {
			t.Fatalf("live entry %d was evicted", i)
		}
	}
	for i := 65; i < 1000; i++ {
		k := cacheKey(i)
		c.put(&k, Identity{}, later, later.Add(time.Hour), c.generation())
		if n := c.len(); n > 64 {
			t.Fatalf("len = %d after %d puts, more than 64", n, i+1)
		}
	}
}

// BenchmarkTokenCacheGet compares one lock with the shards, from all cores at once.
func BenchmarkTokenCacheGet(b *testing.B) {
	for _, shards := range []int{1, tokenCacheShards} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			now := time.Unix(1_700_000_000, 0)
			c := newTokenCache(func() time.Time { return now }, tokenCacheSize, shards, time.Minute)
			keys := make([][sha256.Size]byte, 1500)
			for i := range keys {
				keys[i] = cacheKey(i)
				c.put(&keys[i], Identity{Subject: "x"}, now, now.Add(time.Hour), c.generation())
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if _, _, ok := c.get(&keys[i%len(keys)]); !ok {
						b.Error("miss")
						return
					}
					i += 7
				}
			})
		})
	}
}
