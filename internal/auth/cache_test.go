package auth

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

func identity(n int) calendar.Identity {
	return calendar.Identity{Provider: testIssuer, Subject: fmt.Sprintf("subject-%d", n)}
}

func TestIdentityCacheEviction(t *testing.T) {
	clock := &fakeClock{now: testNow}
	c := newIdentityCache(time.Minute, 3, clock.Now)
	c.put(identity(1), "u1")
	clock.Advance(30 * time.Second)
	c.put(identity(2), "u2")
	c.put(identity(3), "u3")
	clock.Advance(31 * time.Second) // identity 1 has expired, 2 and 3 have not

	c.put(identity(4), "u4")
	if got := c.len(); got != 3 {
		t.Errorf("got %d entries after adding to a full cache, want 3", got)
	}
	for n, want := range map[int]string{2: "u2", 3: "u3", 4: "u4"} {
		if got, ok := c.get(identity(n)); !ok || got != want {
			t.Errorf("get(identity %d): got %q, %v; want %q, true (only the expired entry should go)", n, got, ok, want)
		}
	}

	// Full of live entries: one of them goes to make room.
	c.put(identity(5), "u5")
	if got := c.len(); got != 3 {
		t.Errorf("got %d entries after adding to a cache full of live ones, want 3", got)
	}
	if got, ok := c.get(identity(5)); !ok || got != "u5" {
		t.Errorf("get(identity 5): got %q, %v; want %q, true", got, ok, "u5")
	}

	// Replacing an entry in a full cache evicts nothing.
	c.put(identity(5), "u5")
	if got := c.len(); got != 3 {
		t.Errorf("got %d entries after replacing one, want 3", got)
	}
}

func TestIdentityCacheTTL(t *testing.T) {
	clock := &fakeClock{now: testNow}
	c := newIdentityCache(time.Minute, 10, clock.Now)
	c.put(identity(1), "u1")
	clock.Advance(time.Minute - time.Nanosecond)
	if _, ok := c.get(identity(1)); !ok {
		t.Errorf("get just before the TTL: got a miss, want a hit")
	}
	clock.Advance(time.Nanosecond)
	if got, ok := c.get(identity(1)); ok {
		t.Errorf("get at the TTL: got %q, want a miss", got)
	}
}

func TestIdentityCacheConcurrent(t *testing.T) {
	clock := &fakeClock{now: testNow}
	c := newIdentityCache(time.Minute, 50, clock.Now)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := identity(g*1000 + i)
				c.put(id, "u")
				c.get(id)
				if i%3 == 0 {
					c.forget(id)
				}
				clock.Advance(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if got := c.len(); got > 50 {
		t.Errorf("got %d entries, want at most the limit of 50", got)
	}
}
