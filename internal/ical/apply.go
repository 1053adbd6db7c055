package ical

import (
	"context"
	"errors"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Importer is what an import writes through: the store's entry and series
// services, acting for the signed-in viewer.
type Importer interface {
	CreateEntry(ctx context.Context, n calendar.NewEntry) (*calendar.Entry, *calendar.Calendar, error)
	SetTaskCompleted(ctx context.Context, key calendar.EntryKey, expectedVersion int, completed bool) (*calendar.Entry, *calendar.Calendar, error)
	UpdateOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error)
	DeleteOccurrence(ctx context.Context, key calendar.OccurrenceKey, scope calendar.Scope, expectedVersion int) error
	ChangeAttendees(ctx context.Context, d calendar.AttendeeDelta) (*calendar.Entry, error)
	UpdateEntry(ctx context.Context, u calendar.EntryUpdate) (*calendar.Entry, *calendar.Calendar, error)
}

// Report is what an import did: the entries it created (single entries,
// tasks, series) and every component it did not import, or imported only in
// part (ItemError.Imported), in document order.
type Report struct {
	Created []*calendar.Entry
	Errors  []ItemError
}

// Apply creates what imp holds in a calendar, one write per entry, then one
// per exception of a series and per completed task, and for an event or
// series with attendees one ChangeAttendees per MaxAttendeeDelta of them and one
// UpdateEntry handing it to its organizer (applyPeople). A component the service
// refuses (bad input, an exception that is not an occurrence) is reported and
// the others still go ahead; a failure of the import as a whole (the calendar
// not found or not writable, the store failing) stops it and is returned with
// what was created until then.
func Apply(ctx context.Context, svc Importer, calendarID string, imp *Import) (*Report, error) {
	r := &Report{}
	partly := map[int]ItemError{} // notes of what a component is imported without, kept once it is
	for _, e := range imp.Errors {
		if e.Imported {
			partly[e.Index] = e
		} else {
			r.Errors = append(r.Errors, e)
		}
	}
	defer func() { sortErrors(r.Errors) }()
	for _, it := range imp.Items {
		n := it.Entry
		n.CalendarID = calendarID
		e, _, err := svc.CreateEntry(ctx, n)
		if calendar.ErrorCode(err) == calendar.CodeNotFound {
			return r, err // the calendar, not this entry
		}
		if err != nil {
			if err := r.refused(err, it.Index, it.UID); err != nil {
				return r, err
			}
			continue
		}
		if it.Completed {
			if e, _, err = svc.SetTaskCompleted(ctx, e.Key(), e.Version, true); err != nil {
				return r, err // the task was just created: nothing about it can be wrong
			}
		}
		r.Created = append(r.Created, e) // a retry must not create it again, whatever fails next
		// The exceptions before the people: an occurrence an exception moves
		// resets the answers to it, which must not void those the document
		// gives there (occurrenceAnswers).
		for _, x := range it.Exceptions {
			err := applyException(ctx, svc, e, x)
			if note, ok := partly[x.Index]; ok && err == nil { // imported without some of its people
				r.Errors = append(r.Errors, note)
			}
			if err := r.refused(err, x.Index, it.UID); err != nil {
				return r, err
			}
		}
		e, note, err := applyPeople(ctx, svc, e, it)
		r.Created[len(r.Created)-1] = e
		if err != nil {
			return r, err
		}
		if old, ok := partly[it.Index]; ok && note != "" {
			note = old.Message + "; " + note
		} else if ok {
			note = old.Message
		}
		if note != "" {
			r.Errors = append(r.Errors, ItemError{Index: it.Index, UID: it.UID, Message: note, Code: calendar.CodeInvalid, Imported: true})
		}
	}
	return r, nil
}

// applyException writes one RECURRENCE-ID component of a series just
// created: occurrences of a new series are at its version.
func applyException(ctx context.Context, svc Importer, series *calendar.Entry, x Exception) error {
	key := calendar.OccurrenceKey{CalendarID: series.CalendarID, SeriesID: series.ID, OriginalStart: x.OriginalStart}
	if x.Cancelled {
		return svc.DeleteOccurrence(ctx, key, calendar.ScopeThis, series.Version)
	}
	u := x.Update
	u.ExpectedVersion = series.Version
	_, _, err := svc.UpdateOccurrence(ctx, key, calendar.ScopeThis, u)
	return err
}

// refused records an error the service gave for one component and returns
// nil, or returns an error that must stop the import. A nil err is nil.
func (r *Report) refused(err error, index int, uid string) error {
	if err == nil {
		return nil
	}
	if stops(err) {
		return err
	}
	var de *calendar.Error
	errors.As(err, &de) // it is one: stops is false
	if de.Code == calendar.CodeNotFound {
		de = calendar.Errorf(calendar.CodeNotFound, "RECURRENCE-ID is not an occurrence of its series")
	}
	msg := de.Message
	if de.Field != "" {
		msg = de.Field + ": " + msg
	}
	r.Errors = append(r.Errors, ItemError{Index: index, UID: uid, Message: msg, Code: de.Code})
	return nil
}

// stops reports whether an error the service gave for one component must
// stop the whole import: the store failing, or the viewer no longer allowed.
func stops(err error) bool {
	var de *calendar.Error
	return !errors.As(err, &de) || de.Code == calendar.CodeInternal || de.Code == calendar.CodeUnauthenticated ||
		de.Code == calendar.CodeForbidden
}

func sortErrors(errs []ItemError) {
	slices.SortStableFunc(errs, func(a, b ItemError) int { return a.Index - b.Index })
}
