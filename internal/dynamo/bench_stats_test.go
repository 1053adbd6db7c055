package dynamo_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// keyMeter records the keys of the items writes send, so their sizes can be
// read back after them.
type keyMeter struct {
	mu   sync.Mutex
	keys []map[string]types.AttributeValue
}

func (m *keyMeter) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("keyMeter",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				m.record(in.Parameters)
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

func (m *keyMeter) record(params any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := func(it map[string]types.AttributeValue) {
		m.keys = append(m.keys, map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]})
	}
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		for _, a := range in.TransactItems {
			switch {
			case a.Put != nil:
				key(a.Put.Item)
			case a.Update != nil:
				key(a.Update.Key)
			case a.Delete != nil:
				key(a.Delete.Key)
			default:
				key(a.ConditionCheck.Key)
			}
		}
	case *dynamodb.PutItemInput:
		key(in.Item)
	case *dynamodb.UpdateItemInput:
		key(in.Key)
	case *dynamodb.DeleteItemInput:
		key(in.Key)
	}
}

// take returns the keys recorded since the last take.
func (m *keyMeter) take() []map[string]types.AttributeValue {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.keys
	m.keys = nil
	return k
}

// itemBytes is an item's size as DynamoDB counts it (itemsize.go).
var itemBytes = dynamo.ItemBytes

// writtenItems reads back the items of keys (or of items: their PK and SK; once each) and returns their
// sizes by key, "PK/SK"; items gone since count 0.
func writtenItems(t testing.TB, db *dynamodb.Client, table string, keys []map[string]types.AttributeValue) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, k := range keys {
		name := k["PK"].(*types.AttributeValueMemberS).Value + "/" + k["SK"].(*types.AttributeValueMemberS).Value
		if _, ok := out[name]; ok {
			continue
		}
		key := map[string]types.AttributeValue{"PK": k["PK"], "SK": k["SK"]}
		got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("read back %s: %v", name, err)
		}
		out[name] = itemBytes(got.Item)
	}
	return out
}

// heldCount is how many entries the benchmark's heavy users hold
// (CALGRAPH_STATS_HELD, 8,000 unless set).
func heldCount(b *testing.B) int {
	if v := os.Getenv("CALGRAPH_STATS_HELD"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("CALGRAPH_STATS_HELD: %v", err)
		}
		return n
	}
	return 8000
}

// BenchmarkStatsWriteCost: what a createEntry costs a user holding 8,000
// future one-off events (at distinct quarter hours from tomorrow on), one
// holding 8,000 open overdue tasks (at distinct quarter hours before now),
// and one holding nothing: its time, and the items it writes, read back
// after it (their sizes, the largest, and the WCUs DynamoDB bills: a
// started KB of each, twice in a transaction); and a read of each one's
// stats. The heavy users' writes alternate with the other's.
//
//	go test ./internal/dynamo -run '^$' -bench StatsWriteCost -benchtime 40x
//	CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000 go test ./internal/dynamo -run '^$' -bench StatsWriteCost -benchtime 40x
func BenchmarkStatsWriteCost(b *testing.B) {
	meter := &keyMeter{}
	db := dynamotest.Client(b, meter.option)
	table := dynamotest.Table(b, db)
	s := dynamo.New(db, table, engine)
	f := &fixture{t: b, store: s, db: db}
	held := heldCount(b)
	tomorrow := time.Now().UTC().Truncate(time.Hour).Add(24 * time.Hour)
	users := map[string]context.Context{}
	cals := map[string]*calendar.Calendar{}
	for _, name := range []string{"none", "events", "tasks"} {
		users[name] = f.user(name + "@example.com")
		cals[name] = f.calendarOf(users[name], name)
	}
	seed := func(name string, timing func(i int) calendar.Timing) {
		timings := make([]calendar.Timing, held)
		for i := range timings {
			timings[i] = timing(i)
		}
		start := time.Now()
		if _, err := dynamo.SeedEntries(users[name], s, cals[name].ID, timings); err != nil {
			b.Fatalf("seed %s: %v", name, err)
		}
		b.Logf("seeded %d for %s in %v on the %s", held, name, time.Since(start).Round(time.Millisecond), dynamotest.EngineName())
	}
	seed("events", func(i int) calendar.Timing {
		t := tomorrow.Add(time.Duration(i) * 15 * time.Minute)
		return calendar.Timing{Timed: &calendar.TimedTiming{Start: t, End: t.Add(time.Hour), TimeZone: "UTC"}}
	})
	seed("tasks", func(i int) calendar.Timing {
		t := tomorrow.Add(-time.Duration(i+100) * 15 * time.Minute)
		return calendar.Timing{Task: &calendar.TaskDue{At: &t, TimeZone: "UTC"}}
	})
	meter.take()
	// Each iteration writes for the user holding nothing and then for the
	// heavy one, so that both meet the same load (the machine is shared);
	// times are medians.
	for _, c := range []struct{ heavy, write string }{{"events", "event"}, {"tasks", "task"}} {
		b.Run(c.write, func(b *testing.B) {
			costs := map[string]*writeCost{"none": {}, c.heavy: {}}
			for i := range b.N {
				t := tomorrow.Add(time.Duration(i)*time.Hour + 7*time.Minute)
				timing := calendar.Timing{Timed: &calendar.TimedTiming{Start: t, End: t.Add(time.Hour), TimeZone: "UTC"}}
				if c.write == "task" {
					timing = calendar.Timing{Task: &calendar.TaskDue{At: &t, TimeZone: "UTC"}}
				}
				for _, user := range []string{"none", c.heavy} {
					start := time.Now()
					_, _, err := s.CreateEntry(users[user], calendar.NewEntry{CalendarID: cals[user].ID, Title: "new", Timing: timing})
					took := time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					costs[user].add(took, writtenItems(b, db, table, meter.take()))
				}
			}
			for user, cost := range costs {
				cost.report(b, user)
			}
		})
	}
	b.Run("stats-read", func(b *testing.B) {
		took := map[string][]time.Duration{}
		for range b.N {
			for _, user := range []string{"none", "events", "tasks"} {
				start := time.Now()
				if _, err := s.Stats(users[user]); err != nil {
					b.Fatal(err)
				}
				took[user] = append(took[user], time.Since(start))
			}
		}
		for user, ds := range took {
			b.ReportMetric(median(ds), user+"-ms/read")
		}
	})
	f.consistent()
}

// writeCost adds up what a user's writes took and wrote.
type writeCost struct {
	took             []time.Duration
	bytes, wcu, most int
	mostKey          string
}

func (c *writeCost) add(took time.Duration, items map[string]int) {
	c.took = append(c.took, took)
	for k, size := range items {
		c.bytes += size
		c.wcu += 2 * max(1, (size+1023)/1024)
		if size > c.most {
			c.most, c.mostKey = size, k
		}
	}
}

func (c *writeCost) report(b *testing.B, user string) {
	n := float64(len(c.took))
	b.ReportMetric(median(c.took), user+"-ms/write")
	b.ReportMetric(float64(c.wcu)/n, user+"-WCU/write")
	b.ReportMetric(float64(c.bytes)/n, user+"-bytes/write")
	b.ReportMetric(float64(c.most), user+"-largest-item-bytes")
	b.Logf("%s: largest item written %s (%d bytes)", user, c.mostKey, c.most)
}

// median is the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}
