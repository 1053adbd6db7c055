package dynamo

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// The view cache: each instance keeps the range reads (EntriesReaching) and
// member pages (MembershipsOfCalendar) it made recently, by calendar,
// calendar revision (revisions.go) and what was read, and answers a read of
// the same thing at the same revision from memory, without its Queries.
//
// Exact: a view reads its calendars strongly before their entries (the
// authorization's batch), and a calendar's revision counts the writes to its
// entries, series and memberships, raised in each write's own transaction. A
// read that finds revision R therefore comes after the first R such writes
// and before any other; what is cached under R was read by a Query sent after
// a calendar read that found R, so it holds all of those R writes (and maybe
// later ones, which a view that found R may show: they are concurrent with
// it). So a cached answer is never older than the calendar read that looks
// it up: it shows what a strongly consistent read sent at that moment would.
//
// Only calendars read by the store carry a revision (calendar.Calendar.Revision
// is 0 for one a write returned), and only requests that have written
// nothing use the cache (calendar.MayServeCached): a calendar read before the
// request's own write names a revision older than the write.
//
// Bounded: at most max items (entries or memberships) are held, the least
// recently used going first; answers of older revisions are never looked up
// again and age out the same way. Everything held is shared between
// requests and never changed: lookups hand out copies of the slices.
type viewCache struct {
	max int

	mu    sync.Mutex
	held  int
	order *list.List // of *viewCached, most recently used first
	index map[viewKey]*list.Element

	hits, misses atomic.Int64
}

// viewKey names one cached read: a range (from, to in Unix nanoseconds) or a
// member page (first, after).
type viewKey struct {
	calendarID string
	revision   int64
	kind       viewKind
	from, to   int64
	after      string
}

type viewKind uint8

const (
	viewRange viewKind = iota + 1
	viewMembers
)

type viewCached struct {
	key   viewKey
	value any
	cost  int
}

func newViewCache(max int) *viewCache {
	if max <= 0 {
		return nil
	}
	return &viewCache{max: max, order: list.New(), index: map[viewKey]*list.Element{}}
}

// get returns what is held under k, if anything. A nil cache holds nothing.
func (c *viewCache) get(k viewKey) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[k]
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	c.order.MoveToFront(el)
	return el.Value.(*viewCached).value, true
}

// put holds v, made of n items, under k, making room by dropping the least
// recently used. A read larger than the whole cache is not held.
func (c *viewCache) put(k viewKey, v any, n int) {
	if c == nil {
		return
	}
	cost := n + 1
	if cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[k]; ok { // a concurrent read of the same thing
		c.held -= el.Value.(*viewCached).cost
		c.order.Remove(el)
	}
	c.index[k] = c.order.PushFront(&viewCached{key: k, value: v, cost: cost})
	c.held += cost
	for c.held > c.max {
		last := c.order.Back()
		old := last.Value.(*viewCached)
		c.order.Remove(last)
		delete(c.index, old.key)
		c.held -= old.cost
	}
}

// ViewCacheStats are the view cache's counts since the store started.
type ViewCacheStats struct {
	Hits, Misses int64
	Items        int // entries and memberships held
}

// ViewCacheStats reports the view cache's hits, misses and size.
func (s *Store) ViewCacheStats() ViewCacheStats {
	c := s.views
	if c == nil {
		return ViewCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ViewCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Items: c.held}
}
