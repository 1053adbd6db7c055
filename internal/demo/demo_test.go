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
	as := calendar.WithViewer(ctx, calendar.Viewer{ID: dev})
	ms, err := store.AllMembershipsOfUser(as, dev, 10)
	if err != nil {
		t.Fatal(err)
	}
	spec := calendar.RangeSpec{FromDate: calendar.Date{Year: 2026, Month: 11, Day: 16}, ToDate: calendar.Date{Year: 2026, Month: 11, Day: 23}}
	from, to := spec.Window()
	var standups []string
	for _, m := range ms {
		found, err := store.EntriesReaching(as, calendar.ReadScope{}, &calendar.Calendar{ID: m.CalendarID}, from, to)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := spec.Resolve("Europe/Paris")
		x, err := calendar.Expand(recurrence.Engine{}, found, r, false, calendar.MaxOccurrencesPerRequest)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range calendar.Select(x.Entries, r, calendar.Filter{Tags: []string{"work"}}) {
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

// TestSeedLeavesTheUsersOwnCalendarsAlone: a user who already made calendars
// named like the demo's ("Team", "Room 101", as the README's first session
// does) gets the demo calendars beside them, with their entries, and their
// own calendars gain no members and no entries.
func TestSeedLeavesTheUsersOwnCalendarsAlone(t *testing.T) {
	store, _ := dynamotest.Store(t)
	ctx := context.Background()
	dev, _, err := store.ResolveIdentity(ctx, calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: "dev@example.com"}, Email: "dev@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	as := calendar.WithViewer(ctx, calendar.Viewer{ID: dev})
	var own []string
	for _, name := range []string{"Team", "Room 101"} {
		c, _, err := store.CreateCalendar(as, calendar.NewCalendar{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		own = append(own, c.ID)
	}
	if n, err := demo.Seed(ctx, store, "test", time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)); err != nil || n != 3 {
		t.Fatalf("seed: %d calendars, %v; want the 3 demo calendars", n, err)
	}
	from, to := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range own {
		members, err := store.MembershipsOfCalendar(as, calendar.ReadScope{}, &calendar.Calendar{ID: id}, calendar.Page{First: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(members.Memberships) != 1 {
			t.Errorf("the user's own calendar %s has %d members after seeding, want only its owner", id, len(members.Memberships))
		}
		if found, err := store.EntriesReaching(as, calendar.ReadScope{}, &calendar.Calendar{ID: id}, from, to); err != nil || len(found) != 0 {
			t.Errorf("the user's own calendar %s has %d entries after seeding (%v), want none", id, len(found), err)
		}
	}
	ms, err := store.AllMembershipsOfUser(as, dev, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 5 {
		t.Fatalf("dev has %d calendars, want own 2 + demo 3 (Team, Personal, Room 101)", len(ms))
	}
}
