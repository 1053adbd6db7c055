package dynamo_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// afterFirstPages returns a client option that calls meanwhile after each
// first page of a Query of LSI1 (a range read's entries) comes back, while
// meanwhile returns true: a write landing between that page and the next.
// When the calendar holds series (withSeries), meanwhile waits for the
// read's Query of them (LSI2) to come back too, so that the write lands
// between the two.
func afterFirstPages(withSeries bool, meanwhile func() bool) func(*dynamodb.Options) {
	var done atomic.Bool
	seriesRead := make(chan struct{}, 1)
	hook := middleware.InitializeMiddlewareFunc("meanwhile", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		q, ok := in.Parameters.(*dynamodb.QueryInput)
		switch {
		case err != nil || !ok || done.Load():
		case aws.ToString(q.IndexName) == "LSI2":
			seriesRead <- struct{}{}
		case aws.ToString(q.IndexName) == "LSI1" && q.ExclusiveStartKey == nil:
			if withSeries {
				<-seriesRead
			}
			done.Store(!meanwhile())
		}
		return out, md, err
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(hook, middleware.After) })
	}
}

// splitFixture is a calendar of fillers (two pages of a range Query) and an
// entry late in the week, with a reader on its own client whose range reads
// see meanwhile run after their entries' first page.
type splitFixture struct {
	*fixture
	ada    context.Context
	cal    *calendar.Calendar
	moved  *calendar.Entry
	reader *dynamo.Store
}

func newSplitFixture(t *testing.T, withSeries bool, meanwhile func(sf *splitFixture) bool) *splitFixture {
	t.Helper()
	sf := &splitFixture{fixture: newFixture(t)}
	sf.ada = sf.user("ada@example.com")
	sf.cal = sf.calendarOf(sf.ada, "Busy")
	sf.fill(sf.ada, sf.cal.ID, fillers)
	if withSeries { // its reads then take two calls however many pages
		sf.series(sf.ada, sf.cal.ID, "weekly", timed("2026-11-02T12:00:00Z", "2026-11-02T13:00:00Z", "UTC"), "FREQ=WEEKLY")
	}
	sf.moved = sf.entryAt(time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC))
	db := dynamotest.Client(t, afterFirstPages(withSeries, func() bool { return meanwhile(sf) }))
	sf.reader = dynamo.New(db, sf.store.Table(), engine)
	dynamo.SetViewCacheSettle(sf.reader, 0, time.Now)
	return sf
}

// entryAt creates the entry that moves, or moves it, to start at start.
func (sf *splitFixture) entryAt(start time.Time) *calendar.Entry {
	sf.t.Helper()
	timing := calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}}
	var err error
	if sf.moved == nil {
		sf.moved, _, err = sf.store.CreateEntry(sf.ada, calendar.NewEntry{CalendarID: sf.cal.ID, Title: "moved", Timing: timing})
	} else {
		sf.moved, _, err = sf.store.UpdateEntry(sf.ada, calendar.EntryUpdate{Key: sf.moved.Key(), ExpectedVersion: sf.moved.Version, Timing: calendar.Set(timing)})
	}
	if err != nil {
		sf.t.Fatal(err)
	}
	return sf.moved
}

// view reads the week as a request would: the calendar first, then its range.
func (sf *splitFixture) view() (*calendar.Calendar, []*calendar.Entry, error) {
	sf.t.Helper()
	ctx := context.Background()
	found, err := sf.reader.Read(ctx, calendar.Keys{Calendars: []string{sf.cal.ID}})
	if err != nil {
		sf.t.Fatal(err)
	}
	cal := found.Calendars[sf.cal.ID]
	from, to := fracturedWeek.Window()
	es, err := sf.reader.EntriesReaching(ctx, queryScope(), cal, from, to)
	return cal, es, err
}

// starts returns the starts at which entries with id show among es.
func starts(es []*calendar.Entry, id string) []time.Time {
	var out []time.Time
	for _, e := range es {
		if e.ID == id {
			out = append(out, e.Start)
		}
	}
	return out
}

// TestRangeReadSplitByAWrite moves an entry from the end of the week to its
// start between the two pages of a range read's entries: the read shows it
// once, where it went, and the view cache keeps the read under the
// calendar's new revision only.
func TestRangeReadSplitByAWrite(t *testing.T) {
	early := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	sf := newSplitFixture(t, false, func(sf *splitFixture) bool {
		sf.entryAt(early)
		return false
	})
	cal, es, err := sf.view()
	if err != nil {
		t.Fatal(err)
	}
	if got := starts(es, sf.moved.ID); len(got) != 1 || !got[0].Equal(early) {
		t.Fatalf("the moved entry shows at %v, want once at %v", got, early)
	}
	from, to := fracturedWeek.Window()
	ctx := context.Background()
	if _, ok := sf.reader.CachedEntriesReaching(ctx, queryScope(), cal, from, to); ok {
		t.Error("the split read is cached under the revision its calendar was read at")
	}
	now, err := sf.reader.Read(ctx, calendar.Keys{Calendars: []string{cal.ID}})
	if err != nil {
		t.Fatal(err)
	}
	cached, ok := sf.reader.CachedEntriesReaching(ctx, queryScope(), now.Calendars[cal.ID], from, to)
	if got := starts(cached, sf.moved.ID); !ok || len(got) != 1 || !got[0].Equal(early) {
		t.Errorf("cached at the new revision: %v (held: %v), want the read again", got, ok)
	}
}

// TestRangeReadChangedAtEveryRead moves the entry during every read of a
// calendar holding a series (so that each read is two Queries, which the
// move can split): after dynamo.MaxRangeReads reads the range is refused
// with CodeUnavailable, showing nothing.
func TestRangeReadChangedAtEveryRead(t *testing.T) {
	reads := 0
	sf := newSplitFixture(t, true, func(sf *splitFixture) bool {
		reads++
		sf.entryAt(time.Date(2026, 11, 23+reads%2*6, 1, 0, 0, 0, time.UTC))
		return true
	})
	_, es, err := sf.view()
	wantCode(t, err, calendar.CodeUnavailable)
	if es != nil || reads != dynamo.MaxRangeReads {
		t.Errorf("got %d entries after %d reads, want none after %d", len(es), reads, dynamo.MaxRangeReads)
	}
}

// TestRangeReadOfADeletedCalendar deletes the calendar while its range is
// read: the range shows nothing, as the calendar does not exist any more.
func TestRangeReadOfADeletedCalendar(t *testing.T) {
	sf := newSplitFixture(t, false, func(sf *splitFixture) bool {
		if err := sf.store.DeleteCalendar(sf.ada, sf.cal.ID, sf.cal.Version); err != nil {
			sf.t.Error(err)
		}
		return false
	})
	_, es, err := sf.view()
	if err != nil || len(es) != 0 {
		t.Errorf("got %d entries and %v, want none and no error", len(es), err)
	}
}

// TestRangeReadSplitBySeriesDeletion deletes a series after its master was
// read (LSI2) and before the page of the entries holding its exceptions, in
// one transaction or in steps (the master, then the exceptions): the read
// shows no occurrence of it, not the series without its exceptions (the
// cancelled 28th back, the 29th's title reverted).
func TestRangeReadSplitBySeriesDeletion(t *testing.T) {
	for _, inSteps := range []bool{false, true} {
		t.Run(fmt.Sprint("in steps ", inSteps), func(t *testing.T) { testSplitBySeriesDeletion(t, inSteps) })
	}
}

func testSplitBySeriesDeletion(t *testing.T, inSteps bool) {
	var series *calendar.Entry
	sf := newSplitFixture(t, true, func(sf *splitFixture) bool {
		if err := sf.store.DeleteOccurrence(sf.ada, calendar.OccurrenceKey{CalendarID: sf.cal.ID, SeriesID: series.ID},
			calendar.ScopeAll, series.Version); err != nil {
			sf.t.Error(err)
		}
		return false
	})
	if inSteps {
		dynamo.SetMaxSeriesActions(sf.store, 6) // fewer than the deletion's, room for its switch: see trash_steps.go
	}
	series = sf.series(sf.ada, sf.cal.ID, "standup", timed("2026-11-02T10:00:00Z", "2026-11-02T10:15:00Z", "UTC"), "FREQ=DAILY")
	// Late in the week, so in the entries' second page.
	sf.cancel(sf.ada, sf.occurrenceOn(series, 28), calendar.ScopeThis)
	sf.edit(sf.ada, sf.occurrenceOn(series, 29), calendar.ScopeThis, title("standup (moved)"))
	series.Version = sf.occurrenceOn(series, 24).Version // the master's, as exceptions leave it

	_, es, err := sf.view()
	if err != nil {
		t.Fatal(err)
	}
	rng, err := fracturedWeek.Resolve("UTC")
	if err != nil {
		t.Fatal(err)
	}
	x, err := calendar.Expand(engine, es, rng, false, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range x.Entries {
		if e.SeriesID == series.ID {
			t.Errorf("shown: %s on the %d, of a series deleted during the read", e.Title, e.Start.Day())
		}
	}
}

// occurrenceOn returns the series' occurrence on a day of November 2026.
func (sf *splitFixture) occurrenceOn(m *calendar.Entry, day int) *calendar.Entry {
	sf.t.Helper()
	s, err := sf.store.Series(sf.ada, m.Key())
	if err != nil {
		sf.t.Fatal(err)
	}
	occ, ok := s.Occurrence(engine, time.Date(2026, 11, day, 10, 0, 0, 0, time.UTC))
	if !ok {
		sf.t.Fatalf("no occurrence on the %d", day)
	}
	return occ
}
