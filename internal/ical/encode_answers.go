package ical

import (
	"maps"
	"slices"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A series' answers to single occurrences that have no exception are
// written as overrides of those occurrences (a VEVENT with RECURRENCE-ID,
// the occurrence as the series makes it, and the attendees with their
// answers there), as Google Calendar exports an instance someone answered
// apart: RFC 5545 has no other place for them. They are bounded:
//   - a THIS answer names its occurrence (at most 100 keys a series);
//   - a THIS_AND_FOLLOWING answer covers every later occurrence, which may
//     never end: it is written for the occurrences that begin in
//     followingOverrideSpan from its first one, or from 31 days before the
//     feed is made when that is later (a client reading the feed again later
//     gets the next ones); a series too dense to list there
//     (calendar.MaxViewEntries) gets none for it;
//   - at most maxAnswerOverrides a series, the earliest.
//
// An occurrence whose answers are all the series answers gets no override.
const (
	followingOverrideSpan = 62 * 24 * time.Hour
	followingOverridePast = 31 * 24 * time.Hour
	maxAnswerOverrides    = 200
)

// answerOverrides returns, in order, the original starts of series e's
// occurrences that have no exception (excs) and at which some attendee of
// as answers otherwise than to the series.
func answerOverrides(eng calendar.RecurrenceEngine, e *calendar.Entry, as []*calendar.Attendee, excs []*calendar.Entry, now time.Time) []time.Time {
	candidates := map[time.Time]bool{}
	for _, a := range as {
		for _, o := range a.Occurrences {
			if !o.Key.Following {
				candidates[o.Key.From.UTC()] = true
				continue
			}
			from := o.Key.From
			if past := now.Add(-followingOverridePast); past.After(from) {
				from = past
			}
			starts, err := eng.Starts(e, from, from.Add(followingOverrideSpan), calendar.MaxViewEntries)
			if err != nil {
				continue // too dense to list: the series answer stands there
			}
			for _, s := range starts {
				candidates[s.UTC()] = true
			}
		}
	}
	for _, x := range excs {
		delete(candidates, x.OriginalStart.UTC()) // its own override carries the answers
	}
	var out []time.Time
	for _, t := range slices.SortedFunc(maps.Keys(candidates), time.Time.Compare) {
		if len(out) == maxAnswerOverrides {
			break
		}
		if eng.Has(e, t) && answersDiffer(as, t, e.Attendance.ResetOf(t)) {
			out = append(out, t)
		}
	}
	return out
}

// answersDiffer reports whether someone of as answers the occurrence at
// orig (last moved alone at count reset) otherwise than the series.
func answersDiffer(as []*calendar.Attendee, orig time.Time, reset int) bool {
	for _, a := range as {
		at := a.AtOccurrence(orig, reset)
		if at.Response != a.Response || at.AdditionalGuests != a.AdditionalGuests || at.Waitlisted != a.Waitlisted {
			return true
		}
	}
	return false
}
