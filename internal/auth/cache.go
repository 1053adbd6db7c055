package auth

import (
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Identity cache bounds. An identity's user never changes once created, so the
// TTL only limits how long a deleted user's entry can outlive it on other
// servers, which Forget cannot reach.
const (
	identityTTL        = 10 * time.Minute
	identityCacheLimit = 10_000
)

// identityCache maps identities to user IDs for a while, so that most requests
// skip the user store's round trip. It is safe for concurrent use.
type identityCache struct {
	ttl   time.Duration
	limit int
	now   func() time.Time

	mu      sync.RWMutex
	entries map[calendar.Identity]cacheEntry
}

type cacheEntry struct {
	userID  string
	expires time.Time
}

func newIdentityCache(ttl time.Duration, limit int, now func() time.Time) *identityCache {
	return &identityCache{ttl: ttl, limit: limit, now: now, entries: make(map[calendar.Identity]cacheEntry)}
}

// get returns the user ID cached for id, if there is one that has not expired.
func (c *identityCache) get(id calendar.Identity) (string, bool) {
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if !ok || !c.now().Before(e.expires) {
		return "", false
	}
	return e.userID, true
}

// put caches userID for id. When the cache is full it drops expired entries and,
// if it is still full, arbitrary ones: an evicted user only costs a lookup.
func (c *identityCache) put(id calendar.Identity, userID string) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[id]; !ok && len(c.entries) >= c.limit {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < c.limit {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[id] = cacheEntry{userID: userID, expires: now.Add(c.ttl)}
}

// forget drops id's entry, if any.
func (c *identityCache) forget(id calendar.Identity) {
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

// len returns the number of entries, expired ones included.
func (c *identityCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
