package calendar

import (
	"context"
	"time"
)

// Text search over the entries and series of the calendars a viewer reads
// in full (SearchService). How words match and rank is package search's;
// what a search may reach, and its bounds, are here.

// SearchQuery is one search.
type SearchQuery struct {
	// Text holds the words to find: each must begin a word of the entry's
	// title, location, tags or description, or of an attendee's display
	// name or the local part of their email (case and accents aside).
	Text string
	// CalendarIDs limits the search to these calendars; nil: every calendar
	// the viewer reads (up to MaxSearchCalendars).
	CalendarIDs []string
	// Range, when set, keeps the entries that overlap it and shows each
	// series at its first matching occurrence in it.
	Range  *RangeSpec
	Filter Filter
	Page   Page
	// Budget is the request's read budget (ReadScope.Budget), which the
	// search's reads of changed entries are charged to; nil: none.
	Budget *Budget
}

// Search bounds.
const (
	// MaxSearchBytes bounds a query's text, in UTF-8 bytes.
	MaxSearchBytes = 256
	// MaxSearchWords bounds its distinct words.
	MaxSearchWords = 8
	// MaxSearchCalendars bounds the calendars one search covers.
	MaxSearchCalendars = 5 * MaxPageSize
	// MaxSearchHits bounds how deep a search's pages go: its best hits
	// this many (all are ranked; a cursor past them is refused).
	MaxSearchHits = 5000
	// SearchLookahead is how far after now a search without a range looks
	// for a series' next occurrence.
	SearchLookahead = 366 * 24 * time.Hour
)

// Validate checks what a search can check before reading anything (the
// query's words are counted by the store, which folds them).
func (q SearchQuery) Validate() error {
	switch {
	case len(q.Text) > MaxSearchBytes:
		return Invalidf("query", "query must be at most %d bytes, got %d", MaxSearchBytes, len(q.Text))
	case len(q.CalendarIDs) > MaxSearchCalendars:
		return Invalidf("calendarIds", "a search covers at most %d calendars", MaxSearchCalendars)
	}
	if q.Range != nil {
		if err := q.Range.Validate(); err != nil {
			return err
		}
	}
	return q.Page.Validate()
}

// SearchField names the field of an entry a highlight is in.
type SearchField string

// The fields search reads.
const (
	SearchTitle       SearchField = "TITLE"
	SearchLocation    SearchField = "LOCATION"
	SearchTag         SearchField = "TAG"
	SearchDescription SearchField = "DESCRIPTION"
	// SearchAttendeeName is an attendee's display name (Attendee.DisplayName)
	// and SearchAttendeeEmail the local part of their email: offsets count
	// from the start of Attendee.Email.
	SearchAttendeeName  SearchField = "ATTENDEE_NAME"
	SearchAttendeeEmail SearchField = "ATTENDEE_EMAIL"
)

// SearchHighlight is a word a search matched: in which field (for a tag,
// which one: TagIndex into Entry.Tags; for an attendee, whose:
// AttendeeEmail, the key of the entry's attendee list), where it starts and
// how long it is, in UTF-16 code units of that field's text.
type SearchHighlight struct {
	Field         SearchField
	TagIndex      int
	AttendeeEmail string
	Start, Length int
}

// SearchHit is one entry a search found: a single entry, or an occurrence
// of a series (its first matching one in the range, or its next from now).
type SearchHit struct {
	Entry      *Entry
	Score      int
	Highlights []SearchHighlight
}

// SearchPage is a page of hits, best first.
type SearchPage struct {
	Hits        []SearchHit
	Cursors     []string
	EndCursor   string
	HasNextPage bool
	// Calendars are the hits' calendars, as the search's authorization read them.
	Calendars map[string]*Calendar
}

// SearchService searches entries. Authorization: each calendar needs
// ActionRead (FREE_BUSY members never search one), and a PRIVATE entry
// matches only for those who see its details (Entry.SeesDetails, an
// invitation to it included). Those members see the attendees of every
// entry whose details they see (AttendeesVisible), so its attendees match
// exactly when its text does. Errors: CodeUnauthenticated, CodeInvalid (the
// query's text, words, calendarIds, range, first, after), CodeTooLarge (the
// request's budget).
type SearchService interface {
	Search(ctx context.Context, q SearchQuery) (*SearchPage, error)
}

// Keeps reports whether f keeps e (its kinds and tags; cancellation aside).
func (f Filter) Keeps(e *Entry) bool { return f.keeps(e) }
