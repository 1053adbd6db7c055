package answercache

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DefaultBytes is the memory the cache holds unless configured otherwise
// (-answer-cache-bytes): a week view of 20 calendars and 100 entries is
// about 40 KB of JSON plus its compressed copies and read set, so some
// 1,000 of them.
const DefaultBytes = 64 << 20

// entryOverhead is what an entry costs beyond its bytes: the map slot, the
// list element, the struct and its slices' headers (rounded up).
const entryOverhead = 256

// key names one request: its viewer, method, media type and operation (see
// keyOf).
type key [sha256.Size]byte

// entry is one kept answer.
type entry struct {
	key         key
	contentType string
	body        []byte
	encoded     map[string][]byte // body compressed, per Content-Encoding, made on demand
	reads       ReadSet
	operation   string // for the access log (reqinfo)
	size        int64
}

// Cache is a byte-bounded LRU of answers. Safe for concurrent use; the zero
// value is not usable, use New.
type Cache struct {
	src Source
	max int64

	mu    sync.Mutex
	used  int64
	order *list.List // of *entry, most recently used first
	index map[key]*list.Element
	stats Stats
}

// Stats count what the cache did.
type Stats struct {
	Hits    int64
	Misses  map[string]int64 // by reason
	Bytes   int64            // held now
	Entries int              // held now
}

// New returns a cache of at most maxBytes (entries counted by their body,
// compressed copies, read set and overhead) over src; nil when maxBytes is
// 0 or less, which Middleware takes as off.
func New(src Source, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{src: src, max: maxBytes, order: list.New(), index: map[key]*list.Element{},
		stats: Stats{Misses: map[string]int64{}}}
}

// Stats returns a copy of the counts; zero for a nil cache.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Misses = make(map[string]int64, len(c.stats.Misses))
	for k, v := range c.stats.Misses {
		s.Misses[k] = v
	}
	s.Bytes, s.Entries = c.used, len(c.index)
	return s
}

func (c *Cache) get(k key) (*entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry), true
}

func (c *Cache) hit() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Hits++
}

func (c *Cache) miss(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Misses[reason]++
}

// drop forgets e, if it is still held.
func (c *Cache) drop(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[e.key]; ok && el.Value == e {
		c.remove(el)
	}
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	c.order.Remove(el)
	delete(c.index, e.key)
	c.used -= e.size
}

// maxEntryShare: no entry may take more than this share of the cache, so
// that one large answer does not empty it.
const maxEntryShare = 8

// put keeps e (replacing what the key held), dropping the least recently
// used to make room; it reports false for an entry too large to keep.
func (c *Cache) put(e *entry) bool {
	e.size = int64(len(e.body)+e.reads.Bytes()) + entryOverhead
	if e.size > c.max/maxEntryShare {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[e.key]; ok {
		c.remove(el)
	}
	c.index[e.key] = c.order.PushFront(e)
	c.used += e.size
	c.evict()
	return true
}

func (c *Cache) evict() {
	for c.used > c.max {
		c.remove(c.order.Back())
	}
}

// compressMinSize is the httpapi edge's: smaller answers go as they are.
const compressMinSize = 1024

// encoded returns e's body in the coding enc ("gzip" or "zstd"), compressed
// once and kept (counted in e's size), or nil to send it as it is (no
// coding, an unknown one, or a body too small to gain from it).
func (c *Cache) encoded(e *entry, enc string) []byte {
	if len(e.body) < compressMinSize || enc != "gzip" && enc != "zstd" {
		return nil
	}
	c.mu.Lock()
	b, ok := e.encoded[enc]
	c.mu.Unlock()
	if ok {
		return b
	}
	b = compress(e.body, enc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.index[e.key]; held && e.encoded[enc] == nil {
		e.encoded[enc] = b
		e.size += int64(len(b))
		c.used += int64(len(b))
		c.evict()
	}
	return b
}

// zstdEncoder is shared: EncodeAll is safe for concurrent use.
var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))

func compress(body []byte, enc string) []byte {
	if enc == "zstd" {
		return zstdEncoder.EncodeAll(body, make([]byte, 0, len(body)/4))
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // the level is a constant
	_, _ = zw.Write(body)
	_ = zw.Close()
	return buf.Bytes()
}
