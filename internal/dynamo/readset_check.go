package dynamo

import (
	"context"
	"crypto/sha256"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/answercache"
	"github.com/calgraph/calgraph/internal/ddbread"
	"github.com/calgraph/calgraph/internal/warm"
)

// Unchanged implements answercache.Source: whether every read of a read
// set (Record) reads the same now. Its items are read again strongly in one
// BatchGetItem (Uncacheable bounds them to 100) and its Queries sent again,
// all at once, each answer compared with what the request read.
//
// A hit sends the same calls every time, so each call's answer is usually
// the same bytes as the last one checked: the check (below) keeps the
// SHA-256 of the last answer to each call that was found unchanged, and an
// answer with those bytes is not decoded or compared again (ddbread.Seen).
// An answer with other bytes is decoded and compared item by item with the
// read set's digests, as the first check of a set always is; only when it
// compares the same, and is whole (no unprocessed keys), does it become the
// answer seen. So a "same" from the bytes is always a "same" that was once
// proven item by item for the same request.
func (s *Store) Unchanged(ctx context.Context, set answercache.ReadSet) (bool, error) {
	rs, ok := set.(*ReadSet)
	if !ok || rs.Uncacheable() != "" {
		return false, nil
	}
	c := rs.checkOf()
	r := s.seenReader()
	var changed atomic.Bool
	g, gctx := warm.WithContext(ctx)
	for i := range c.queries {
		g.Go(func() error {
			unchanged, err := c.queryUnchanged(gctx, r, i)
			if err == nil && !unchanged {
				changed.Store(true)
			}
			return err
		})
	}
	if c.batch != nil { // on this goroutine: the usual hit has one Query and this
		unchanged, err := s.itemsUnchanged(gctx, r, c)
		if err == nil && !unchanged {
			changed.Store(true)
		}
		if err != nil {
			_ = g.Wait()
			return false, err
		}
	}
	if err := g.Wait(); err != nil {
		return false, err
	}
	return !changed.Load(), nil
}

// check is how a read set is validated: made once, when the set is first
// found cacheable after its request ended (ReadSet.Uncacheable), and shared
// by every hit on it.
type check struct {
	items   map[itemKey]digest  // the set's items as read (zero: absent)
	keys    []itemKey           // in the order the BatchGetItem asks for them
	batch   *ddbread.Prepared   // nil: no items
	queries []*ddbread.Prepared // as recorded
	pages   []digest            // what each Query's page was

	mu   sync.Mutex
	seen []ddbread.Seen // the last answer found unchanged: [0] the batch's, [1+i] query i's
}

// newCheck makes the check of a read set whose request ended: items and
// queries are the set's own, never written again (ReadSet.Uncacheable).
func newCheck(table string, items map[itemKey]digest, queries []recordedQuery) (*check, error) {
	c := &check{items: items, seen: make([]ddbread.Seen, 1+len(queries))}
	if len(items) > 0 {
		c.keys = slices.Collect(maps.Keys(items))
		avs := make([]item, len(c.keys))
		for i, k := range c.keys {
			avs[i] = k.av()
		}
		var err error
		if c.batch, err = ddbread.PrepareBatchGetItem(&dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: avs, ConsistentRead: aws.Bool(true)}}}); err != nil {
			return nil, err
		}
	}
	for _, q := range queries {
		in := q.in // the check's own copy
		p, err := ddbread.PrepareQuery(&in)
		if err != nil {
			return nil, err
		}
		c.queries, c.pages = append(c.queries, p), append(c.pages, q.out)
	}
	return c, nil
}

// bytes is about what c holds beyond its read set: its encoded requests,
// their keys' order and the sums of answers seen.
func (c *check) bytes() int {
	n := 128 + len(c.keys)*16 + len(c.seen)*48
	if c.batch != nil {
		n += c.batch.Size()
	}
	for _, q := range c.queries {
		n += q.Size() + 64
	}
	return n
}

func (c *check) lastSeen(i int) ddbread.Seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[i]
}

func (c *check) sawSame(i int, s ddbread.Seen) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[i] = s
}

// itemsUnchanged reads c's items again and compares them with the set's.
func (s *Store) itemsUnchanged(ctx context.Context, r seenReader, c *check) (bool, error) {
	out, sum, err := r.BatchGetItemSeen(ctx, c.batch, c.lastSeen(0))
	if err != nil {
		return false, err
	}
	if _, ok := ddbread.SeenOf(out.ResultMetadata); ok {
		return true, nil
	}
	found := make(map[itemKey]item, len(c.keys))
	for _, it := range out.Responses[s.table] {
		found[keyOf(it)] = it
	}
	whole := true
	if left := out.UnprocessedKeys[s.table].Keys; len(left) > 0 {
		whole = false
		keys := make([]itemKey, len(left))
		for i, k := range left {
			keys[i] = keyOf(k)
		}
		rest, err := s.batchGet(ctx, keys) // re-sent with backoff
		if err != nil {
			return false, err
		}
		maps.Copy(found, rest)
	}
	for _, k := range c.keys {
		d := digest{}
		if it, ok := found[k]; ok {
			d = digestOf(func(h *hasher) { h.item(it) })
		}
		if d != c.items[k] {
			return false, nil
		}
	}
	if whole {
		c.sawSame(0, ddbread.Seen{Sum: sum, Items: len(out.Responses[s.table])})
	}
	return true, nil
}

// queryUnchanged sends query i again and compares its page with the set's.
func (c *check) queryUnchanged(ctx context.Context, r seenReader, i int) (bool, error) {
	out, sum, err := r.QuerySeen(ctx, c.queries[i], c.lastSeen(1+i))
	if err != nil {
		return false, err
	}
	if _, ok := ddbread.SeenOf(out.ResultMetadata); ok {
		return true, nil
	}
	if pageDigest(out) != c.pages[i] {
		return false, nil
	}
	c.sawSame(1+i, ddbread.Seen{Sum: sum, Items: int(out.ScannedCount)})
	return true, nil
}

// seenReader is what Unchanged reads with: ddbread's client, or (when the
// store reads through the SDK) one that decodes every answer.
type seenReader interface {
	BatchGetItemSeen(context.Context, *ddbread.Prepared, ddbread.Seen) (*dynamodb.BatchGetItemOutput, [sha256.Size]byte, error)
	QuerySeen(context.Context, *ddbread.Prepared, ddbread.Seen) (*dynamodb.QueryOutput, [sha256.Size]byte, error)
}

func (s *Store) seenReader() seenReader {
	if r, ok := s.reads.(seenReader); ok {
		return r
	}
	return decodingReader{s.reads}
}

// decodingReader decodes every answer and has no sums: nothing is seen.
type decodingReader struct{ r reader }

func (d decodingReader) BatchGetItemSeen(ctx context.Context, p *ddbread.Prepared, _ ddbread.Seen) (*dynamodb.BatchGetItemOutput, [sha256.Size]byte, error) {
	out, err := d.r.BatchGetItem(ctx, p.Input().(*dynamodb.BatchGetItemInput))
	return out, [sha256.Size]byte{}, err
}

func (d decodingReader) QuerySeen(ctx context.Context, p *ddbread.Prepared, _ ddbread.Seen) (*dynamodb.QueryOutput, [sha256.Size]byte, error) {
	out, err := d.r.Query(ctx, p.Input().(*dynamodb.QueryInput))
	return out, [sha256.Size]byte{}, err
}

// checkOf returns rs's check: Uncacheable made it.
func (rs *ReadSet) checkOf() *check {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.check
}
