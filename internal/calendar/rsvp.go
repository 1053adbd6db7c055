package calendar

import (
	"strings"
	"time"
	"unicode/utf8"
)

// RSVP is an attendee's answer to an entry. ExpectedVersion is the version
// of the attendee as the client last read it.
type RSVP struct {
	Key EntryKey
	// Occurrence is the original start of the occurrence of series Key
	// answered through, zero when the entry itself is answered; Scope is
	// how much of the series the answer covers ("" is THIS for an
	// occurrence, ALL for a series). A single entry takes neither.
	Occurrence       time.Time
	Scope            Scope
	ExpectedVersion  int
	Response         Response
	Comment          string
	AdditionalGuests int
	// ProposedStart and ProposedEnd propose a new time; both zero for none.
	ProposedStart, ProposedEnd time.Time
}

// Validate checks r.
func (r RSVP) Validate() error {
	if !r.Response.Valid() || r.Response == ResponseNeedsAction {
		return Invalidf("response", "response must be ACCEPTED, TENTATIVE or DECLINED, got %q", r.Response)
	}
	if utf8.RuneCountInString(r.Comment) > MaxCommentLength || !utf8.ValidString(r.Comment) {
		return Invalidf("comment", "comment must be valid UTF-8 of at most %d characters", MaxCommentLength)
	}
	if r.AdditionalGuests < 0 || r.AdditionalGuests > MaxAdditionalGuests {
		return Invalidf("additionalGuests", "additionalGuests must be between 0 and %d, got %d", MaxAdditionalGuests, r.AdditionalGuests)
	}
	if r.AdditionalGuests > 0 && r.Response != ResponseAccepted {
		return Invalidf("additionalGuests", "only an acceptance brings additional guests")
	}
	if r.ProposedStart.IsZero() != r.ProposedEnd.IsZero() {
		return Invalidf("proposedStart", "a proposed time needs both its start and its end")
	}
	if !r.ProposedStart.IsZero() {
		for _, t := range []time.Time{r.ProposedStart, r.ProposedEnd} {
			if err := ValidateInstant("proposedStart", t); err != nil {
				return err
			}
		}
		if !r.ProposedEnd.After(r.ProposedStart) {
			return Invalidf("proposedEnd", "a proposed time must end after it starts")
		}
	}
	return nil
}

// Apply returns a answered with r at now, without its seat: Seat decides
// whether an acceptance is seated or waits.
func (r RSVP) Apply(a Attendee, now time.Time) Attendee {
	a.Response, a.Comment, a.AdditionalGuests = r.Response, strings.TrimSpace(r.Comment), r.AdditionalGuests
	a.ProposedStart, a.ProposedEnd = r.ProposedStart.UTC(), r.ProposedEnd.UTC()
	a.RespondedAt = now
	a.Version++
	return a
}

// Seat decides whether answer is seated, given what the entry's attendance
// holds without the attendee's previous answer: an acceptance that fits the
// capacity is seated; one that does not waits on a waitlisting entry, keeping
// its ticket if it was waiting already (a new one is Tickets + 1), and is
// refused with CodeCapacityReached on any other. Answers other than an
// acceptance leave the waitlist.
func Seat(att Attendance, was, answer Attendee) (Attendee, error) {
	answer.Waitlisted, answer.Ticket = false, 0
	if answer.Response != ResponseAccepted || att.Capacity == 0 {
		return answer, nil
	}
	taken := att.Summary.HeadCount() - was.Heads()
	waiting := att.Summary.Waitlisted
	if was.Waitlisted {
		waiting--
	}
	// An acceptance that was not seated waits behind those waiting already,
	// even where it would fit: the waitlist is served in order.
	if taken+answer.Heads() <= att.Capacity && (was.Heads() > 0 || waiting == 0) {
		return answer, nil
	}
	if !att.Waitlist {
		return answer, Errorf(CodeCapacityReached, "this entry is full: %d of its %d places are taken", taken, att.Capacity)
	}
	answer.Waitlisted, answer.Ticket = true, was.Ticket
	if !was.Waitlisted {
		answer.Ticket = att.Tickets + 1
	}
	return answer, nil
}

// Promotable reports whether a waitlisted attendee fits in the places left
// by att's capacity.
func Promotable(att Attendance, waiting *Attendee) bool {
	return waiting.Waitlisted && att.Summary.HeadCount()+1+waiting.AdditionalGuests <= att.Capacity
}
