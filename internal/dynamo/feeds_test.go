package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestFeedTokens(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	for _, a := range r.actors(-1) {
		t.Run("rotate as "+a.name, func(t *testing.T) {
			_, err := f.store.RotateFeed(a.ctx, r.cal.ID)
			if a.want < 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, a.want)
		})
	}
	first, err := f.store.RotateFeed(r.owner, r.cal.ID)
	if err != nil {
		t.Fatal(err)
	}
	feed, err := f.store.Feed(context.Background(), first)
	if err != nil || feed.Calendar.ID != r.cal.ID {
		t.Fatalf("the feed: %+v, %v", feed, err)
	}
	second, err := f.store.RotateFeed(r.owner, r.cal.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.store.Feed(context.Background(), first)
	wantCode(t, err, calendar.CodeNotFound)
	if _, err := f.store.Feed(context.Background(), second); err != nil {
		t.Fatalf("the rotated token: %v", err)
	}
	for _, bad := range []string{"", "short", first + "x", calendar.NewFeedToken()} {
		_, err := f.store.Feed(context.Background(), bad)
		wantCode(t, err, calendar.CodeNotFound)
	}
	if n := f.countEntities(); n["FEED"] != 1 || n["FEED_TOKEN"] != 1 {
		t.Fatalf("feed items: %v, want one of each", n)
	}
	wantCode(t, f.store.DisableFeed(r.writer, r.cal.ID), calendar.CodeForbidden)
	if err := f.store.DisableFeed(r.owner, r.cal.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.Feed(context.Background(), second)
	wantCode(t, err, calendar.CodeNotFound)
	wantCode(t, f.store.DisableFeed(r.owner, r.cal.ID), calendar.CodeNotFound)

	third, err := f.store.RotateFeed(r.owner, r.cal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.DeleteCalendar(r.owner, r.cal.ID, r.cal.Version); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.Feed(context.Background(), third)
	wantCode(t, err, calendar.CodeNotFound)
	if n := f.countEntities(); n["FEED"]+n["FEED_TOKEN"] != 0 {
		t.Fatalf("feed items left after deleting the calendar: %v", n)
	}
}

// TestFeedContent checks a feed holds the calendar's single entries and
// series, and its series' current exceptions as their occurrences look.
func TestFeedContent(t *testing.T) {
	f := newFixture(t)
	ada, cal := syncSeries(f)
	view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	f.edit(ada, find(t, view, paris, "01-19 09:00"), calendar.ScopeAll, title("Weekly sync"))
	if _, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Trip", Timing: multiDay("2026-03-01", "2026-03-20")}); err != nil {
		t.Fatal(err)
	}
	token, err := f.store.RotateFeed(ada, cal.ID)
	if err != nil {
		t.Fatal(err)
	}
	feed, err := f.store.Feed(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	var entries, exceptions []string
	for _, e := range feed.Entries {
		entries = append(entries, e.Title)
	}
	for _, x := range feed.Exceptions {
		s := x.Title + " " + x.OriginalStart.Format("01-02")
		if x.Cancelled {
			s += " cancelled"
		}
		exceptions = append(exceptions, s)
	}
	slices.Sort(entries)
	if !slices.Equal(entries, []string{"Trip", "Weekly sync"}) {
		t.Fatalf("entries %q: want the series once and the trip once (not its pieces)", entries)
	}
	want := []string{"Sync (moved) 01-12", "Weekly sync 01-26 cancelled", "Sync with guests 02-09", "Weekly sync 02-16 cancelled"}
	if !slices.Equal(exceptions, want) {
		t.Fatalf("exceptions %q, want %q", exceptions, want)
	}
}
