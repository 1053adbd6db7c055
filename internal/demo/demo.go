// Package demo loads a small demo data set through the domain services, so
// that a new user of calgraph has something to look at in GraphiQL.
package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Users are the demo users; dev tokens minted for these emails sign in as them.
var Users = []struct{ Email, Name string }{
	{"dev@example.com", "Dev Eloper"},
	{"alice@example.com", "Alice Liddell"},
	{"bob@example.com", "Bob Marley"},
}

type share struct {
	email string
	role  calendar.Role
}

// calendars are the demo calendars: their owner (an index into Users), the
// calendar, and who it is shared with. Their names say "demo", so that a
// calendar a user made themselves ("Team", say) is never taken for one.
var calendars = []struct {
	owner  int
	cal    calendar.NewCalendar
	shares []share
}{
	{0, calendar.NewCalendar{Name: "Team (demo)", Color: "#22C55E", Description: "Shared team calendar", TimeZone: "Europe/Paris"},
		[]share{{"alice@example.com", calendar.RoleWriter}, {"bob@example.com", calendar.RoleReader}}},
	{0, calendar.NewCalendar{Name: "Personal (demo)", Color: "#8B5CF6", TimeZone: "America/New_York"}, nil},
	{1, calendar.NewCalendar{Name: "Room 101 (demo)", Color: "#F97316", Description: "Meeting room, bookable", TimeZone: "Europe/Paris", IsResource: true},
		[]share{{"dev@example.com", calendar.RoleWriter}, {"bob@example.com", calendar.RoleWriter}}},
}

// Seed creates whatever part of the demo data is missing: the users (signed in
// with identity provider, the dev-token issuer, and their email as subject),
// each demo calendar its owner does not yet own under that name, with entries
// around the week of now, and each missing share. Running it again, or after a
// run that stopped halfway, completes the set without duplicating anything. It
// returns how many calendars it created.
func Seed(ctx context.Context, svc calendar.Service, provider string, now time.Time) (int, error) {
	as := make([]context.Context, len(Users))
	for i, u := range Users {
		identity := calendar.Identity{Provider: provider, Subject: u.Email}
		id, created, err := svc.ResolveIdentity(ctx, calendar.SignUp{Identity: identity, Email: u.Email, Name: u.Name})
		if err != nil {
			return 0, fmt.Errorf("seed user %s: %w", u.Email, err)
		}
		// The viewer a dev token minted for the email would sign in as; a
		// seed has no token, so no expiry.
		as[i] = calendar.WithViewer(ctx, calendar.Viewer{ID: id, Identity: identity, Email: u.Email, SignedUp: created})
	}
	created := 0
	for _, c := range calendars {
		owner := as[c.owner]
		id, isNew, err := ensureCalendar(owner, svc, c.cal)
		if err != nil {
			return created, fmt.Errorf("seed calendar %s: %w", c.cal.Name, err)
		}
		if isNew {
			created++
			if err := addEntries(owner, svc, id, c.cal.Name, now); err != nil {
				return created, fmt.Errorf("seed calendar %s: %w", c.cal.Name, err)
			}
		}
		for _, s := range c.shares {
			_, _, err := svc.AddMember(owner, id, s.email, s.role)
			if err != nil && calendar.ErrorCode(err) != calendar.CodeAlreadyExists {
				return created, fmt.Errorf("seed calendar %s: share with %s: %w", c.cal.Name, s.email, err)
			}
		}
	}
	return created, nil
}

// ensureCalendar returns the ID of the viewer's owned calendar with n's name,
// creating it when there is none.
func ensureCalendar(ctx context.Context, svc calendar.Service, n calendar.NewCalendar) (string, bool, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return "", false, err
	}
	for p := (calendar.Page{First: calendar.MaxPageSize}); ; {
		page, err := svc.MembershipsOfUser(ctx, viewer, p)
		if err != nil {
			return "", false, err
		}
		ids := make([]string, 0, len(page.Memberships))
		for _, m := range page.Memberships {
			if m.Role == calendar.RoleOwner {
				ids = append(ids, m.CalendarID)
			}
		}
		found, err := svc.Read(ctx, calendar.Keys{Calendars: ids})
		if err != nil {
			return "", false, err
		}
		for _, c := range found.Calendars {
			if c.Name == n.Name {
				return c.ID, false, nil
			}
		}
		if !page.HasNextPage {
			break
		}
		p.After = page.EndCursor
	}
	c, _, err := svc.CreateCalendar(ctx, n)
	if err != nil {
		return "", false, err
	}
	return c.ID, true, nil
}

// addEntries puts a few entries of every kind around the week of now on a
// newly created demo calendar.
func addEntries(ctx context.Context, svc calendar.Service, calendarID, name string, now time.Time) error {
	monday := calendar.DateOf(now).AddDays(-(int(now.Weekday()) + 6) % 7)
	at := func(days, hour int) time.Time {
		return monday.AddDays(days).In(time.UTC).Add(time.Duration(hour) * time.Hour)
	}
	date := func(days int) *calendar.Date { d := monday.AddDays(days); return &d }
	var entries []calendar.NewEntry
	switch name {
	case "Team (demo)":
		entries = append(entries,
			calendar.NewEntry{Title: "Team offsite", Location: "Lyon", Tags: []string{"work"}, Timing: calendar.Timing{AllDay: date(9)}},
			calendar.NewEntry{Title: "Conference", Timing: calendar.Timing{MultiDay: &calendar.DaySpan{Start: *date(2), End: *date(5)}}},
			calendar.NewEntry{Title: "Write the quarterly report", Timing: calendar.Timing{Task: &calendar.TaskDue{Date: date(4)}}})
	case "Personal (demo)":
		entries = append(entries,
			calendar.NewEntry{Title: "Pay the credit card", Timing: calendar.Timing{AllDay: lastOfMonthBefore(monday)},
				Recurrence: &calendar.Recurrence{Rule: "FREQ=MONTHLY;BYMONTHDAY=-1"}},
			calendar.NewEntry{Title: "Dentist", Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: at(1, 19), End: at(1, 20)}}},
			calendar.NewEntry{Title: "Pay rent", Timing: calendar.Timing{Task: &calendar.TaskDue{Date: date(3)}}})
	case "Room 101 (demo)":
		entries = append(entries, calendar.NewEntry{Title: "Design review", Timing: calendar.Timing{
			Timed: &calendar.TimedTiming{Start: at(2, 13), End: at(2, 15), TimeZone: "Europe/Paris"}}})
	}
	for _, n := range entries {
		n.CalendarID = calendarID
		if _, _, err := svc.CreateEntry(ctx, n); err != nil {
			return fmt.Errorf("entry %s: %w", n.Title, err)
		}
	}
	if name == "Team (demo)" {
		return addStandups(ctx, svc, calendarID, monday)
	}
	return nil
}

// addStandups adds the team's weekday standup, a series begun a year before
// the week of monday, with this week's Wednesday moved an hour later and its
// Friday cancelled.
func addStandups(ctx context.Context, svc calendar.Service, calendarID string, monday calendar.Date) error {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		return err
	}
	nine := func(d calendar.Date) time.Time { return time.Date(d.Year, d.Month, d.Day, 9, 0, 0, 0, paris).UTC() }
	first := monday.AddDays(-52 * 7)
	s, _, err := svc.CreateEntry(ctx, calendar.NewEntry{CalendarID: calendarID, Title: "Standup", Tags: []string{"work"},
		Timing:     calendar.Timing{Timed: &calendar.TimedTiming{Start: nine(first), End: nine(first).Add(15 * time.Minute), TimeZone: "Europe/Paris"}},
		Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}})
	if err != nil {
		return fmt.Errorf("standup series: %w", err)
	}
	occurrence := func(d calendar.Date) calendar.OccurrenceKey {
		return calendar.OccurrenceKey{CalendarID: calendarID, SeriesID: s.ID, OriginalStart: nine(d)}
	}
	late := nine(monday.AddDays(2)).Add(time.Hour)
	_, _, err = svc.UpdateOccurrence(ctx, occurrence(monday.AddDays(2)), calendar.ScopeThis, calendar.EntryUpdate{
		ExpectedVersion: s.Version, Title: calendar.Set("Standup (late start)"),
		Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: late, End: late.Add(15 * time.Minute), TimeZone: "Europe/Paris"}})})
	if err != nil {
		return fmt.Errorf("standup exception: %w", err)
	}
	if err := svc.DeleteOccurrence(ctx, occurrence(monday.AddDays(4)), calendar.ScopeThis, s.Version); err != nil {
		return fmt.Errorf("standup cancellation: %w", err)
	}
	return nil
}

// lastOfMonthBefore returns the last day of the month before d's.
func lastOfMonthBefore(d calendar.Date) *calendar.Date {
	last := calendar.Date{Year: d.Year, Month: d.Month, Day: 1}.AddDays(-1)
	return &last
}
