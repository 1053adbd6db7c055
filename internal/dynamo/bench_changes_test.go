package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// writeMeter adds up what writes send: items, and write capacity units as
// DynamoDB bills them (1 WCU per started KB of an item; twice that in a
// transaction, ConditionChecks included).
type writeMeter struct {
	mu         sync.Mutex
	items, wcu int
	calls      int
}

func (m *writeMeter) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("writeMeter",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				m.count(in.Parameters)
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

func (m *writeMeter) count(params any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		m.calls++
		for _, a := range in.TransactItems {
			var it map[string]types.AttributeValue
			switch {
			case a.Put != nil:
				it = a.Put.Item
			case a.Update != nil:
				it = a.Update.Key // the item's size after the update is not known here: counted as 1 KB
			case a.Delete != nil:
				it = a.Delete.Key
			default:
				it = a.ConditionCheck.Key
			}
			m.items++
			m.wcu += 2 * kb(it)
		}
	case *dynamodb.PutItemInput:
		m.calls, m.items, m.wcu = m.calls+1, m.items+1, m.wcu+kb(in.Item)
	case *dynamodb.UpdateItemInput:
		m.calls, m.items, m.wcu = m.calls+1, m.items+1, m.wcu+1
	case *dynamodb.DeleteItemInput:
		m.calls, m.items, m.wcu = m.calls+1, m.items+1, m.wcu+1
	}
}

// kb is an item's size in started kilobytes, as DynamoDB measures it
// (names and values; numbers and other types counted roughly).
func kb(it map[string]types.AttributeValue) int {
	size := 0
	for name, v := range it {
		size += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			size += len(v.Value)/2 + 1
		case *types.AttributeValueMemberSS:
			for _, s := range v.Value {
				size += len(s)
			}
		default:
			size += 16
		}
	}
	return (size + 1023) / 1024
}

// BenchmarkWriteCost: what change records add to writes: items and WCUs per
// write, and the write's time, for an entry's creation, a title change and
// a deletion, with and without them.
//
//	CALGRAPH_TEST_DYNAMODB=http://localhost:8000 go test ./internal/dynamo -run '^$' -bench WriteCost -benchtime 200x
func BenchmarkWriteCost(b *testing.B) {
	for _, records := range []bool{false, true} {
		b.Run(fmt.Sprintf("change-records=%v", records), func(b *testing.B) {
			meter := &writeMeter{}
			db := dynamotest.Client(b, meter.option)
			s := dynamo.New(db, dynamotest.Table(b, db), engine)
			dynamo.SetChangeRecords(s, records)
			f := &fixture{t: b, store: s, db: db}
			ada := f.user("ada@example.com")
			cal := f.calendarOf(ada, "Bench")
			*meter = writeMeter{}
			b.ResetTimer()
			for i := range b.N {
				e, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("entry ", i),
					Timing: timed("2026-11-23T09:00:00Z", "2026-11-23T10:00:00Z", "UTC")})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := s.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Title: calendar.Set("renamed")}); err != nil {
					b.Fatal(err)
				}
				if err := s.DeleteEntry(ada, e.Key(), 2); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			n := float64(3 * b.N)
			b.ReportMetric(float64(meter.items)/n, "items/write")
			b.ReportMetric(float64(meter.wcu)/n, "WCU/write")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/n, "µs/write")
		})
	}
}
