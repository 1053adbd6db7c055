package dynamo

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The view cache: each instance keeps the range reads (ReadRange and
// CheckRanges, range_reads.go) and member pages (MembershipsOfCalendar) it
// made recently, by calendar, calendar revision (revisions.go) and what was
// read, and answers a read of the same thing at the same revision from
// memory, without its Queries (CachedEntriesReaching, cachedRead).
//
// Exact: a view reads its calendars strongly before their entries (the
// authorization's batch), and a calendar's revision counts the writes to its
// entries, series and memberships, raised in each write's own transaction. A
// read that finds revision R therefore comes after the first R such writes
// and before any other; what is cached under R was read by Queries sent after
// a calendar read that found R, so it holds all of those R writes: exactly
// those when the read took several calls (range_reads.go checks that the
// revision did not move meanwhile, and keeps nothing otherwise), maybe later
// ones when it took one (a view that found R may show them: they are
// concurrent with it). So a cached answer is never older than the calendar
// read that looks it up, and shows a state that existed: what a strongly
// consistent read sent at that moment would.
//
// Settled: DynamoDB's Query is read-committed against transactions, not
// serializable. While the transaction that raised a revision is still
// applying its items, a calendar read can show the raise and a Query miss
// some of the items. So an instance caches reads made at a revision only
// once it has seen the calendar at that revision for settleWindow: the
// transaction was under way when its raise was first seen, and has ended
// since (transactions take milliseconds; a client gives up on one after the
// store attempt timeout). Until then a view reads afresh, as without a cache.
//
// Only calendars read by the store carry a revision (calendar.Calendar.Revision
// is 0 for one a calendar write made; one that a write of entries or members
// returns is as its access check read it, before the write), and only reads
// whose scope says so use the cache (calendar.ReadScope.Cached, never a
// mutation's): a calendar read before the request's own write names a
// revision older than the write.
//
// Bounded: at most max bytes of entries and memberships are held, each read
// charged what it keeps on the heap (viewcache_size.go), the least recently
// used going first; answers of older revisions are never looked up
// again and age out the same way. Everything held is shared between
// requests and never changed: lookups hand out copies of the slices.
type viewCache struct {
	max    int // bytes
	settle time.Duration
	now    func() time.Time

	mu    sync.Mutex
	held  int        // bytes
	items int        // entries and memberships
	order *list.List // of *viewCached, most recently used first
	index map[viewKey]*list.Element
	seen  map[string]sighting // by calendar ID: the newest revision seen

	hits, misses int64
}

// settleWindow is how long after an instance first sees a calendar's
// revision it starts caching reads made at it (see above).
const settleWindow = time.Second

// sighting is when this instance first saw a calendar at a revision.
type sighting struct {
	revision int64
	at       time.Time
}

// viewKey names one cached read: a range (from and to as Unix seconds and
// nanoseconds: Unix nanoseconds do not reach the year 2999 that dates may)
// or a member page (first in fromS, after).
type viewKey struct {
	calendarID       string
	revision         int64
	kind             viewKind
	fromS, toS       int64
	fromNano, toNano int32
	after            string
}

// rangeKey names a range read of cal.
func rangeKey(cal *calendar.Calendar, from, to time.Time) viewKey {
	return viewKey{calendarID: cal.ID, revision: cal.Revision, kind: viewRange,
		fromS: from.Unix(), fromNano: int32(from.Nanosecond()), toS: to.Unix(), toNano: int32(to.Nanosecond())}
}

// membersKey names a member page of cal.
func membersKey(cal *calendar.Calendar, p calendar.Page) viewKey {
	return viewKey{calendarID: cal.ID, revision: cal.Revision, kind: viewMembers, fromS: int64(p.First), after: p.After}
}

type viewKind uint8

const (
	viewRange viewKind = iota + 1
	viewMembers
)

type viewCached struct {
	key   viewKey
	value any
	cost  int // bytes
	items int
}

// sightingBytes is about what one calendar's sighting costs the cache's
// seen map (its slot, key and ID); the map is bounded to max/sightingBytes/4,
// a quarter of the bound.
const sightingBytes = 96

func newViewCache(max int) *viewCache {
	if max <= 0 {
		return nil
	}
	return &viewCache{max: max, settle: settleWindow, now: time.Now, order: list.New(),
		index: map[viewKey]*list.Element{}, seen: map[string]sighting{}}
}

// settled reports whether a read of calendarID at revision sent at sent (a
// zero sent: now) may be cached: this instance first saw the calendar at
// that revision settle before sent, or earlier. It records the first
// sighting of a newer revision.
func (c *viewCache) settled(calendarID string, revision int64, sent time.Time) bool {
	if c == nil {
		return false
	}
	now := c.now()
	if sent.IsZero() {
		sent = now
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.seen[calendarID]
	switch {
	case ok && s.revision == revision:
		return sent.Sub(s.at) >= c.settle
	case ok && s.revision > revision: // a read that lost a race with a newer one
		return false
	}
	if len(c.seen) >= max(1, c.max/sightingBytes/4) { // bounded with the cache: start over
		clear(c.seen)
	}
	c.seen[calendarID] = sighting{revision, now}
	return sent.Sub(now) >= c.settle
}

// clock returns the cache's time (the wall clock's without a cache).
func (c *viewCache) clock() time.Time {
	if c == nil {
		return time.Now()
	}
	return c.now()
}

// cachedRead answers a read of cal (named key) from c, for a scope that
// may be served from it, when c holds it at cal's revision. Otherwise it
// calls read, and holds the answer when cal's revision has settled. clone
// copies what goes in or out, so that callers never share a slice with the
// cache; size counts its items and bytes. Member pages, one Query each, use it; range
// reads, which keep what they read only once checked, do the same in steps
// (range_reads.go).
func cachedRead[V any](ctx context.Context, c *viewCache, scope calendar.ReadScope, cal *calendar.Calendar, key viewKey,
	clone func(V) V, size func(V) (items, bytes int), read func() (V, error)) (V, error) {
	cacheable := cal.Revision > 0 && scope.Cached
	if cacheable {
		if v, ok := c.get(ctx, key); ok {
			return clone(v.(V)), nil
		}
		cacheable = c.settled(cal.ID, cal.Revision, time.Time{})
	}
	v, err := read()
	if err == nil && cacheable {
		held := clone(v)
		items, bytes := size(held)
		c.put(key, held, items, bytes)
	}
	return v, err
}

// get returns what is held under k, if anything. A nil cache holds nothing.
// An answer is noted in the request's read set (readset.go): it stands for
// a read of k's calendar at k's revision.
func (c *viewCache) get(ctx context.Context, k viewKey) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[k]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	noteView(ctx, k.calendarID, k.revision)
	return el.Value.(*viewCached).value, true
}

// put holds v, made of n items taking size bytes, under k, making room by
// dropping the least recently used. A read larger than the whole cache is not
// held.
func (c *viewCache) put(k viewKey, v any, n, size int) {
	if c == nil {
		return
	}
	cost := size + heldOverhead
	if cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[k]; ok { // a concurrent read of the same thing
		old := el.Value.(*viewCached)
		c.held, c.items = c.held-old.cost, c.items-old.items
		c.order.Remove(el)
	}
	c.index[k] = c.order.PushFront(&viewCached{key: k, value: v, cost: cost, items: n})
	c.held, c.items = c.held+cost, c.items+n
	for c.held > c.max {
		last := c.order.Back()
		old := last.Value.(*viewCached)
		c.order.Remove(last)
		delete(c.index, old.key)
		c.held, c.items = c.held-old.cost, c.items-old.items
	}
}

// ViewCacheStats are the view cache's counts since the store started.
type ViewCacheStats struct {
	Hits, Misses int64
	Items        int // entries and memberships held
	Bytes        int // what they take, as the bound counts it
}

// ViewCacheStats reports the view cache's hits, misses and size.
func (s *Store) ViewCacheStats() ViewCacheStats {
	c := s.views
	if c == nil {
		return ViewCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ViewCacheStats{Hits: c.hits, Misses: c.misses, Items: c.items, Bytes: c.held}
}
