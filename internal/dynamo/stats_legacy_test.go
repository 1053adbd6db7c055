package dynamo_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// TestStatsOfOldShapeItem: a user whose stats an earlier version kept in
// one STATS item (written here directly, as it wrote them: a count per
// start and due moment) keeps them across the upgrade. A read adds the item
// to what this version writes, so a write in between (deleting one of the
// events) stays exact, and folds its per-moment counts into the trees (at
// most 8 transactions of 100 per read) without changing any count; the
// zone the item holds is not read (the user item's is).
func TestStatsOfOldShapeItem(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	now := time.Now().UTC().Truncate(time.Millisecond)
	today := calendar.DateOf(now)
	attrs := map[string]int{}
	var timings []calendar.Timing
	event := func(start time.Time) {
		timings = append(timings, calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}})
		attrs["si"+strconv.FormatInt(start.UnixMilli(), 10)]++
	}
	for i := range 820 { // 820 minutes from an hour on: upcoming
		event(now.Add(time.Hour + time.Duration(i)*time.Minute).Truncate(time.Minute))
	}
	for i := range 3 { // long past, and after the window
		event(now.Add(-72 * time.Hour).Add(time.Duration(i) * time.Hour))
		event(now.Add(8 * 24 * time.Hour).Add(time.Duration(i) * time.Hour))
	}
	for i := range 5 {
		d := today.AddDays(i * 3) // days 0, 3 and 6 upcoming
		timings = append(timings, calendar.Timing{AllDay: &d})
		attrs["sd"+d.String()]++
	}
	for i := range 40 {
		due := now.Add(-time.Duration(i+1) * 90 * time.Minute).Add(time.Duration(i) * time.Millisecond)
		timings = append(timings, calendar.Timing{Task: &calendar.TaskDue{At: &due, TimeZone: "UTC"}})
		attrs["di"+strconv.FormatInt(due.UnixMilli(), 10)]++
	}
	for i := range 4 {
		due := today.AddDays(i - 2) // two overdue
		timings = append(timings, calendar.Timing{Task: &calendar.TaskDue{Date: &due, TimeZone: "UTC"}})
		attrs["dd"+due.String()]++
	}
	if _, err := dynamo.SeedEntries(ada, f.store, cal.ID, timings); err != nil {
		t.Fatal(err)
	}
	done, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "done", Timing: calendar.Timing{Task: &calendar.TaskDue{At: &now, TimeZone: "UTC"}}})
	f.mustDo(err)
	_, _, err = f.store.SetTaskCompleted(ada, done.Key(), done.Version, true)
	f.mustDo(err)
	want, err := f.store.Stats(ada)
	f.mustDo(err)
	if want.TotalEvents != 831 || want.UpcomingEvents != 823 || want.TotalTasks != 45 || want.OverdueTasks != 42 {
		t.Fatalf("stats before the old shape %+v", want)
	}

	// The item the earlier version kept instead of this version's.
	user := viewer(t, ada)
	for _, it := range f.items() {
		if it["PK"] == "USER#"+user && strings.HasPrefix(fmt.Sprint(it["SK"]), "STATS") {
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}
	}
	old := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#" + user}, "SK": &types.AttributeValueMemberS{Value: "STATS"},
		"entityType": &types.AttributeValueMemberS{Value: "USER_STATS"},
		"events":     &types.AttributeValueMemberN{Value: "831"}, "tasks": &types.AttributeValueMemberN{Value: "45"},
		"created": &types.AttributeValueMemberNS{Value: []string{
			strconv.FormatInt(want.LastEventCreated.UnixMilli()-5000, 10), strconv.FormatInt(want.LastEventCreated.UnixMilli(), 10)}},
		"completed": &types.AttributeValueMemberNS{Value: []string{strconv.FormatInt(want.LastTaskCompleted.UnixMilli(), 10)}},
		"tz":        &types.AttributeValueMemberS{Value: "Pacific/Kiritimati"}, // not the user's zone now: not read
		"si0":       &types.AttributeValueMemberN{Value: "0"},                  // a count back at 0, left behind
	}
	for name, n := range attrs {
		old[name] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	}
	if _, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.store.Table()), Item: old}); err != nil {
		t.Fatal(err)
	}
	f.consistent()

	// A write before any read: the trees count -1 where the old item +1.
	soon := timings[0].Timed.Start
	es, err := f.store.EntriesReaching(ada, calendar.ReadScope{}, cal, soon, soon.Add(time.Minute))
	f.mustDo(err)
	for _, e := range es {
		if e.Start.Equal(soon) {
			f.mustDo(f.store.DeleteEntry(ada, e.Key(), e.Version))
		}
	}
	want.TotalEvents--
	want.UpcomingEvents--
	f.consistent()

	marksLeft := func() int {
		t.Helper()
		for _, it := range f.items() {
			if it["PK"] == "USER#"+user && it["SK"] == "STATS" {
				n := 0
				for name := range it {
					if len(name) > 2 && (name[:2] == "si" || name[:2] == "sd" || name[:2] == "di" || name[:2] == "dd") {
						n++
					}
				}
				return n
			}
		}
		t.Fatal("the old item is gone")
		return 0
	}
	// 876 counts (with the one at 0) take more than the 8 transactions of
	// at most 100 a read runs: the second read finishes.
	for read := range 2 {
		got, err := f.store.Stats(ada)
		f.mustDo(err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("read %d (-want +got):\n%s", read+1, diff)
		}
		switch n := marksLeft(); {
		case read == 0 && (n == 0 || n > len(attrs)+1-100):
			t.Errorf("after the first read the old item has %d per-moment counts of %d, want some folded and some left", n, len(attrs)+1)
		case read == 1 && n != 0:
			t.Errorf("after the second read the old item has %d per-moment counts, want none", n)
		}
		f.consistent()
	}
	for _, it := range f.items() {
		if it["PK"] == "USER#"+user && it["SK"] == "STATS" {
			if created := it["created"].([]float64); len(created) != 1 || int64(created[0]) != want.LastEventCreated.UnixMilli() {
				t.Errorf("the old item keeps creation moments %v, want the latest alone", created)
			}
		}
	}
	got, err := f.store.Stats(ada)
	f.mustDo(err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the fold (-want +got):\n%s", diff)
	}
}

// TestStatsMomentsNeverMoveBack: a creation committed after a later one (a
// clock behind another instance's) leaves the later one as the latest: the
// totals update's condition fails, and the write goes through without it.
func TestStatsMomentsNeverMoveBack(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	ahead, behind := withClock(f, "2026-06-15T12:00:00Z"), withClock(f, "2026-06-15T11:00:00Z")
	create := func(s *dynamo.Store, title string) *calendar.Entry {
		t.Helper()
		e, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: title, Timing: timed("2026-07-01T09:00:00Z", "2026-07-01T10:00:00Z", "UTC")})
		f.mustDo(err)
		return e
	}
	create(ahead, "later")
	create(behind, "earlier, committed after")
	task, _, err := behind.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "task", Timing: dueOn("2026-07-01")})
	f.mustDo(err)
	other, _, err := behind.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "task", Timing: dueOn("2026-07-01")})
	f.mustDo(err)
	_, _, err = ahead.SetTaskCompleted(ada, task.Key(), task.Version, true)
	f.mustDo(err)
	_, _, err = behind.SetTaskCompleted(ada, other.Key(), other.Version, true)
	f.mustDo(err)
	st, err := f.store.Stats(ada)
	f.mustDo(err)
	if !st.LastEventCreated.Equal(at("2026-06-15T12:00:00Z")) || !st.LastTaskCompleted.Equal(at("2026-06-15T12:00:00Z")) || st.TotalEvents != 2 || st.TotalTasks != 2 {
		t.Errorf("stats %+v, want 2 events and 2 tasks, the latest creation and completion at noon", st)
	}
}
