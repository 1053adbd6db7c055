package dynamo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// statsAt reads ctx's user's stats from s and compares them with want.
func statsAt(t *testing.T, s *dynamo.Store, ctx context.Context, step string, want calendar.Stats) {
	t.Helper()
	got, err := s.Stats(ctx)
	if err != nil {
		t.Fatalf("%s: stats: %v", step, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: stats (-want +got):\n%s", step, diff)
	}
}

// TestStatsFollowEveryWrite walks one user's stats through every kind of
// write that changes them, some made by another user, and the deletion of
// the calendar holding most of their entries.
func TestStatsFollowEveryWrite(t *testing.T) {
	f := newFixture(t)
	const nowText = "2026-06-15T12:00:00Z"
	now := at(nowText)
	s := withClock(f, nowText)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	home, bobs := f.calendarOf(ada, "Home"), f.calendarOf(bob, "Bob")
	f.share(ada, home, bob, "bob@example.com", calendar.RoleWriter)

	timed := func(ctx context.Context, cal *calendar.Calendar, start time.Time) *calendar.Entry {
		t.Helper()
		e, _, err := s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal.ID, Title: "event",
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
		f.mustDo(err)
		return e
	}
	day := func(d calendar.Date) *calendar.Entry {
		t.Helper()
		e, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: home.ID, Title: "day", Timing: calendar.Timing{AllDay: &d}})
		f.mustDo(err)
		return e
	}
	task := func(due calendar.TaskDue) *calendar.Entry {
		t.Helper()
		due.TimeZone = "UTC"
		e, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: home.ID, Title: "task", Timing: calendar.Timing{Task: &due}})
		f.mustDo(err)
		return e
	}
	date := func(d int) calendar.Date { return calendar.Date{Year: 2026, Month: 6, Day: d} }
	instant := func(d time.Duration) *time.Time { t := now.Add(d); return &t }

	statsAt(t, s, ada, "before anything", calendar.Stats{})
	soon := timed(ada, home, now.Add(time.Hour))       // upcoming
	later := timed(ada, home, now.Add(8*24*time.Hour)) // after the window
	past := timed(ada, home, now.Add(-time.Hour))      // before it
	timed(ada, home, now.Add(calendar.UpcomingWindow)) // the window excludes its end
	day(date(21))                                      // the sixth day after today: upcoming
	day(date(22))                                      // the seventh: not
	series, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: home.ID, Title: "standup", Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY"},
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: now.Add(2 * time.Hour), End: now.Add(150 * time.Minute), TimeZone: "UTC"}}})
	f.mustDo(err)
	lateTask := task(calendar.TaskDue{At: instant(-time.Hour)}) // overdue
	task(calendar.TaskDue{Date: new(date(14))})                 // overdue: yesterday
	todays := task(calendar.TaskDue{Date: new(date(15))})       // due today: not yet
	task(calendar.TaskDue{At: instant(time.Hour)})              // not yet
	want := calendar.Stats{TotalEvents: 7, TotalTasks: 4, UpcomingEvents: 2, OverdueTasks: 2, LastEventCreated: now}
	statsAt(t, s, ada, "after creating", want)
	statsAt(t, s, bob, "bob, who created nothing", calendar.Stats{})

	// Bob completes Ada's overdue task: her count drops, his completion counts.
	done := withClock(f, "2026-06-15T12:30:00Z")
	_, _, err = done.SetTaskCompleted(bob, lateTask.Key(), lateTask.Version, true)
	f.mustDo(err)
	want.OverdueTasks = 1
	statsAt(t, s, ada, "after bob completed her task", want)
	statsAt(t, s, bob, "bob after completing", calendar.Stats{LastTaskCompleted: at("2026-06-15T12:30:00Z")})

	// Bob moves her upcoming event to his calendar: still hers.
	_, _, err = s.MoveEntry(bob, soon.Key(), soon.Version, bobs.ID)
	f.mustDo(err)
	statsAt(t, s, ada, "after bob moved her event", want)

	// She brings the later event into the window; Bob deletes her past one.
	start := now.Add(3 * time.Hour)
	_, _, err = s.UpdateEntry(ada, calendar.EntryUpdate{Key: later.Key(), ExpectedVersion: later.Version,
		Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}})})
	f.mustDo(err)
	f.mustDo(s.DeleteEntry(bob, past.Key(), past.Version))
	want.UpcomingEvents, want.TotalEvents = 3, 6
	statsAt(t, s, ada, "after moving one event in and deleting another", want)

	// A task made an event: one task fewer, one event (and upcoming) more.
	_, _, err = s.UpdateEntry(ada, calendar.EntryUpdate{Key: todays.Key(), ExpectedVersion: todays.Version,
		Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}})})
	f.mustDo(err)
	want.TotalTasks, want.TotalEvents, want.UpcomingEvents = 3, 7, 4
	statsAt(t, s, ada, "after making a task an event", want)

	// Splitting the series makes a second one; neither is upcoming.
	_, _, err = s.UpdateOccurrence(ada, calendar.OccurrenceKey{CalendarID: home.ID, SeriesID: series.ID, OriginalStart: series.Start.Add(72 * time.Hour)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: series.Version, Title: calendar.Set("later standup")})
	f.mustDo(err)
	want.TotalEvents = 8
	statsAt(t, s, ada, "after splitting the series", want)

	// In a zone 14 hours ahead it is already the 16th: the 22nd is in the
	// window, and the task due on the 15th is overdue.
	got, err := s.Read(ada, calendar.Keys{Users: []string{viewer(t, ada)}, Calendars: []string{home.ID}})
	f.mustDo(err)
	_, err = s.UpdatePreferences(ada, calendar.PreferencesUpdate{ExpectedVersion: got.Users[viewer(t, ada)].Version, TimeZone: calendar.Set("Pacific/Kiritimati")})
	f.mustDo(err)
	want.UpcomingEvents++
	statsAt(t, s, ada, "in Kiritimati", want)

	// Deleting Home leaves only the event Bob moved to his calendar.
	f.mustDo(s.DeleteCalendar(ada, home.ID, got.Calendars[home.ID].Version))
	f.consistent()
	statsAt(t, s, ada, "after deleting Home", calendar.Stats{TotalEvents: 1, UpcomingEvents: 1, LastEventCreated: now})
}

// TestStatsExactUnderConcurrentWrites: writers create, complete, move and
// delete each other's entries in a shared calendar at once; every user's
// stats then equal a recount of the table (Store.Check) and their own count.
func TestStatsExactUnderConcurrentWrites(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f := newFixture(t)
	owner := f.user("owner@example.com")
	shared, other := f.calendarOf(owner, "Shared"), f.calendarOf(owner, "Other")
	users := []context.Context{owner}
	for i := range 3 {
		email := fmt.Sprintf("w%d@example.com", i)
		u := f.user(email)
		f.share(owner, shared, u, email, calendar.RoleWriter)
		f.share(owner, other, u, email, calendar.RoleWriter)
		users = append(users, u)
	}
	now := time.Now().UTC().Truncate(time.Minute)
	var wg sync.WaitGroup
	for w, ctx := range users {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 25 {
				start := now.Add(time.Duration(rng.IntN(20*24)-48) * time.Hour)
				n := calendar.NewEntry{CalendarID: shared.ID, Title: fmt.Sprintf("w%d-%d", w, i),
					Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}}
				if i%3 == 0 {
					n.Timing = calendar.Timing{Task: &calendar.TaskDue{At: &start, TimeZone: "UTC"}}
				}
				e, _, err := f.store.CreateEntry(ctx, n)
				if err != nil {
					t.Error(err)
					return
				}
				// Act on somebody's entry: the latest ones of the calendar.
				es, err := f.store.EntriesReaching(ctx, calendar.ReadScope{}, shared, now.Add(-72*time.Hour), now.Add(30*24*time.Hour))
				if err != nil || len(es) == 0 {
					continue
				}
				x := es[rng.IntN(len(es))]
				switch {
				case x.Kind == calendar.KindTask && i%2 == 0:
					_, _, err = f.store.SetTaskCompleted(ctx, x.Key(), x.Version, !x.Completed)
				case i%5 == 1:
					_, _, err = f.store.MoveEntry(ctx, x.Key(), x.Version, other.ID)
				case i%4 == 2:
					err = f.store.DeleteEntry(ctx, x.Key(), x.Version)
				default:
					err = f.store.DeleteEntry(ctx, e.Key(), e.Version)
				}
				if err != nil && calendar.ErrorCode(err) != calendar.CodeVersionConflict && calendar.ErrorCode(err) != calendar.CodeNotFound {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f.consistent() // every user's item against a recount
}

// TestStatsReadsSeeWholeWrites: an event moved back and forth between two
// days (each move takes 1 from one day's nodes and adds it to the other's)
// while she reads her stats: every read, taken whole between writes,
// counts it once.
func TestStatsReadsSeeWholeWrites(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	starts := []time.Time{tomorrow.Add(9*time.Hour + 7*time.Minute), tomorrow.Add(24*time.Hour + 15*time.Hour + 33*time.Minute)}
	timing := func(i int) calendar.Timing {
		return calendar.Timing{Timed: &calendar.TimedTiming{Start: starts[i%2], End: starts[i%2].Add(time.Hour), TimeZone: "UTC"}}
	}
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "moving", Timing: timing(0)})
	f.mustDo(err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := 1; i <= 60; i++ {
			if e, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Timing: calendar.Set(timing(i))}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	reads := 0
	for stop := false; !stop; reads++ {
		select {
		case <-done:
			stop = true
		default:
		}
		st, err := f.store.Stats(ada)
		if err != nil {
			t.Fatal(err)
		}
		if st.TotalEvents != 1 || st.UpcomingEvents != 1 {
			t.Fatalf("read %d counts %d events, %d upcoming, want 1 and 1", reads, st.TotalEvents, st.UpcomingEvents)
		}
	}
	wg.Wait()
}
