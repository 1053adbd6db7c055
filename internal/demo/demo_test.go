package demo_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/demo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

func TestSeedShowsAWeekOfStandups(t *testing.T) {
	store, _ := dynamotest.Store(t)
	now := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC) // a Wednesday
	ctx := context.Background()
	if n, err := demo.Seed(ctx, store, "test", now); err != nil || n != 3 {
		t.Fatalf("seed: %d calendars, %v", n, err)
	}
	if n, err := demo.Seed(ctx, store, "test", now); err != nil || n != 0 {
		t.Fatalf("seed again: %d calendars, %v; want none", n, err)
	}
	dev, _, err := store.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: "dev@example.com"}, Email: "dev@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	as := calendar.WithViewer(ctx, dev)
	ms, err := store.AllMembershipsOfUser(as, dev, 10)
	if err != nil {
		t.Fatal(err)
	}
	spec := calendar.RangeSpec{FromDate: calendar.Date{Year: 2026, Month: 11, Day: 16}, ToDate: calendar.Date{Year: 2026, Month: 11, Day: 23}}
	from, to := spec.Window()
	var standups []string
	for _, m := range ms {
		found, err := store.EntriesReaching(as, m.CalendarID, from, to)
		if err != nil {
			t.Fatal(err)
		}
		found, _, err = calendar.Expand(recurrence.Engine{}, found, from, to, false, calendar.MaxOccurrencesPerRequest)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := spec.Resolve("Europe/Paris")
		for _, e := range calendar.Select(found, r, calendar.Filter{Tags: []string{"work"}}) {
			if e.IsOccurrence() {
				standups = append(standups, e.Title+" "+e.Start.In(r.Zone).Format("Mon 15:04"))
			}
		}
	}
	want := []string{"Standup Mon 09:00", "Standup Tue 09:00", "Standup (late start) Wed 10:00", "Standup Thu 09:00"}
	if !slices.Equal(standups, want) {
		t.Fatalf("standups %q, want %q", standups, want)
	}
}
