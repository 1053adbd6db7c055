package calendar

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTimeMoved(t *testing.T) {
	start := time.Date(2026, 3, 3, 15, 0, 0, 0, time.UTC)
	base := Entry{Title: "Standup", Start: start, End: start.Add(time.Hour), TimeZone: "Europe/Paris"}
	day, _ := ParseDate("d", "2026-03-03")
	next, _ := ParseDate("d", "2026-03-04")
	cases := []struct {
		name string
		edit func(e *Entry)
		want bool
	}{
		{"title", func(e *Entry) { e.Title = "Daily" }, false},
		{"description and place", func(e *Entry) { e.Description, e.Location = "notes", "Room 4" }, false},
		{"start", func(e *Entry) { e.Start = e.Start.Add(30 * time.Minute) }, true},
		{"end", func(e *Entry) { e.End = e.End.Add(30 * time.Minute) }, true},
		{"same instant, new zone", func(e *Entry) { e.TimeZone = "Africa/Lagos" }, false},
		{"same instant written in another zone", func(e *Entry) { e.Start = e.Start.In(time.FixedZone("x", 3600)) }, false},
		{"series, new zone", func(e *Entry) { e.TimeZone = "America/New_York"; e.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY"} }, true},
		{"to whole days", func(e *Entry) { e.Start, e.End, e.StartDate, e.EndDate = time.Time{}, time.Time{}, day, next }, true},
		{"made a series", func(e *Entry) { e.Recurrence = &Recurrence{Rule: "FREQ=DAILY"} }, true},
		{"series, new rule", func(e *Entry) { e.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY;BYDAY=WE"} }, true},
		{"series, an added date", func(e *Entry) {
			e.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY", RDates: []time.Time{start.Add(48 * time.Hour)}}
		}, true},
		{"series, an excluded date", func(e *Entry) {
			e.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY", ExDates: []time.Time{start.Add(7 * 24 * time.Hour)}}
		}, false},
		{"series, the same added date in another zone", func(e *Entry) {
			e.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY", RDates: []time.Time{start.Add(24 * time.Hour).In(time.FixedZone("x", 3600))}}
		}, false},
		{"series, title", func(e *Entry) { e.Title = "Daily" }, false},
	}
	for _, c := range cases {
		before := base
		if strings.HasPrefix(c.name, "series") {
			before.Recurrence = &Recurrence{Rule: "FREQ=WEEKLY"}
			if strings.Contains(c.name, "same added date") {
				before.Recurrence.RDates = []time.Time{start.Add(24 * time.Hour)}
			}
		}
		after := before
		c.edit(&after)
		if got := TimeMoved(&before, &after); got != c.want {
			t.Errorf("%s: TimeMoved = %v, want %v", c.name, got, c.want)
		}
	}
	a := Entry{StartDate: day, EndDate: next}
	b := a
	b.EndDate, _ = ParseDate("d", "2026-03-05")
	if !TimeMoved(&a, &b) {
		t.Error("a longer run of whole days should move the time")
	}
	b = a
	b.Title = "Offsite"
	if TimeMoved(&a, &b) {
		t.Error("a new title on whole days should not move the time")
	}
}

// TestAnswerAtEpoch: an answer reads as given while current, and as
// NEEDS_ACTION with nothing of the old answer once its entry's epoch moved
// past it; a reset counts every attendee as NEEDS_ACTION, empties the
// waitlist and keeps the tickets.
func TestAnswerAtEpoch(t *testing.T) {
	at := time.Date(2026, 3, 3, 15, 0, 0, 0, time.UTC)
	a := &Attendee{Email: "a@example.com", Response: ResponseAccepted, Comment: "yes", AdditionalGuests: 2,
		RespondedAt: at, ProposedStart: at, ProposedEnd: at.Add(time.Hour), Waitlisted: true, Ticket: 4, Version: 3, Epoch: 1}
	if got := a.At(1); got != a {
		t.Errorf("At its own epoch: %+v, want the answer itself", got)
	}
	got := a.At(2)
	want := Attendee{Email: "a@example.com", Response: ResponseNeedsAction, Version: 3, Epoch: 2}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("At a later epoch: %+v, want %+v", *got, want)
	}
	if a.Response != ResponseAccepted {
		t.Error("At changed the stored answer")
	}
	if (*Attendee)(nil).At(1) != nil {
		t.Error("a nil attendee reads as someone")
	}
	att := Attendance{Capacity: 5, Tickets: 4, Rev: 7, Epoch: 1,
		Summary: AttendeeSummary{NeedsAction: 1, Accepted: 2, AcceptedGuests: 3, Tentative: 1, Declined: 1, Waitlisted: 2}}
	r := att.ResetAnswers()
	if r.Summary != (AttendeeSummary{NeedsAction: 7}) || r.Epoch != 2 || r.Rev != 8 || r.Tickets != 4 || r.Capacity != 5 {
		t.Errorf("ResetAnswers: %+v", r)
	}
}
