package live_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// instance is one server instance's store and hub on a shared table.
type instance struct {
	store *dynamo.Store
	hub   *live.Hub
}

// newInstance starts a hub on a store of table (a new table when "").
func newInstance(tb testing.TB, table string, poll time.Duration) (instance, string) {
	tb.Helper()
	db := dynamotest.Client(tb)
	if table == "" {
		table = dynamotest.Table(tb, db)
	}
	var hub *live.Hub
	store := dynamo.New(db, table, recurrence.Engine{}, dynamo.WithCommitHook(func(l []calendar.LogRef) { hub.Notify(l) }))
	hub = live.NewHub(store, poll, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	return instance{store, hub}, table
}

func signIn(tb testing.TB, s *dynamo.Store, email string) context.Context {
	tb.Helper()
	id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: email}, Email: email, Name: email})
	if err != nil {
		tb.Fatal(err)
	}
	return calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
}

func task(cal, title string) calendar.NewEntry {
	due, err := calendar.ParseDate("due", "2026-12-01")
	if err != nil {
		panic(err)
	}
	return calendar.NewEntry{CalendarID: cal, Title: title, Timing: calendar.Timing{Task: &calendar.TaskDue{Date: &due}}}
}

// TestSlowSubscriberIsDropped: a subscriber that reads none of its
// deliveries is dropped once the hub could not hand it a read, and its
// subscription ends with ErrTooSlow, leaving no followed log behind.
func TestSlowSubscriberIsDropped(t *testing.T) {
	in, _ := newInstance(t, "", time.Hour) // only this instance's commits wake it
	owner := signIn(t, in.store, "owner@example.com")
	cal, _, err := in.store.CreateCalendar(owner, calendar.NewCalendar{Name: "Busy"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(owner)
	defer cancel()
	sub, err := in.hub.Subscribe(ctx, live.Follow{CalendarIDs: []string{cal.ID}, Buffer: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, _, err := in.store.CreateEntry(owner, task(cal.ID, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // one read of the hub per write
		if errors.Is(sub.Err(), live.ErrTooSlow) || i == 1000 {
			break
		}
	}
	n := 0
	for range sub.Deliveries() { // what was handed over, then the end
		n++
	}
	if !errors.Is(sub.Err(), live.ErrTooSlow) || n > 2 {
		t.Fatalf("after %d deliveries: %v, want ErrTooSlow", n, sub.Err())
	}
	if f := in.hub.Feeds(); f != 0 {
		t.Fatalf("%d logs followed after the drop", f)
	}
}

// BenchmarkDeliveryLatency: 1,000 subscribers of one calendar (100 users,
// ten subscriptions each), on the instance that takes the writes (woken by
// its commit) or on another (which finds them by polling every 500 ms); the
// time from a write's answer to each subscriber's delivery.
//
//	CALGRAPH_TEST_DYNAMODB=http://localhost:8000 go test ./internal/live -run '^$' -bench DeliveryLatency -benchtime 20x
func BenchmarkDeliveryLatency(b *testing.B) {
	for _, where := range []string{"same-instance", "other-instance"} {
		b.Run(where, func(b *testing.B) {
			writer, table := newInstance(b, "", live.DefaultPollInterval)
			reader := writer
			if where == "other-instance" {
				reader, _ = newInstance(b, table, live.DefaultPollInterval)
			}
			owner := signIn(b, writer.store, "owner@example.com")
			cal, _, err := writer.store.CreateCalendar(owner, calendar.NewCalendar{Name: "Shared"})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var subs []*live.Subscription
			for u := range 100 {
				email := fmt.Sprintf("u%d@example.com", u)
				viewer := signIn(b, writer.store, email)
				if _, _, err := writer.store.AddMember(owner, cal.ID, email, calendar.RoleReader); err != nil {
					b.Fatal(err)
				}
				for range 10 {
					sub, err := reader.hub.Subscribe(calendar.WithViewer(ctx, calendar.Viewer{ID: mustViewer(b, viewer)}), live.Follow{CalendarIDs: []string{cal.ID}, Buffer: 64})
					if err != nil {
						b.Fatal(err)
					}
					subs = append(subs, sub)
				}
			}
			time.Sleep(time.Second) // the membership changes are delivered and drained below
			drain(subs)
			var lat []time.Duration
			b.ResetTimer()
			for i := range b.N {
				// At a random moment of the poll interval, as writes come.
				b.StopTimer()
				time.Sleep(rand.N(live.DefaultPollInterval))
				b.StartTimer()
				title := fmt.Sprint("write ", i)
				if _, _, err := writer.store.CreateEntry(owner, task(cal.ID, title)); err != nil {
					b.Fatal(err)
				}
				done := time.Now()
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, s := range subs {
					wg.Go(func() {
						for d := range s.Deliveries() {
							for _, c := range d.Changes {
								if c.Entry != nil && c.Entry.Title == title {
									mu.Lock()
									lat = append(lat, time.Since(done))
									mu.Unlock()
									return
								}
							}
						}
					})
				}
				wg.Wait()
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
			b.ReportMetric(float64(len(subs)), "subscribers")
		})
	}
}

func mustViewer(tb testing.TB, ctx context.Context) string {
	id, err := calendar.ViewerID(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// drain empties what subscribers hold.
func drain(subs []*live.Subscription) {
	for _, s := range subs {
		for len(s.Deliveries()) > 0 {
			<-s.Deliveries()
		}
	}
}

// gatedSource is a store whose first authorized sync (a resumed
// subscription's catch-up) waits for gate.
type gatedSource struct {
	*dynamo.Store
	gate chan struct{}
	once sync.Once
}

func (g *gatedSource) Changes(ctx context.Context, id, token string, first int) (*calendar.ChangePage, error) {
	g.once.Do(func() { <-g.gate })
	return g.Store.Changes(ctx, id, token, first)
}

// TestCatchUpIsNotTooSlow: while a resumed subscription reads its backlog
// (held here until the Hub has read the log a hundred and fifty times, far
// more than a subscriber's buffer holds), it is not dropped as too slow: it
// then delivers every change.
func TestCatchUpIsNotTooSlow(t *testing.T) {
	db := dynamotest.Client(t)
	table := dynamotest.Table(t, db)
	var hub *live.Hub
	store := dynamo.New(db, table, recurrence.Engine{}, dynamo.WithCommitHook(func(l []calendar.LogRef) { hub.Notify(l) }))
	src := &gatedSource{Store: store, gate: make(chan struct{})}
	hub = live.NewHub(src, time.Hour, nil) // only this instance's commits wake it
	running, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(running) }()
	t.Cleanup(func() { stop(); <-done })

	owner := signIn(t, store, "owner@example.com")
	cal, _, err := store.CreateCalendar(owner, calendar.NewCalendar{Name: "Busy"})
	if err != nil {
		t.Fatal(err)
	}
	token := ""
	for p := (&calendar.ChangePage{More: true}); p.More; token = p.Token {
		if p, err = store.Changes(owner, cal.ID, token, calendar.MaxChangePage); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(owner)
	defer cancel()
	sub, err := hub.Subscribe(ctx, live.Follow{CalendarIDs: []string{cal.ID}, Resume: map[string]string{cal.ID: token}, Buffer: 1})
	if err != nil {
		t.Fatal(err)
	}
	const writes = 150
	for i := range writes {
		if _, _, err := store.CreateEntry(owner, task(cal.ID, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // one read of the hub per write
	}
	close(src.gate)
	titles := map[string]bool{}
	for len(titles) < writes {
		select {
		case d, ok := <-sub.Deliveries():
			if !ok {
				t.Fatalf("the subscription ended after %d of %d entries: %v", len(titles), writes, sub.Err())
			}
			for _, c := range d.Changes {
				if c.Entry != nil {
					titles[c.Entry.Title] = true
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d entries delivered", len(titles), writes)
		}
	}
}
