package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// found returns the titles a search finds, best first (all of its pages).
// It fails the test with Errorf, since writers' goroutines call it too.
func found(t *testing.T, s *dynamo.Store, ctx context.Context, q calendar.SearchQuery) []string {
	t.Helper()
	var titles []string
	q.Page.First = calendar.MaxPageSize
	for {
		p, err := s.Search(ctx, q)
		if err != nil {
			t.Errorf("search %q: %v", q.Text, err)
			return titles
		}
		for _, h := range p.Hits {
			titles = append(titles, h.Entry.Title)
		}
		if !p.HasNextPage {
			return titles
		}
		q.Page.After = p.EndCursor
	}
}

func text(q string) calendar.SearchQuery {
	return calendar.SearchQuery{Text: q, Page: calendar.Page{First: calendar.DefaultPageSize}}
}

// soon is a timing d days from now at a whole hour, so that a series'
// next occurrence is within the search's lookahead.
func soon(d int) calendar.Timing {
	start := time.Now().UTC().Truncate(time.Hour).Add(time.Duration(d) * 24 * time.Hour)
	return calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}
}

// TestSearchFindsEachWrite writes on one store and searches on it and on a
// second store of the same table (another instance, whose indexes were
// built before the writes), after each write: what a write acknowledged is
// found (or gone) at once on both.
func TestSearchFindsEachWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := dynamo.New(f.db, f.store.Table(), recurrence.Engine{})
	ada := f.user("ada@example.com")
	home, work := f.calendarOf(ada, "Home"), f.calendarOf(ada, "Work")
	want := func(step, q string, titles ...string) {
		t.Helper()
		for i, s := range []*dynamo.Store{f.store, other} {
			if got := found(t, s, ada, text(q)); !slices.Equal(got, titles) {
				t.Errorf("after %s, store %d finds %q for %q, want %q", step, i, got, q, titles)
			}
		}
	}
	want("nothing", "dentist")

	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: home.ID, Title: "Zahnarzt", Description: "Dr. Müller, dentist", Timing: soon(3)})
	f.mustDo(err)
	want("create", "dentist", "Zahnarzt")
	want("create", "MULLER zahn", "Zahnarzt")

	e, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Description: calendar.Set("Dr. Weiß")})
	f.mustDo(err)
	want("update", "dentist")
	want("update", "weiss", "Zahnarzt")

	e, _, err = f.store.MoveEntry(ada, e.Key(), e.Version, work.ID)
	f.mustDo(err)
	want("move", "zahnarzt", "Zahnarzt")
	if got := found(t, other, ada, calendar.SearchQuery{Text: "zahnarzt", CalendarIDs: []string{home.ID}}); len(got) != 0 {
		t.Errorf("after the move, Home still finds %q", got)
	}

	f.mustDo(f.store.DeleteEntry(ada, e.Key(), e.Version))
	want("delete", "zahnarzt")

	series, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: home.ID, Title: "Standup", Location: "Salle Été",
		Timing: soon(1), Recurrence: &calendar.Recurrence{Rule: "FREQ=DAILY;COUNT=30"}})
	f.mustDo(err)
	want("series create", "ete standup", "Standup")

	// An exception's title counts: the series shows at that occurrence.
	occ := series.OccurrenceAt(series.Start.Add(48 * time.Hour))
	f.edit(ada, occ, calendar.ScopeThis, title("Retro"))
	want("exception", "retro", "Retro")
	want("exception", "standup", "Standup")

	p, err := other.Search(ada, text("retro"))
	f.mustDo(err)
	if got := p.Hits[0].Entry.Start; !got.Equal(occ.Start) {
		t.Errorf("the series shows at %s, want its retitled occurrence at %s", got, occ.Start)
	}

	cur, err := f.store.Series(ada, series.Key())
	f.mustDo(err)
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: series.Key(), ExpectedVersion: cur.Master.Version, Title: calendar.Set("Daily sync")})
	f.mustDo(err)
	want("series edit", "standup")
	want("series edit", "daily", "Daily sync")
}

// TestSearchReach: a FREE_BUSY member finds nothing of a calendar and may
// not name it; a reader never matches a PRIVATE entry's words, a writer and
// its organizer do.
func TestSearchReach(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, bob, cy, di := f.user("ada@example.com"), f.user("bob@example.com"), f.user("cy@example.com"), f.user("di@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	f.share(ada, cal, cy, "cy@example.com", calendar.RoleFreeBusy)
	f.share(ada, cal, di, "di@example.com", calendar.RoleWriter)
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Offsite planning", Timing: soon(2)})
	f.mustDo(err)
	_, _, err = f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Offsite salaries", Timing: soon(2), Visibility: calendar.VisibilityPrivate})
	f.mustDo(err)

	for _, tc := range []struct {
		who  string
		ctx  context.Context
		want []string
	}{
		{"owner", ada, []string{"Offsite planning", "Offsite salaries"}},
		{"writer", di, []string{"Offsite planning", "Offsite salaries"}},
		{"reader", bob, []string{"Offsite planning"}},
		{"free/busy", cy, nil},
	} {
		got := found(t, f.store, tc.ctx, text("offsite"))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s finds %q, want %q", tc.who, got, tc.want)
		}
	}
	if got := found(t, f.store, bob, text("salaries")); len(got) != 0 {
		t.Errorf("a reader finds the private entry's words: %q", got)
	}
	_, err = f.store.Search(cy, calendar.SearchQuery{Text: "offsite", CalendarIDs: []string{cal.ID}, Page: calendar.Page{First: 10}})
	wantField(t, err, "calendarIds")
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var de *calendar.Error
	if !errors.As(err, &de) || de.Code != calendar.CodeInvalid || de.Field != field {
		t.Fatalf("got %v, want CodeInvalid on %s", err, field)
	}
}

// TestSearchRefusals: bad input fails on its field, and but for an
// unknown calendar (which takes the membership read to tell) before any
// read.
func TestSearchRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := &dynamo.Recorder{}
	s := dynamo.New(dynamotest.Client(t, dynamo.WithRecorder(rec)), f.store.Table(), recurrence.Engine{})
	ada := f.user("ada@example.com")
	f.calendarOf(ada, "Home")
	ok := calendar.SearchQuery{Text: "x", Page: calendar.Page{First: 10}}
	with := func(change func(*calendar.SearchQuery)) calendar.SearchQuery { q := ok; change(&q); return q }
	p, err := s.Search(ada, ok)
	f.mustDo(err)
	if len(p.Hits) != 0 || len(rec.Calls()) == 0 {
		t.Fatalf("an empty calendar finds %d hits in %d calls", len(p.Hits), len(rec.Calls()))
	}
	otherCursor := "czEuMS5mb28" // "s1.1.foo"
	for _, tc := range []struct {
		name  string
		q     calendar.SearchQuery
		field string
	}{
		{"10 KB", with(func(q *calendar.SearchQuery) { q.Text = strings.Repeat("word ", 2048) }), "query"},
		{"empty", with(func(q *calendar.SearchQuery) { q.Text = "" }), "query"},
		{"no words", with(func(q *calendar.SearchQuery) { q.Text = "🎉 -- !" }), "query"},
		{"nine words", with(func(q *calendar.SearchQuery) { q.Text = "a1 b2 c3 d4 e5 f6 g7 h8 i9" }), "query"},
		{"first 0", with(func(q *calendar.SearchQuery) { q.Page.First = 0 }), "first"},
		{"first 101", with(func(q *calendar.SearchQuery) { q.Page.First = 101 }), "first"},
		{"garbage cursor", with(func(q *calendar.SearchQuery) { q.Page.After = "%%%" }), "after"},
		{"another search's cursor", with(func(q *calendar.SearchQuery) { q.Page.After = otherCursor }), "after"},
		{"bad calendar ID", with(func(q *calendar.SearchQuery) { q.CalendarIDs = []string{"nope"} }), "calendarIds"},
		{"unknown calendar", with(func(q *calendar.SearchQuery) { q.CalendarIDs = []string{"00000000-0000-7000-8000-000000000000"} }), "calendarIds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Reset()
			_, err := s.Search(ada, tc.q)
			wantField(t, err, tc.field)
			if calls := rec.Calls(); len(calls) > 0 && tc.name != "unknown calendar" {
				t.Errorf("%d calls after validation, want none", len(calls))
			}
		})
	}
}

// TestSearchConcurrent: writers on two instances each create entries and
// rename them, and after each acknowledged write search for it on the other
// instance, while others search the same calendar: every write is found at
// once, its old title gone (run it under -race).
func TestSearchConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stores := []*dynamo.Store{f.store, dynamo.New(f.db, f.store.Table(), recurrence.Engine{})}
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Busy")
	var wg sync.WaitGroup
	done := make(chan struct{})
	for i := range 2 {
		wg.Go(func() { // searchers, keeping the indexes under load
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := stores[i].Search(ada, text("word")); err != nil {
					t.Errorf("search: %v", err)
					return
				}
			}
		})
	}
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Go(func() {
			write, read := stores[w%2], stores[(w+1)%2]
			for n := range 6 {
				word := fmt.Sprintf("word%dx%d", w, n)
				e, _, err := write.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: word, Timing: soon(1)})
				if err != nil {
					t.Errorf("create: %v", err)
					return
				}
				if got := found(t, read, ada, text(word)); !slices.Equal(got, []string{word}) {
					t.Errorf("right after its create, %s finds %q", word, got)
				}
				renamed := "re" + word
				if _, _, err := write.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Title: calendar.Set(renamed)}); err != nil {
					t.Errorf("update: %v", err)
					return
				}
				if got := found(t, read, ada, text(word)); len(got) != 0 {
					t.Errorf("right after its rename, %s still finds %q", word, got)
				}
				if got := found(t, read, ada, text(renamed)); !slices.Equal(got, []string{renamed}) {
					t.Errorf("right after its rename, %s finds %q", renamed, got)
				}
			}
		})
	}
	writers.Wait()
	close(done)
	wg.Wait()
}
