package config

import (
	"fmt"
	"os"
	"strconv"

	"github.com/calgraph/calgraph/internal/memlimit"
)

// Memory by one number. An instance keeps three caches, each bounded in
// bytes: the view cache (entries and memberships by calendar revision), the
// answer cache (finished answers with their read sets) and the search
// indexes. -cache-bytes bounds them together, split a sixth, a sixth and
// two thirds (the proportions of their former defaults, 64, 64 and 256
// MiB); a cache given a size of its own takes that instead of its share.
// By default (auto) the total is a quarter of the container's memory limit
// when the process runs under one, since the runtime's heap holds about
// twice what the caches count and the collector needs room above that
// (docs/design.md, "Memory"); without a limit, 384 MiB, the former
// defaults' sum.
const (
	autoBytes         = -1
	defaultCacheBytes = 384 << 20
	minAutoCacheBytes = 16 << 20 // a container so small still gets caches worth having
)

// ContainerLimit is the memory limit of the container the process runs in
// (internal/memlimit), read once when settings resolve; tests replace it.
var ContainerLimit = func() (int64, bool) { return memlimit.Container(os.ReadFile) }

// parseBytes reads a size in bytes, 0 or more, or "auto".
func parseBytes(v string) (int64, error) {
	if v == "auto" {
		return autoBytes, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not auto or a whole number, 0 or more", v)
	}
	return n, nil
}

// resolveCaches turns the cache settings into sizes.
func (c *Config) resolveCaches() {
	c.CacheBytes = c.cacheBytes
	if c.CacheBytes == autoBytes {
		c.CacheBytes = defaultCacheBytes
		if limit, ok := ContainerLimit(); ok {
			c.CacheBytes = max(limit/4, minAutoCacheBytes)
		}
	}
	share := func(set int64, num, den int64) int64 {
		if set != autoBytes {
			return set
		}
		return c.CacheBytes / den * num
	}
	c.ViewCacheBytes = int(share(c.viewCacheBytes, 1, 6))
	c.AnswerCacheBytes = share(c.answerCacheBytes, 1, 6)
	c.SearchIndexBytes = int(share(c.searchIndexBytes, 2, 3))
}
