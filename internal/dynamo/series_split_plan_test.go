package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// callCounter counts a client's calls by operation, and the items of its
// writes, while on is set.
type callCounter struct {
	mu    sync.Mutex
	on    atomic.Bool
	calls map[string]int
	items map[string]int
}

// option returns the client option that counts.
func (c *callCounter) option() func(*dynamodb.Options) {
	count := middleware.InitializeMiddlewareFunc("count", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if c.on.Load() {
			op, n := middleware.GetOperationName(ctx), 1
			switch p := in.Parameters.(type) {
			case *dynamodb.BatchWriteItemInput:
				n = 0
				for _, w := range p.RequestItems {
					n += len(w)
				}
			case *dynamodb.TransactWriteItemsInput:
				n = len(p.TransactItems)
			}
			c.mu.Lock()
			c.calls[op]++
			c.items[op] += n
			c.mu.Unlock()
		}
		return next.HandleInitialize(ctx, in)
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(count, middleware.Before) })
	}
}

// TestSplitPlan pins what a split of a series with 100 calgraph users as
// attendees costs: the calls by operation and the items they write.
func TestSplitPlan(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(calendar.MaxAttendees)
	c := &callCounter{calls: map[string]int{}, items: map[string]int{}}
	counted := dynamo.New(dynamotest.Client(t, c.option()), f.store.Table(), engine)
	c.on.Store(true)
	start := time.Now()
	_, err := f.splitAt(counted, m, 10)
	took := time.Since(start)
	c.on.Store(false)
	f.mustDo(err)
	t.Logf("a split of 100 attendees took %v", took)
	got := fmt.Sprint(c.calls, " ", c.items)
	// Reads: the calendar's access (BatchGetItem), the series, its
	// attendees, the split's copies to index, the users' own reminders on
	// the series to carry over (Query; none here, so nothing written).
	// Writes: the pending
	// item (PutItem), the copies (4 BatchWriteItem of 25), the switch (10
	// actions: 2 of them the history records of both series), and the indexing with the log records: 49 attendees to a
	// transaction of 98 actions, the last 2 with the pending item's deletion.
	want := "map[BatchGetItem:1 BatchWriteItem:4 PutItem:1 Query:4 TransactWriteItems:4] map[BatchGetItem:1 BatchWriteItem:100 PutItem:1 Query:4 TransactWriteItems:211]"
	if got != want {
		t.Errorf("a split of 100 attendees, calls and items by operation:\ngot  %s\nwant %s", got, want)
	}
}
