package live_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// instanceWith is newInstance on table with a Recorder of its DynamoDB
// calls, and options of its store and hub.
func instanceWith(tb testing.TB, table string, storeOpts []dynamo.Option, hubOpts ...live.Option) (instance, *dynamo.Recorder) {
	tb.Helper()
	rec := &dynamo.Recorder{}
	db := dynamotest.Client(tb, dynamo.WithRecorder(rec))
	var hub *live.Hub
	storeOpts = append(storeOpts, dynamo.WithCommitHook(func(l []calendar.LogRef) { hub.Notify(l) }))
	store := dynamo.New(db, table, recurrence.Engine{}, storeOpts...)
	hub = live.NewHub(store, live.DefaultPollInterval, nil, hubOpts...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	return instance{store, hub}, rec
}

// TestOtherInstancesWritesArrive: writes through instance A reach a
// subscriber on instance B, which finds them in the recent writes: from
// their hints (B never sweeps); from a writer of the version before the
// index, which leaves none, through B's sweep; and on a table without the
// index, by reading every followed log each poll.
func TestOtherInstancesWritesArrive(t *testing.T) {
	for _, tt := range []struct {
		name    string
		writer  []dynamo.Option
		sweep   time.Duration
		noIndex bool
	}{
		{name: "hinted", sweep: time.Hour},
		{name: "without a hint", writer: []dynamo.Option{dynamo.WithoutWriteHints()}, sweep: time.Second},
		{name: "table without the index", sweep: time.Hour, noIndex: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := dynamotest.Client(t)
			table := dynamotest.Table(t, db)
			if tt.noIndex {
				dropIndex(t, db, table, "GSI4")
			}
			a, _ := instanceWith(t, table, tt.writer)
			b, _ := instanceWith(t, table, nil, live.WithSweep(tt.sweep))
			owner := signIn(t, a.store, "owner@example.com")
			cal, _, err := a.store.CreateCalendar(owner, calendar.NewCalendar{Name: "Shared"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(owner, time.Minute)
			defer cancel()
			sub, err := b.hub.Subscribe(ctx, live.Follow{CalendarIDs: []string{cal.ID}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				title := fmt.Sprint("write ", i)
				if _, err := a.store.CreateEntry(owner, task(cal.ID, title)); err != nil {
					t.Fatal(err)
				}
				if !delivered(sub, title) {
					t.Fatalf("%s never reached instance B: %v", title, sub.Err())
				}
			}
		})
	}
}

// delivered waits for the entry titled title among sub's deliveries, until
// they end.
func delivered(sub *live.Subscription, title string) bool {
	for d := range sub.Deliveries() {
		for _, c := range d.Changes {
			if c.Entry != nil && c.Entry.Title == title {
				return true
			}
		}
	}
	return false
}

// dropIndex deletes a global secondary index of table, as if it were of a
// version before the index, and waits until it is gone or going (DynamoDB
// Local keeps it DELETING for a while, and fails Queries of it).
func dropIndex(tb testing.TB, db *dynamodb.Client, table, index string) {
	tb.Helper()
	ctx := context.Background()
	_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(index)}}}})
	if err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			tb.Fatal(err)
		}
		if !slices.ContainsFunc(out.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return aws.ToString(g.IndexName) == index && (g.IndexStatus == "" || g.IndexStatus == types.IndexStatusActive)
		}) {
			return
		}
	}
	tb.Fatalf("index %s still active after a minute", index)
}

// createCalendars creates n calendars of owner, 8 at a time.
func createCalendars(tb testing.TB, s *dynamo.Store, owner context.Context, n int) []string {
	tb.Helper()
	ids := make([]string, n)
	var g errgroup.Group
	g.SetLimit(8)
	for i := range ids {
		g.Go(func() error {
			c, _, err := s.CreateCalendar(owner, calendar.NewCalendar{Name: fmt.Sprint("Room ", i)})
			if err != nil {
				return err
			}
			ids[i] = c.ID
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// follow subscribes the viewer of ctx to ids, live.MaxFollowed calendars a
// subscription, and drains what they deliver until ctx ends.
func follow(tb testing.TB, h *live.Hub, ctx context.Context, ids []string) {
	tb.Helper()
	for part := range slices.Chunk(ids, live.MaxFollowed) {
		sub, err := h.Subscribe(ctx, live.Follow{CalendarIDs: part})
		if err != nil {
			tb.Fatal(err)
		}
		go func() {
			for range sub.Deliveries() {
			}
		}()
	}
}

// cpuTime is the CPU this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// queriesOf counts the Queries among calls.
func queriesOf(calls []dynamo.Call) int {
	n := 0
	for _, c := range calls {
		if c.Op == "Query" {
			n++
		}
	}
	return n
}

// BenchmarkIdleFollowing: one instance whose subscribers follow 1,000
// calendars in which nothing is written. It reports what the instance's
// hub costs while idle over 10 s (DynamoDB Queries a second, and the CPU
// of this process: with the embedded engine, the engine's too), then the
// latency of b.N writes to another calendar, subscribed on the same
// instance, from each write's answer to its delivery.
//
//	CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000 go test ./internal/live -run '^$' -bench IdleFollowing -benchtime 20x
func BenchmarkIdleFollowing(b *testing.B) {
	db := dynamotest.Client(b)
	table := dynamotest.Table(b, db)
	benchIdleFollowing(b, db, table)
}

func benchIdleFollowing(b *testing.B, _ *dynamodb.Client, table string) {
	in, rec := instanceWith(b, table, nil)
	owner := signIn(b, in.store, "owner@example.com")
	ids := createCalendars(b, in.store, owner, 1001)
	watched, idle := ids[0], ids[1:]
	ctx, cancel := context.WithCancel(owner)
	defer cancel()
	follow(b, in.hub, ctx, idle)
	sub, err := in.hub.Subscribe(ctx, live.Follow{CalendarIDs: []string{watched}, Buffer: 64})
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(2 * live.DefaultPollInterval)
	const window = 10 * time.Second
	rec.Reset()
	cpu0, t0 := cpuTime(), time.Now()
	time.Sleep(window)
	cpu, elapsed := cpuTime()-cpu0, time.Since(t0)
	queries := queriesOf(rec.Calls())

	var lat []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		time.Sleep(rand.N(live.DefaultPollInterval))
		b.StartTimer()
		title := fmt.Sprint("write ", i)
		if _, err := in.store.CreateEntry(owner, task(watched, title)); err != nil {
			b.Fatal(err)
		}
		done := time.Now()
	wait:
		for d := range sub.Deliveries() {
			for _, c := range d.Changes {
				if c.Entry != nil && c.Entry.Title == title {
					mu.Lock()
					lat = append(lat, time.Since(done))
					mu.Unlock()
					break wait
				}
			}
		}
	}
	b.StopTimer()
	if len(lat) < b.N {
		b.Fatalf("%d of %d writes delivered: %v", len(lat), b.N, sub.Err())
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
	b.ReportMetric(float64(in.hub.Feeds()), "logs-followed")
	b.ReportMetric(float64(queries)/elapsed.Seconds(), "idle-queries/s")
	b.ReportMetric(100*cpu.Seconds()/elapsed.Seconds(), "idle-cpu-%")
}
