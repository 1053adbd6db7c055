package dynamo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ddbjson"
)

// pageQuery pages through the items of one partition (of the table or of a GSI)
// whose sort key starts with a prefix, in sort-key order.
type pageQuery struct {
	index      string // "" for the table itself
	pkAttr     string
	skAttr     string
	partition  string
	prefix     string
	descending bool
	// lo and hi, when set, narrow the prefix's range of sort keys.
	lo, hi     string
	consistent bool // the table and its LSIs can read consistently; GSIs cannot
	filter     filter
	page       calendar.Page
	// valid optionally checks the rest of a decoded cursor key, for indexes whose
	// table key follows from the index key.
	valid func(key map[string]string) bool
	// keep optionally narrows each Query's items further, where the filter
	// cannot (it needs other items): the page fills with what it keeps.
	keep func(ctx context.Context, items []item) ([]item, error)
}

// pageResult is one page: the items, each item's cursor, and whether more follow.
type pageResult struct {
	items   []item
	cursors []string
	hasNext bool
}

// maxCursorLength bounds the cursors a client can send.
const maxCursorLength = 2048

// queryPage runs q. It asks for one item more than the page holds, to know
// whether another page follows, and keeps querying when DynamoDB stops early at
// its 1 MB response limit.
func (s *Store) queryPage(ctx context.Context, q pageQuery) (pageResult, error) {
	if err := q.page.Validate(); err != nil {
		return pageResult{}, err
	}
	start, err := q.decodeCursor(q.page.After)
	if err != nil {
		return pageResult{}, err
	}
	// An item that loses its index sort key (a task made an event) leaves
	// the index on every engine (TestItemThatLosesIndexSortKeyLeavesTheIndex
	// in internal/engine).
	in := q.query(start).input(s.table)
	var items []item
	for {
		in.Limit = aws.Int32(int32(q.page.First + 1 - len(items)))
		out, err := s.reads.Query(ctx, in)
		if err != nil {
			return pageResult{}, fmt.Errorf("query %s %s: %w", q.partition, q.prefix, err)
		}
		got := out.Items
		if q.keep != nil {
			if got, err = q.keep(ctx, got); err != nil {
				return pageResult{}, err
			}
		}
		items = append(items, got...)
		if len(items) > q.page.First || len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	res := pageResult{hasNext: len(items) > q.page.First, items: items[:min(len(items), q.page.First)]}
	for _, it := range res.items {
		res.cursors = append(res.cursors, q.encodeCursor(it))
	}
	return res, nil
}

// query is the Query of q's page that starts after start (none: the first).
func (q pageQuery) query(start item) keyQuery {
	lo, hi := q.keyRange() // a BETWEEN, for the reason skPrefix gives
	return keyQuery{index: q.index, pkAttr: q.pkAttr, partition: q.partition, sk: skBetween(q.skAttr, lo, hi),
		consistent: q.consistent, descending: q.descending, start: start, filter: q.filter}
}

// inRange reports whether a cursor's sort key is in q's range.
func (q pageQuery) inRange(sk string) bool {
	lo, hi := q.keyRange()
	return sk >= lo && sk <= hi
}

// keyRange is the range of sort keys q reads.
func (q pageQuery) keyRange() (lo, hi string) {
	lo, hi = prefixRange(q.prefix)
	if q.lo != "" {
		lo = q.lo
	}
	if q.hi != "" {
		hi = q.hi
	}
	return lo, hi
}

// keyAttrs are the attributes of a key in q's index: DynamoDB's LastEvaluatedKey
// for an index holds the table key as well as the index key.
func (q pageQuery) keyAttrs() []string {
	attrs := []string{attrPK, attrSK, q.pkAttr, q.skAttr}
	slices.Sort(attrs)
	return slices.Compact(attrs)
}

// encodeCursor makes an item's opaque cursor: its key in q's index, the same thing
// DynamoDB returns as LastEvaluatedKey when a page ends at that item.
// The JSON object is written out (keyAttrs are sorted, as encoding/json would
// sort them): a page encodes a cursor per item, and reflection over a map per
// item showed in views' profiles.
func (q pageQuery) encodeCursor(it item) string {
	b := []byte{'{'}
	for i, a := range q.keyAttrs() {
		if i > 0 {
			b = append(b, ',')
		}
		b = ddbjson.AppendString(b, a)
		b = append(b, ':')
		b = ddbjson.AppendString(b, stringAttr(it, a))
	}
	return base64.RawURLEncoding.EncodeToString(append(b, '}'))
}

// decodeCursor turns a cursor back into an ExclusiveStartKey, refusing anything
// that is not a key of q's own partition: a cursor from another query, or a forged
// one, must not start a read elsewhere.
func (q pageQuery) decodeCursor(cursor string) (item, error) {
	if cursor == "" {
		return nil, nil
	}
	bad := calendar.Invalidf("after", "after is not a cursor of this list")
	if len(cursor) > maxCursorLength {
		return nil, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, bad
	}
	var key map[string]string
	if err := json.Unmarshal(raw, &key); err != nil {
		return nil, bad
	}
	if !slices.Equal(slices.Sorted(maps.Keys(key)), q.keyAttrs()) ||
		key[q.pkAttr] != q.partition || !strings.HasPrefix(key[q.skAttr], q.prefix) || !q.inRange(key[q.skAttr]) ||
		(q.valid != nil && !q.valid(key)) {
		return nil, bad
	}
	start := make(item, len(key))
	for a, v := range key {
		if v == "" {
			return nil, bad
		}
		start[a] = &types.AttributeValueMemberS{Value: v}
	}
	return start, nil
}
