package ical_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// service records what an import writes; it refuses titles in refuse with
// the given error.
type service struct {
	created []string
	refuse  map[string]error
	writes  []string
}

func (s *service) CreateEntry(_ context.Context, n calendar.NewEntry) (*calendar.Entry, *calendar.Calendar, error) {
	if err := s.refuse[n.Title]; err != nil {
		return nil, nil, err
	}
	s.created = append(s.created, n.Title)
	return &calendar.Entry{ID: n.Title, CalendarID: n.CalendarID, Title: n.Title, Version: 1}, &calendar.Calendar{ID: n.CalendarID}, nil
}

func (s *service) SetTaskCompleted(_ context.Context, k calendar.EntryKey, _ int, _ bool) (*calendar.Entry, *calendar.Calendar, error) {
	s.writes = append(s.writes, "complete "+k.EntryID)
	return &calendar.Entry{ID: k.EntryID, CalendarID: k.CalendarID, Version: 2, Completed: true}, &calendar.Calendar{ID: k.CalendarID}, nil
}

func (s *service) UpdateOccurrence(_ context.Context, k calendar.OccurrenceKey, _ calendar.Scope, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error) {
	if u.ExpectedVersion != 1 {
		return nil, nil, calendar.Errorf(calendar.CodeVersionConflict, "stale")
	}
	s.writes = append(s.writes, "change "+k.SeriesID+" "+k.OriginalStart.Format(time.DateOnly))
	return &calendar.Entry{}, &calendar.Calendar{ID: k.CalendarID}, nil
}

func (s *service) DeleteOccurrence(_ context.Context, k calendar.OccurrenceKey, _ calendar.Scope, _ int) error {
	if k.OriginalStart.Day() == 31 {
		return calendar.Errorf(calendar.CodeNotFound, "occurrence not found")
	}
	s.writes = append(s.writes, "cancel "+k.SeriesID+" "+k.OriginalStart.Format(time.DateOnly))
	return nil
}

// ChangeAttendees records each delta's emails and answers; an email in
// refuse fails the import's store.
func (s *service) ChangeAttendees(_ context.Context, d calendar.AttendeeDelta) (*calendar.Entry, error) {
	w := "invite " + d.Key.EntryID
	for _, a := range d.Add {
		if err := s.refuse[a.Email]; err != nil {
			return nil, err
		}
		w += fmt.Sprintf(" %s:%s:%q:%v:%d", a.Email, a.Response, a.DisplayName, a.Optional, a.AdditionalGuests)
		for _, o := range a.Occurrences {
			w += fmt.Sprintf("+%s=%s", o.Key.From.Format(time.RFC3339), o.Response)
		}
	}
	s.writes = append(s.writes, w)
	return &calendar.Entry{ID: d.Key.EntryID, CalendarID: d.Key.CalendarID, Version: 1}, nil
}

// UpdateEntry hands an entry over to an organizer whose email ends in
// "@calgraph.test", the calgraph users here; others are NOT_FOUND.
func (s *service) UpdateEntry(_ context.Context, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error) {
	if !strings.HasSuffix(u.OrganizerEmail.Value, "@calgraph.test") || u.ExpectedVersion != 1 {
		return nil, nil, calendar.Errorf(calendar.CodeNotFound, "no user has the email %s", u.OrganizerEmail.Value)
	}
	s.writes = append(s.writes, "organizer "+u.Key.EntryID+" "+u.OrganizerEmail.Value)
	return &calendar.Entry{ID: u.Key.EntryID, CalendarID: u.Key.CalendarID, Version: 2}, &calendar.Calendar{ID: u.Key.CalendarID}, nil
}

func TestApply(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	imp := &ical.Import{
		Items: []ical.Item{
			{Index: 0, UID: "a", Entry: calendar.NewEntry{Title: "bad"}},
			{Index: 1, UID: "b", Entry: calendar.NewEntry{Title: "series"}, Exceptions: []ical.Exception{
				{Index: 2, OriginalStart: day(5), Update: calendar.EntryUpdate{Title: calendar.Set("x")}},
				{Index: 3, OriginalStart: day(6), Cancelled: true},
				{Index: 4, OriginalStart: day(31), Cancelled: true},
			}},
			{Index: 5, UID: "c", Entry: calendar.NewEntry{Title: "task"}, Completed: true},
		},
		Errors: []ical.ItemError{{Index: 6, UID: "d", Message: "unreadable", Code: calendar.CodeInvalid}},
	}
	svc := &service{refuse: map[string]error{"bad": calendar.Invalidf("title", "too long")}}
	rep, err := ical.Apply(context.Background(), svc, "cal", imp)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Created) != 2 || rep.Created[1].Completed != true {
		t.Fatalf("created %+v", rep.Created)
	}
	want := []string{"change series 2026-01-05", "cancel series 2026-01-06", "complete task"}
	if len(svc.writes) != len(want) {
		t.Fatalf("writes %q, want %q", svc.writes, want)
	}
	var got []int
	for _, e := range rep.Errors {
		got = append(got, e.Index)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 4 || got[2] != 6 || rep.Errors[0].Message != "title: too long" || rep.Errors[1].Code != calendar.CodeNotFound {
		t.Fatalf("errors %+v", rep.Errors)
	}

	// A failure of the store stops the import, with what it created so far.
	svc = &service{refuse: map[string]error{"task": errors.New("DynamoDB unreachable")}}
	rep, err = ical.Apply(context.Background(), svc, "cal", imp)
	if err == nil || len(rep.Created) != 2 || rep.Created[1].Title != "series" {
		t.Fatalf("a store failure: %v, created %+v", err, rep.Created)
	}
	// The calendar not found stops it at once.
	svc = &service{refuse: map[string]error{"bad": calendar.Errorf(calendar.CodeNotFound, "calendar not found")}}
	if rep, err = ical.Apply(context.Background(), svc, "cal", imp); calendar.ErrorCode(err) != calendar.CodeNotFound || len(rep.Created) != 0 {
		t.Fatalf("a missing calendar: %v, created %+v", err, rep.Created)
	}
}

// TestApplyReportsPartialImports: a component imported without some of its
// properties is reported as imported in part only when it was imported; one
// the store refused, or that a failure left unwritten, was not imported at
// all and is reported so.
func TestApplyReportsPartialImports(t *testing.T) {
	note := func(i int) ical.ItemError {
		return ical.ItemError{Index: i, UID: string(rune('a' + i)), Code: calendar.CodeInvalid, Imported: true,
			Message: "imported without ATTENDEE: calgraph keeps attendees on single events only"}
	}
	imp := &ical.Import{
		Items: []ical.Item{
			{Index: 0, UID: "a", Entry: calendar.NewEntry{Title: "refused"}},
			{Index: 1, UID: "b", Entry: calendar.NewEntry{Title: "kept"}},
			{Index: 2, UID: "c", Entry: calendar.NewEntry{Title: "never reached"}},
		},
		Errors: []ical.ItemError{note(0), note(1), note(2)},
	}
	svc := &service{refuse: map[string]error{"refused": calendar.Invalidf("title", "too long"), "never reached": errors.New("DynamoDB unreachable")}}
	rep, err := ical.Apply(context.Background(), svc, "cal", imp)
	if err == nil {
		t.Fatal("want the store's failure")
	}
	want := []ical.ItemError{{Index: 0, UID: "a", Message: "title: too long", Code: calendar.CodeInvalid}, note(1)}
	if !slices.Equal(rep.Errors, want) {
		t.Errorf("errors\n%+v\nwant\n%+v", rep.Errors, want)
	}
}
