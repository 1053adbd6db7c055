package dynamo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// maxStatsItemBytes bounds every stats item, as DynamoDB sizes it: a tree
// node holds at most 100 counters, the totals four numbers.
const maxStatsItemBytes = 1024

// meteredFixture is a fixture whose client records the keys writes send.
func meteredFixture(t *testing.T) (*fixture, *keyMeter) {
	t.Helper()
	meter := &keyMeter{}
	db := dynamotest.Client(t, meter.option)
	f := &fixture{t: t, store: dynamo.New(db, dynamotest.Table(t, db), engine), db: db}
	t.Cleanup(func() {
		if !t.Failed() {
			f.consistent()
		}
	})
	return f, meter
}

// statsKeys keeps the keys of stats items.
func statsKeys(keys []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	for _, k := range keys {
		if strings.HasPrefix(k["SK"].(*types.AttributeValueMemberS).Value, "STATS") {
			out = append(out, k)
		}
	}
	return out
}

// TestStatsItemsStayBounded: a user holding what makes per-moment counts
// grow (150 events at one instant, 150 at distinct milliseconds of one
// second, 150 at distinct minutes of one day, 150 whole-day events on one
// day, 150 overdue tasks at distinct milliseconds and 150 due on distinct
// days) has no stats item over 1 KB, and each of their writes of one entry
// touches at most 18 stats items, all under 1 KB; creating an event at a
// quarter hour touches three (its day's and hour's nodes, the totals).
func TestStatsItemsStayBounded(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f, meter := meteredFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	event := func(start time.Time) calendar.Timing {
		return calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}
	}
	var timings []calendar.Timing
	for i := range 150 {
		day := calendar.DateOf(tomorrow)
		due := tomorrow.Add(-30*24*time.Hour + time.Duration(i)*time.Millisecond)
		dueDay := calendar.DateOf(tomorrow).AddDays(-i - 2)
		timings = append(timings,
			event(tomorrow.Add(9*time.Hour)),
			event(tomorrow.Add(10*time.Hour+time.Duration(i)*time.Millisecond)),
			event(tomorrow.Add(11*time.Hour+time.Duration(i)*time.Minute)),
			calendar.Timing{AllDay: &day},
			calendar.Timing{Task: &calendar.TaskDue{At: &due, TimeZone: "UTC"}},
			calendar.Timing{Task: &calendar.TaskDue{Date: &dueDay, TimeZone: "UTC"}})
	}
	if _, err := dynamo.SeedEntries(ada, f.store, cal.ID, timings); err != nil {
		t.Fatal(err)
	}
	largest := func(step string, keys []map[string]types.AttributeValue) {
		t.Helper()
		for k, size := range writtenItems(t, f.db, f.store.Table(), keys) {
			if size > maxStatsItemBytes {
				t.Errorf("%s: stats item %s is %d bytes, want at most %d", step, k, size, maxStatsItemBytes)
			}
		}
	}
	var all []map[string]types.AttributeValue
	for _, it := range rawItems(t, f) {
		if strings.HasPrefix(it["SK"].(*types.AttributeValueMemberS).Value, "STATS") {
			all = append(all, it)
		}
	}
	largest("after seeding", all)

	meter.take()
	write := func(step string, most int, do func() error) {
		t.Helper()
		if err := do(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		keys := statsKeys(meter.take())
		if len(keys) > most {
			t.Errorf("%s touched %d stats items, want at most %d", step, len(keys), most)
		}
		largest(step, keys)
	}
	var e *calendar.Entry
	write("creating an event at a quarter hour", 3, func() (err error) {
		e, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "new", Timing: event(tomorrow.Add(9*time.Hour + 15*time.Minute))})
		return err
	})
	write("moving it to a millisecond of another day", 18, func() (err error) {
		e, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
			Timing: calendar.Set(event(tomorrow.Add(50*time.Hour + 10*time.Millisecond)))})
		return err
	})
	due := tomorrow.Add(-5*time.Hour + 7*time.Millisecond)
	var task *calendar.Entry
	write("creating a task due at a millisecond", 18, func() (err error) {
		task, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "task", Timing: calendar.Timing{Task: &calendar.TaskDue{At: &due, TimeZone: "UTC"}}})
		return err
	})
	write("completing it", 18, func() error {
		_, _, err := f.store.SetTaskCompleted(ada, task.Key(), task.Version, true)
		return err
	})
	write("deleting the event", 18, func() error { return f.store.DeleteEntry(ada, e.Key(), e.Version) })
	st, err := f.store.Stats(ada)
	f.mustDo(err)
	if st.TotalEvents != 600 || st.TotalTasks != 301 || st.UpcomingEvents != 600 || st.OverdueTasks != 300 {
		t.Errorf("stats %+v, want 600 events (all upcoming) and 301 tasks (300 overdue)", st)
	}
}

// rawItems returns every item of the table as DynamoDB holds it.
func rawItems(t *testing.T, f *fixture) []map[string]types.AttributeValue {
	t.Helper()
	var all []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(f.store.Table()), ConsistentRead: aws.Bool(true)}
	for {
		out, err := f.db.Scan(context.Background(), in)
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		all = append(all, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return all
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// TestDeletingACalendarOfSpreadEntries: a calendar's deletion takes its
// entries out of their creators' stats in transactions that fit DynamoDB's
// 100 actions however many tree nodes the entries' moments reach (here 5
// or 8 each: events and tasks at milliseconds of distinct days).
func TestDeletingACalendarOfSpreadEntries(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f := newFixture(t)
	ada := f.user("ada@example.com")
	big, kept := f.calendarOf(ada, "Big"), f.calendarOf(ada, "Kept")
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(24*time.Hour + 9*time.Hour + 15*time.Minute + 30*time.Second + 123*time.Millisecond)
	var timings []calendar.Timing
	for i := range 60 {
		s := start.Add(time.Duration(i) * 25 * time.Hour)
		due := s.Add(-90 * 24 * time.Hour)
		timings = append(timings, calendar.Timing{Timed: &calendar.TimedTiming{Start: s, End: s.Add(time.Hour), TimeZone: "UTC"}},
			calendar.Timing{Task: &calendar.TaskDue{At: &due, TimeZone: "UTC"}})
	}
	if _, err := dynamo.SeedEntries(ada, f.store, big.ID, timings); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: kept.ID, Title: "kept", Timing: timings[0]})
	f.mustDo(err)
	f.mustDo(f.store.DeleteCalendar(ada, big.ID, big.Version))
	if left, pending := f.partitionItems(big.ID); left != 0 || pending != 0 {
		t.Fatalf("%d items of the deleted calendar left, %d pending deletions", left, pending)
	}
	st, err := f.store.Stats(ada)
	f.mustDo(err)
	if st.TotalEvents != 1 || st.UpcomingEvents != 1 || st.TotalTasks != 0 || st.OverdueTasks != 0 {
		t.Errorf("stats after the deletion %+v, want the kept event alone", st)
	}
}
