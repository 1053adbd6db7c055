package calendar

import (
	"strings"
	"testing"
	"time"
)

func TestAttendeeDeltaNormalize(t *testing.T) {
	many := make([]NewAttendee, MaxAttendeeDelta+1)
	for i := range many {
		many[i].Email = strings.Repeat("a", i+1) + "@example.com"
	}
	for _, tc := range []struct {
		name      string
		d         AttendeeDelta
		wantField string // "" for valid
	}{
		{"one added", AttendeeDelta{Add: []NewAttendee{{Email: " Ann@Example.com "}}}, ""},
		{"empty", AttendeeDelta{}, "add"},
		{"too many", AttendeeDelta{Add: many}, "add"},
		{"duplicate", AttendeeDelta{Add: []NewAttendee{{Email: "a@x.io"}, {Email: "A@x.io"}}}, "add"},
		{"added and removed", AttendeeDelta{Add: []NewAttendee{{Email: "a@x.io"}}, Remove: []string{"a@x.io"}}, "remove"},
		{"removed twice", AttendeeDelta{Remove: []string{"a@x.io", "a@x.io"}}, "remove"},
		{"bad email", AttendeeDelta{Add: []NewAttendee{{Email: "not an email"}}}, "add"},
		{"bad removal", AttendeeDelta{Remove: []string{"@"}}, "remove"},
		{"name with control characters", AttendeeDelta{Add: []NewAttendee{{Email: "a@x.io", DisplayName: "A\x00"}}}, "add"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.d.Normalize()
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				if got.Add[0].Email != "ann@example.com" {
					t.Errorf("got email %q, want it trimmed and lower-cased", got.Add[0].Email)
				}
				return
			}
			if ErrorCode(err) != CodeInvalid || ErrorField(err) != tc.wantField {
				t.Fatalf("got %v, want invalid %s", err, tc.wantField)
			}
		})
	}
}

func TestRSVPValidate(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		r         RSVP
		wantField string
	}{
		{"accept", RSVP{Response: ResponseAccepted, AdditionalGuests: MaxAdditionalGuests}, ""},
		{"decline with a comment", RSVP{Response: ResponseDeclined, Comment: strings.Repeat("é", MaxCommentLength)}, ""},
		{"proposed time", RSVP{Response: ResponseTentative, ProposedStart: at, ProposedEnd: at.Add(time.Hour)}, ""},
		{"needs action", RSVP{Response: ResponseNeedsAction}, "response"},
		{"unknown", RSVP{Response: "MAYBE"}, "response"},
		{"comment too long", RSVP{Response: ResponseDeclined, Comment: strings.Repeat("é", MaxCommentLength+1)}, "comment"},
		{"negative guests", RSVP{Response: ResponseAccepted, AdditionalGuests: -1}, "additionalGuests"},
		{"too many guests", RSVP{Response: ResponseAccepted, AdditionalGuests: MaxAdditionalGuests + 1}, "additionalGuests"},
		{"guests of a decline", RSVP{Response: ResponseDeclined, AdditionalGuests: 1}, "additionalGuests"},
		{"half a proposal", RSVP{Response: ResponseTentative, ProposedStart: at}, "proposedStart"},
		{"proposal ending first", RSVP{Response: ResponseTentative, ProposedStart: at, ProposedEnd: at}, "proposedEnd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Validate()
			if tc.wantField == "" && err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if tc.wantField != "" && (ErrorCode(err) != CodeInvalid || ErrorField(err) != tc.wantField) {
				t.Fatalf("got %v, want invalid %s", err, tc.wantField)
			}
		})
	}
}

func TestSeat(t *testing.T) {
	invited := Attendee{Response: ResponseNeedsAction, Version: 1}
	accept := func(guests int) Attendee { return Attendee{Response: ResponseAccepted, AdditionalGuests: guests} }
	seated := Attendee{Response: ResponseAccepted, AdditionalGuests: 1}
	waiting := Attendee{Response: ResponseAccepted, Waitlisted: true, Ticket: 3}
	for _, tc := range []struct {
		name       string
		att        Attendance
		was        Attendee
		answer     Attendee
		wantWait   bool
		wantTicket int
		wantCode   Code // 0 for none
	}{
		{"no capacity", Attendance{Summary: AttendeeSummary{Accepted: 500}}, invited, accept(3), false, 0, 0},
		{"fits", Attendance{Capacity: 3, Summary: AttendeeSummary{Accepted: 1}}, invited, accept(1), false, 0, 0},
		{"full, no waitlist", Attendance{Capacity: 3, Summary: AttendeeSummary{Accepted: 2}}, invited, accept(1), false, 0, CodeCapacityReached},
		{"full, waitlist", Attendance{Capacity: 2, Waitlist: true, Tickets: 7, Summary: AttendeeSummary{Accepted: 2}}, invited, accept(0), true, 8, 0},
		{"fits, but others wait", Attendance{Capacity: 5, Waitlist: true, Tickets: 7, Summary: AttendeeSummary{Accepted: 2, Waitlisted: 1}}, invited, accept(0), true, 8, 0},
		{"seated, fewer guests", Attendance{Capacity: 2, Summary: AttendeeSummary{Accepted: 1, AcceptedGuests: 1, Waitlisted: 4}}, seated, accept(0), false, 0, 0},
		{"seated, more guests than fit", Attendance{Capacity: 2, Summary: AttendeeSummary{Accepted: 1, AcceptedGuests: 1}}, seated, accept(2), false, 0, CodeCapacityReached},
		{"waiting keeps its ticket", Attendance{Capacity: 1, Waitlist: true, Tickets: 9, Summary: AttendeeSummary{Accepted: 1, Waitlisted: 1}}, waiting, accept(0), true, 3, 0},
		{"decline leaves the waitlist", Attendance{Capacity: 1, Waitlist: true, Summary: AttendeeSummary{Accepted: 1, Waitlisted: 1}}, waiting, Attendee{Response: ResponseDeclined}, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Seat(tc.att, tc.was, tc.answer)
			if ErrorCode(err) != tc.wantCode && (err != nil || tc.wantCode != 0) {
				t.Fatalf("got error %v, want code %v", err, tc.wantCode)
			}
			if err == nil && tc.wantCode != 0 {
				t.Fatalf("got no error, want %v", tc.wantCode)
			}
			if err != nil {
				return
			}
			if got.Waitlisted != tc.wantWait || got.Ticket != tc.wantTicket {
				t.Errorf("got waitlisted %v ticket %d, want %v %d", got.Waitlisted, got.Ticket, tc.wantWait, tc.wantTicket)
			}
		})
	}
}

func TestSummaryChange(t *testing.T) {
	was := &Attendee{Response: ResponseAccepted, AdditionalGuests: 2}
	is := &Attendee{Response: ResponseDeclined}
	got := SummaryChange(was, is)
	want := AttendeeSummary{Accepted: -1, AcceptedGuests: -2, Declined: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var s AttendeeSummary
	s.Count(&Attendee{Response: ResponseAccepted, AdditionalGuests: 3}, 1)
	s.Count(&Attendee{Response: ResponseAccepted, Waitlisted: true, AdditionalGuests: 3}, 1)
	s.Count(&Attendee{Response: ResponseNeedsAction}, 1)
	if s.HeadCount() != 4 || s.Total() != 3 || s.Waitlisted != 1 {
		t.Errorf("got head count %d, total %d, waitlisted %d; want 4, 3, 1", s.HeadCount(), s.Total(), s.Waitlisted)
	}
}

func TestAttendeesVisible(t *testing.T) {
	hidden := Attendance{HideAttendees: true}
	for _, tc := range []struct {
		name      string
		role      Role
		organizer bool
		attendee  bool
		att       Attendance
		want      AttendeeView
	}{
		{"owner", RoleOwner, false, false, hidden, SeeAllAttendees},
		{"writer", RoleWriter, false, false, hidden, SeeAllAttendees},
		{"reader", RoleReader, false, false, hidden, SeeAllAttendees},
		{"free/busy", RoleFreeBusy, false, false, Attendance{}, SeeNoAttendees},
		{"free/busy attendee", RoleFreeBusy, false, true, Attendance{}, SeeAllAttendees},
		{"non-member attendee", "", false, true, Attendance{}, SeeAllAttendees},
		{"non-member attendee, list hidden", "", false, true, hidden, SeeOwnAttendee},
		{"non-member organizer, list hidden", "", true, false, hidden, SeeAllAttendees},
		{"stranger", "", false, false, Attendance{}, SeeNoAttendees},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AttendeesVisible(tc.role, tc.organizer, tc.attendee, tc.att); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWhoChangesAndResponds(t *testing.T) {
	for role, want := range map[Role]bool{RoleOwner: true, RoleWriter: true, RoleReader: false, RoleFreeBusy: false, "": false} {
		if got := CanChangeAttendees(role); got != want {
			t.Errorf("CanChangeAttendees(%q): got %v, want %v", role, got, want)
		}
	}
	ann := &Attendee{UserID: "ann", Email: "ann@x.io"}
	external := &Attendee{Email: "bob@x.io"}
	for _, tc := range []struct {
		viewer string
		a      *Attendee
		want   bool
	}{{"ann", ann, true}, {"bob", ann, false}, {"", external, false}, {"ann", nil, false}} {
		if got := CanRespond(tc.viewer, tc.a); got != tc.want {
			t.Errorf("CanRespond(%q, %+v): got %v, want %v", tc.viewer, tc.a, got, tc.want)
		}
	}
}

func TestValidateCapacity(t *testing.T) {
	for _, c := range []int{0, -1, MaxCapacity + 1} {
		if err := ValidateCapacity(&c); ErrorCode(err) != CodeInvalid || ErrorField(err) != "capacity" {
			t.Errorf("capacity %d: got %v, want invalid capacity", c, err)
		}
	}
	one := 1
	if err := ValidateCapacity(&one); err != nil {
		t.Errorf("capacity 1: got %v", err)
	}
	if err := ValidateCapacity(nil); err != nil {
		t.Errorf("no capacity: got %v", err)
	}
}
