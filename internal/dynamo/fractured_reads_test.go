package dynamo_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// The range reads of these tests run in a tight loop while one writer changes
// the calendar, each read as a view makes it (the calendar read strongly,
// then its range) on a store instance of its own, and a checker says whether
// what each read shows is a state of the calendar that existed: a range
// split by a write between its Queries or pages shows one that never did.

// fracturedWeek is the week the readers read: 23 to 30 November 2026, UTC.
var fracturedWeek = calendar.RangeSpec{FromDate: day("2026-11-23"), ToDate: day("2026-11-30"), TimeZone: "UTC"}

// fillers is how many single entries the week holds besides what the writer
// changes: more than a range Query's first page (40 items), so that the
// entries' Query takes two pages.
const fillers = 60

// fewFillers leave the week in one page: a read of one call, not checked.
const fewFillers = 6

// rangeReads is a loop of range reads, counted.
type rangeReads struct {
	reads, fractured, refused atomic.Int64
	until                     time.Time // when the writer stops waiting for reads (busy)
	mu                        sync.Mutex
	samples                   []string
}

// fracture records a read that showed a state that never existed.
func (r *rangeReads) fracture(format string, args ...any) {
	r.fractured.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.samples) < 5 {
		r.samples = append(r.samples, fmt.Sprintf(format, args...))
	}
}

// loop reads the week of cal in two goroutines until done is closed, as a
// view does: the calendar strongly (as the authorization does), then its
// range, which check judges. A refusal (CodeUnavailable: the calendar kept
// changing while it was read) is counted, not judged.
func (r *rangeReads) loop(t *testing.T, reader *dynamo.Store, cal string, done <-chan struct{},
	check func(shown []*calendar.Entry, before map[string]bool), complete func() map[string]bool) *sync.WaitGroup {
	t.Helper()
	from, to := fracturedWeek.Window()
	rng, err := fracturedWeek.Resolve("UTC")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				before := complete()
				// A query's scope, as the server makes it: a budget of
				// reads (so pages are bounded, see pageReserve) and a request
				// that may be served from the view cache.
				ctx := context.Background()
				found, err := reader.Read(ctx, calendar.Keys{Calendars: []string{cal}})
				if err != nil {
					t.Errorf("read calendar: %v", err)
					return
				}
				candidates, err := reader.EntriesReaching(ctx, queryScope(), found.Calendars[cal], from, to)
				r.reads.Add(1)
				if calendar.ErrorCode(err) == calendar.CodeUnavailable {
					r.refused.Add(1)
					continue
				}
				if err != nil {
					t.Errorf("read range: %v", err)
					return
				}
				x, err := calendar.Expand(engine, candidates, rng, false, calendar.MaxOccurrencesPerRequest)
				if err != nil {
					t.Errorf("expand: %v", err)
					return
				}
				check(calendar.Select(x.Entries, rng, calendar.Filter{}), before)
			}
		}()
	}
	return &wg
}

// minReads is how many reads a loop makes at least beside its writer.
const minReads = 30

// busy reports whether the writer goes on: while it has work left, and
// then until the readers made minReads reads (a starved machine may run
// few beside the writer's first steps), for a minute at most.
func (r *rangeReads) busy(more bool) bool {
	if r.until.IsZero() {
		r.until = time.Now().Add(time.Minute)
	}
	return more || r.reads.Load() < minReads && time.Now().Before(r.until)
}

// report logs the loop's counts and fails the test for each fractured read.
func (r *rangeReads) report(t *testing.T, what string) {
	t.Helper()
	n, bad, refused := r.reads.Load(), r.fractured.Load(), r.refused.Load()
	t.Logf("%s on the %s: %d reads, %d fractured (%.1f%%), %d refused", what, dynamotest.EngineName(), n, bad, 100*float64(bad)/float64(max(n, 1)), refused)
	if bad > 0 {
		t.Errorf("%d of %d reads showed a state that never existed, e.g.:\n%s", bad, n, joinLines(r.samples))
	}
	if n < minReads {
		t.Errorf("only %d reads ran beside the writer: the test proves little", n)
	}
}

func joinLines(lines []string) string {
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}

// readerStore is another instance on f's table, with or without a view cache
// (one that caches a read at once, without waiting for a revision to settle:
// the engines tests run on apply a transaction at once).
func readerStore(f *fixture, cache bool) *dynamo.Store {
	if !cache {
		return dynamo.New(f.db, f.store.Table(), engine, dynamo.WithViewCache(0))
	}
	s := dynamo.New(f.db, f.store.Table(), engine)
	dynamo.SetViewCacheSettle(s, 0, time.Now)
	return s
}

// fill writes the week's n filler entries.
func (f *fixture) fill(ctx context.Context, cal string, n int) {
	f.t.Helper()
	for i := range n {
		start := time.Date(2026, 11, 23+i%7, 7+i/7, 0, 0, 0, time.UTC)
		if _, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: fmt.Sprint("filler ", i),
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(30 * time.Minute)}}}); err != nil {
			f.t.Fatal(err)
		}
	}
}

// TestRangeReadsShowStatesThatExisted reads a week in a tight loop while an
// entry's start moves earlier and back (it must show exactly once; in a
// week of two pages, and of one), and while a series with exceptions is made
// and deleted, in one transaction or in steps (a series complete before a
// read began must show with all its exceptions or not at all), with and
// without the view cache. With -short the writer makes fewer changes (12
// moves, 3 series), the readers as many reads (minReads) at least.
func TestRangeReadsShowStatesThatExisted(t *testing.T) {
	t.Parallel() // a table of its own; seconds of writes, which overlap with other tests' waits
	for _, cache := range []bool{false, true} {
		name := map[bool]string{false: "cache off", true: "cache on"}[cache]
		t.Run("start moved earlier/"+name, func(t *testing.T) { testMovedStart(t, cache, fillers) })
		t.Run("start moved earlier, one page/"+name, func(t *testing.T) { testMovedStart(t, cache, fewFillers) })
		t.Run("series deleted/"+name, func(t *testing.T) { testDeletedSeries(t, cache, false) })
		t.Run("series deleted in steps/"+name, func(t *testing.T) { testDeletedSeries(t, cache, true) })
	}
}

func testMovedStart(t *testing.T, cache bool, fillers int) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Busy")
	f.fill(ada, cal.ID, fillers)
	late, early := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	moved, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "moved",
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: late, End: late.Add(time.Hour)}}})
	if err != nil {
		t.Fatal(err)
	}
	var reads rangeReads
	done := make(chan struct{})
	id := moved.ID // the writer changes moved
	wg := reads.loop(t, readerStore(f, cache), cal.ID, done, func(shown []*calendar.Entry, _ map[string]bool) {
		n := 0
		for _, e := range shown {
			if e.ID == id {
				n++
			}
		}
		if n != 1 {
			reads.fracture("the moved entry shown %d times among %d entries", n, len(shown))
		}
	}, func() map[string]bool { return nil })
	moves := 40
	if testing.Short() {
		moves = 12 // and still at least minReads reads beside the writer
	}
	i := 0
	for ; reads.busy(i < moves); i++ {
		start := early // earlier, then back
		if i%2 == 1 {
			start = late
		}
		moved, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: moved.Key(), ExpectedVersion: moved.Version,
			Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}})})
		if err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	reads.report(t, fmt.Sprintf("%d moves", i))
}

// standupExceptions are the exceptions the writer gives each series it makes
// (a daily 10:00 UTC standup), in the week read: cancellations (empty) and
// new titles, by day of November.
var standupExceptions = []struct {
	day   int
	title string
}{{23, ""}, {24, "standup (edited)"}, {25, ""}, {26, "standup (moved)"}, {27, ""}}

// completeStandup is what the week shows of a series with all its
// exceptions.
var completeStandup = []string{"24 standup (edited)", "26 standup (moved)", "28 standup", "29 standup"}

func testDeletedSeries(t *testing.T, cache, inSteps bool) {
	f := newFixture(t)
	if inSteps {
		// More exceptions than one transaction holds: the deletion deletes
		// the master (its switch: trash_steps.go), then the exceptions left behind.
		dynamo.SetMaxSeriesActions(f.store, 6)
	}
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Team")
	f.fill(ada, cal.ID, fillers)
	var mu sync.Mutex
	complete := map[string]bool{} // series that held all their exceptions
	var reads rangeReads
	done := make(chan struct{})
	wg := reads.loop(t, readerStore(f, cache), cal.ID, done, func(shown []*calendar.Entry, before map[string]bool) {
		bySeries := map[string][]string{}
		for _, e := range shown {
			if e.SeriesID != "" {
				bySeries[e.SeriesID] = append(bySeries[e.SeriesID], fmt.Sprintf("%d %s", e.Start.Day(), e.Title))
			}
		}
		for id, got := range bySeries {
			if before[id] && !slices.Equal(got, completeStandup) {
				reads.fracture("series %s, complete before the read, shown as %q", id, got)
			}
		}
	}, func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(complete)
	})
	cycles := 8
	if testing.Short() {
		cycles = 3 // and still at least minReads reads beside the writer
	}
	i := 0
	for ; reads.busy(i < cycles); i++ {
		id, err := makeStandup(f, ada, cal.ID)
		if err != nil {
			t.Error(err)
			break
		}
		mu.Lock()
		complete[id] = true
		mu.Unlock()
		s, err := f.store.Series(ada, calendar.EntryKey{CalendarID: cal.ID, EntryID: id})
		if err == nil {
			err = f.store.DeleteOccurrence(ada, calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: id}, calendar.ScopeAll, s.Master.Version)
		}
		if err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	reads.report(t, fmt.Sprintf("%d series made and deleted", i))
	if n := f.countEntities()["EXCEPTION"]; n != 0 {
		t.Errorf("%d exceptions left behind", n)
	}
}

// makeStandup makes a daily standup series with standupExceptions and returns
// its ID.
func makeStandup(f *fixture, ctx context.Context, cal string) (string, error) {
	first := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	m, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal, Title: "standup",
		Timing:     calendar.Timing{Timed: &calendar.TimedTiming{Start: first, End: first.Add(15 * time.Minute)}},
		Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY"}})
	if err != nil {
		return "", err
	}
	for _, x := range standupExceptions {
		key := calendar.OccurrenceKey{CalendarID: cal, SeriesID: m.ID, OriginalStart: time.Date(2026, 11, x.day, 10, 0, 0, 0, time.UTC)}
		s, err := f.store.Series(ctx, calendar.EntryKey{CalendarID: cal, EntryID: m.ID})
		if err != nil {
			return "", err
		}
		occ, ok := s.Occurrence(engine, key.OriginalStart)
		if !ok {
			return "", fmt.Errorf("no occurrence at %s", key.OriginalStart)
		}
		if x.title == "" {
			err = f.store.DeleteOccurrence(ctx, key, calendar.ScopeThis, occ.Version)
		} else {
			_, _, err = f.store.UpdateOccurrence(ctx, key, calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: occ.Version, Title: calendar.Set(x.title)})
		}
		if err != nil {
			return "", fmt.Errorf("exception on the %d: %w", x.day, err)
		}
	}
	return m.ID, nil
}
