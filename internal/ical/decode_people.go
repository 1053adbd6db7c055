package ical

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// responses are the answers of the PARTSTAT values calgraph keeps; any other
// (DELEGATED, or one a later RFC adds) is read as NEEDS_ACTION, with a note.
var responses = map[string]calendar.Response{
	"NEEDS-ACTION": calendar.ResponseNeedsAction,
	"ACCEPTED":     calendar.ResponseAccepted,
	"TENTATIVE":    calendar.ResponseTentative,
	"DECLINED":     calendar.ResponseDeclined,
}

// people reads a single VEVENT's ORGANIZER and ATTENDEEs into its item,
// with notes on what it left out: an address that is not a mailto: email,
// an attendee listed twice (the first is kept), a PARTSTAT calgraph has no
// answer for, a guest count out of range or without an acceptance. More attendees than an entry may
// have is an error: the event is not imported.
func people(c *goical.Component, it *Item) (notes []string, err error) {
	props := c.Props.Values(goical.PropAttendee)
	if len(props) > calendar.MaxAttendees {
		return nil, fmt.Errorf("the event has %d attendees; an entry has at most %d", len(props), calendar.MaxAttendees)
	}
	if p := c.Props.Get(goical.PropOrganizer); p != nil {
		email, name, ok := calAddress(p)
		if !ok {
			notes = append(notes, fmt.Sprintf("ORGANIZER %q is not an email address", clip(p.Value)))
		} else {
			it.Organizer = &calendar.NewAttendee{Email: email, DisplayName: name}
		}
	}
	seen := map[string]bool{}
	for _, p := range props {
		email, name, ok := calAddress(&p)
		switch {
		case !ok:
			notes = append(notes, fmt.Sprintf("ATTENDEE %q is not an email address; left out", clip(p.Value)))
			continue
		case seen[email]:
			notes = append(notes, fmt.Sprintf("ATTENDEE %s is listed twice; the first is kept", email))
			continue
		}
		seen[email] = true
		a := calendar.NewAttendee{Email: email, DisplayName: name, Response: calendar.ResponseNeedsAction}
		switch strings.ToUpper(p.Params.Get(goical.ParamRole)) {
		case roleOptional, "NON-PARTICIPANT":
			a.Optional = true
		}
		if stat := strings.ToUpper(p.Params.Get(goical.ParamParticipationStatus)); stat != "" {
			if r, ok := responses[stat]; ok {
				a.Response = r
			} else {
				notes = append(notes, fmt.Sprintf("ATTENDEE %s has PARTSTAT=%s, read as NEEDS_ACTION", email, clip(stat)))
			}
		}
		if g := p.Params.Get(paramNumGuests); g != "" {
			n, err := strconv.Atoi(g)
			switch {
			case err != nil || n < 0 || n > calendar.MaxAdditionalGuests:
				notes = append(notes, fmt.Sprintf("ATTENDEE %s has %s=%s; calgraph keeps 0 to %d additional guests", email, paramNumGuests, clip(g), calendar.MaxAdditionalGuests))
			case n > 0 && a.Response != calendar.ResponseAccepted:
				// As Respond: guests come with an acceptance (Google writes
				// X-NUM-GUESTS=0 on everyone, which needs no note).
				notes = append(notes, fmt.Sprintf("ATTENDEE %s brings %d guest(s) without accepting; left out", email, n))
			default:
				a.AdditionalGuests = n
			}
		}
		it.Attendees = append(it.Attendees, a)
	}
	return notes, nil
}

// calAddress reads a CAL-ADDRESS property (ORGANIZER, ATTENDEE): its
// mailto: email, normalized, and its CN (RFC 6868 escapes undone), kept
// only if calgraph accepts it as a name. ok is false for an address that is
// not an email.
func calAddress(p *goical.Prop) (email, name string, ok bool) {
	v := strings.TrimSpace(p.Value)
	if len(v) < len("mailto:") || !strings.EqualFold(v[:len("mailto:")], "mailto:") {
		return "", "", false
	}
	email, err := calendar.NormalizeEmail(v[len("mailto:"):])
	if err != nil {
		return "", "", false
	}
	name = strings.TrimSpace(unescapeParam(p.Params.Get(goical.ParamCommonName)))
	if name != "" && calendar.ValidateName("CN", name) != nil {
		name = ""
	}
	return email, name, true
}

// occurrenceAnswers takes an override's (RECURRENCE-ID) ATTENDEEs into its
// series' attendees as their answers to that occurrence, where they differ
// from the series answer: a feed writes such an override for each
// occurrence answered apart, so a round trip keeps them. calgraph keeps one
// list per series, so someone on the override only, and an ORGANIZER other
// than the series', are left out and noted; so is an answer past
// calendar.MaxOccurrenceAnswers for one attendee (document order). A
// NEEDS-ACTION there is no answer: the series answer stands (an occurrence
// the override moves resets by itself when it is written). A cancelled
// occurrence's answers say nothing.
func occurrenceAnswers(series *Item, x Exception, people Item) (notes []string) {
	if x.Cancelled {
		return nil
	}
	if o := people.Organizer; o != nil && (series.Organizer == nil || series.Organizer.Email != o.Email) {
		notes = append(notes, fmt.Sprintf("ORGANIZER %s of one occurrence left out: a series has one organizer", o.Email))
	}
	for _, a := range people.Attendees {
		i := slices.IndexFunc(series.Attendees, func(s calendar.NewAttendee) bool { return s.Email == a.Email })
		if i < 0 {
			notes = append(notes, fmt.Sprintf("ATTENDEE %s is on one occurrence only; left out: calgraph keeps one list per series", a.Email))
			continue
		}
		s := &series.Attendees[i]
		if a.Response == calendar.ResponseNeedsAction || a.Response == s.Response && a.AdditionalGuests == s.AdditionalGuests {
			continue
		}
		if len(s.Occurrences) == calendar.MaxOccurrenceAnswers {
			notes = append(notes, fmt.Sprintf("ATTENDEE %s answers more than %d occurrences apart; this one is left out", a.Email, calendar.MaxOccurrenceAnswers))
			continue
		}
		s.Occurrences = append(s.Occurrences, calendar.OccurrenceAnswer{Key: calendar.AnswerKey{From: x.OriginalStart},
			Response: a.Response, AdditionalGuests: a.AdditionalGuests})
	}
	return notes
}
