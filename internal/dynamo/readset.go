package dynamo

import (
	"context"
	"crypto/sha256"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/answercache"
)

// Read sets: what one request read from the table, for the answer cache
// (internal/answercache). Every call the store's clients make passes
// recordReads, one Initialize-step middleware on both (the SDK's and
// ddbread's), so no read of the table can bypass it: with a ReadSet in the
// call's context (Store.Record) it records
//
//   - each item a GetItem or BatchGetItem asked for, as a digest of what it
//     read (absent included);
//   - each Query, its input and a digest of the page it returned;
//   - anything else (a Scan, a write, a failed call, a projected read by
//     key) as a reason the request cannot be validated.
//
// The view cache answers without a call; it records the calendar and the
// revision it answered at (viewCache.get), which must be the revision a
// recorded read of the calendar's item showed: the view cache's answer is a
// function of the calendar's revision (viewcache.go), so that read vouches
// for it. Store.Unchanged validates a read set: the items again in one
// strongly consistent BatchGetItem per 100, each Query again as it was sent,
// all in one wave, every digest compared. A read set is refused
// (Uncacheable) when validating it would cost more than a few calls.
type ReadSet struct {
	mu      sync.Mutex
	items   map[itemKey]digest
	queries []recordedQuery
	revs    map[string]int64 // calendars' revisions as their items were read
	views   map[string]int64 // calendars the view cache answered for, at that revision
	why     string
	bytes   int
	table   string
	// check is how hits validate the set (readset_check.go), made when the
	// set is first found cacheable, once its request ended: from then on
	// the set records nothing more (a late read made no part of the answer)
	// and its bytes count the check's encoded requests too.
	check *check
}

// digest is a SHA-256 of an item or a page as read (zero: absent).
type digest [sha256.Size]byte

type recordedQuery struct {
	in  dynamodb.QueryInput
	out digest
}

// Bounds on what a hit may cost to validate: one BatchGetItem and a few
// Queries, in one wave.
const (
	maxValidatedItems   = batchGetLimit
	maxValidatedQueries = 4
)

// Reasons a read set cannot be validated (answer-cache miss reasons).
const (
	whyUnrecorded = "unrecorded_read"
	whyWrite      = "write"
	whyFailed     = "failed_read"
	whyTooMany    = "too_many_reads"
	whyView       = "unvouched_view"
	whyClock      = "clock"
	whyMoved      = "changed_while_read"
	whySearch     = "search_index"
)

type readSetKey struct{}

// Record implements answercache.Source: ctx with a fresh read set.
func (s *Store) Record(ctx context.Context) (context.Context, answercache.ReadSet) {
	rs := &ReadSet{table: s.table, items: map[itemKey]digest{}, revs: map[string]int64{}, views: map[string]int64{}}
	return context.WithValue(ctx, readSetKey{}, rs), rs
}

func readSetOf(ctx context.Context) *ReadSet {
	rs, _ := ctx.Value(readSetKey{}).(*ReadSet)
	return rs
}

// Uncacheable implements answercache.ReadSet.
func (rs *ReadSet) Uncacheable() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.why != "" {
		return rs.why
	}
	for id, rev := range rs.views {
		if seen, ok := rs.revs[id]; !ok || seen != rev {
			return whyView
		}
	}
	if len(rs.items) > maxValidatedItems || len(rs.queries) > maxValidatedQueries {
		return whyTooMany
	}
	if rs.check == nil {
		c, err := newCheck(rs.table, rs.items, rs.queries)
		if err != nil { // a read the check cannot send again
			rs.why = whyUnrecorded
			return rs.why
		}
		rs.check = c
		rs.bytes += c.bytes()
	}
	return ""
}

// Bytes implements answercache.ReadSet: keys, digests, Queries' inputs.
func (rs *ReadSet) Bytes() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.bytes
}

func (rs *ReadSet) refuse(why string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.why == "" {
		rs.why = why
	}
}

// noteView records that the view cache answered a read of calendarID at
// revision: the request must have read the calendar's item at it.
func noteView(ctx context.Context, calendarID string, revision int64) {
	if rs := readSetOf(ctx); rs != nil {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.views[calendarID] = revision
	}
}

// Uncacheable marks the request's answer as not to be kept, for reads that
// answer from memory no read set covers (the search indexes) and answers
// that depend on the clock.
func uncacheable(ctx context.Context, why string) {
	answercache.Mark(ctx, why)
}

func (rs *ReadSet) addItem(k itemKey, it item) {
	d := digest{}
	if it != nil {
		d = digestOf(func(h *hasher) { h.item(it) })
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.check != nil {
		return // the set is checked as it was when its request ended
	}
	if was, ok := rs.items[k]; ok {
		if was != d && rs.why == "" {
			// Read twice, changed between: the answer may show either, and
			// no one validation can vouch for both.
			rs.why = whyMoved
		}
		return
	}
	rs.bytes += len(k.PK) + len(k.SK) + len(d) + 48
	rs.items[k] = d
	if id, ok := calendarOfItemKey(k); ok && it != nil {
		rs.revs[id] = revisionOf(it)
	}
}

// pageDigest is a Query page's digest: its items and LastEvaluatedKey.
func pageDigest(out *dynamodb.QueryOutput) digest {
	return digestOf(func(h *hasher) {
		for _, it := range out.Items {
			h.item(it)
		}
		h.str("LEK")
		h.item(out.LastEvaluatedKey)
	})
}

func (rs *ReadSet) addQuery(in *dynamodb.QueryInput, out *dynamodb.QueryOutput) {
	rs.mu.Lock()
	validated := len(rs.queries) < maxValidatedQueries
	rs.mu.Unlock()
	var d digest
	if validated { // past the bound the set is too_many_reads: no digest is ever compared
		d = pageDigest(out)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.check != nil {
		return
	}
	rs.queries = append(rs.queries, recordedQuery{in: *in, out: d}) // a copy: callers page by changing theirs
	rs.bytes += 512 + len(d)
	for _, it := range out.Items {
		if k := keyOf(it); k.PK != "" {
			if id, ok := calendarOfItemKey(k); ok {
				rs.revs[id] = revisionOf(it)
			}
		}
	}
}

// revisionOf is a calendar item's revision as calendar.Calendar.Revision
// has it (records.go: the stored rev plus one, 0 meaning unknown), which
// is what the view cache keys on.
func revisionOf(it item) int64 {
	var rev int64
	if n, ok := it[attrRevision].(*types.AttributeValueMemberN); ok {
		rev, _ = strconv.ParseInt(n.Value, 10, 64)
	}
	return rev + 1
}

// observe records one call's reads (see ReadSet).
func (rs *ReadSet) observe(op string, params, result any, err error) {
	rs.mu.Lock()
	refused := rs.why != ""
	rs.mu.Unlock()
	if refused { // the first reason stands (Uncacheable): nothing more to record
		return
	}
	if err != nil {
		rs.refuse(whyFailed)
		return
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		out, _ := result.(*dynamodb.GetItemOutput)
		if out == nil || in.ProjectionExpression != nil {
			rs.refuse(whyUnrecorded)
			return
		}
		rs.addItem(keyOf(in.Key), out.Item)
	case *dynamodb.BatchGetItemInput:
		out, _ := result.(*dynamodb.BatchGetItemOutput)
		if out == nil {
			rs.refuse(whyUnrecorded)
			return
		}
		for table, ka := range in.RequestItems {
			if ka.ProjectionExpression != nil {
				rs.refuse(whyUnrecorded)
				return
			}
			found := map[itemKey]item{}
			for _, it := range out.Responses[table] {
				found[keyOf(it)] = it
			}
			unprocessed := map[itemKey]bool{}
			for _, k := range out.UnprocessedKeys[table].Keys {
				unprocessed[keyOf(k)] = true
			}
			for _, k := range ka.Keys {
				if key := keyOf(k); !unprocessed[key] {
					rs.addItem(key, found[key])
				}
			}
		}
	case *dynamodb.QueryInput:
		out, _ := result.(*dynamodb.QueryOutput)
		if out == nil {
			rs.refuse(whyUnrecorded)
			return
		}
		rs.addQuery(in, out)
	default:
		switch op {
		case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
			rs.refuse(whyWrite)
		default:
			rs.refuse(whyUnrecorded)
		}
	}
}

// recordReads is the one place reads are recorded: an Initialize-step
// middleware, outermost, so it sees each call's final answer after retries.
func recordReads(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("calgraph.readSet",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if rs := readSetOf(ctx); rs != nil {
					rs.observe(middleware.GetOperationName(ctx), in.Parameters, out.Result, err)
				}
				return out, md, err
			}), middleware.Before)
	})
}
