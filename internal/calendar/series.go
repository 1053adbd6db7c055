package calendar

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Recurrence is a series' recurrence set (RFC 5545): an RRULE value, plus extra
// (RDATE) and excluded (EXDATE) occurrence starts. For a series of whole days a
// start is its date at midnight UTC.
type Recurrence struct {
	Rule    string
	RDates  []time.Time
	ExDates []time.Time
}

// Scope is how much of a series a change applies to.
type Scope string

// The scopes of a change to an occurrence.
const (
	ScopeThis             Scope = "THIS"               // this occurrence only: an exception
	ScopeThisAndFollowing Scope = "THIS_AND_FOLLOWING" // split the series here
	ScopeAll              Scope = "ALL"                // the whole series
)

// MaxOccurrencesPerRequest caps the occurrences of series one request
// expands across all its views, so no request can expand without bound: ten
// views' worth. Each view shows at most MaxViewEntries; those of a series
// found too dense for its view (TooDense) count too, since they were
// expanded to find that out.
const MaxOccurrencesPerRequest = 10 * MaxViewEntries

// TooManyOccurrences is the error of a request past MaxOccurrencesPerRequest.
func TooManyOccurrences() error {
	return Invalidf("range", "this request expands more than %d occurrences of series: ask for shorter ranges or fewer views", MaxOccurrencesPerRequest)
}

// ErrTooManyStarts is RecurrenceEngine.Starts' error when a series has more
// occurrences in the range than asked for.
var ErrTooManyStarts = Invalidf("range", "a series has more occurrences in this range than a view shows: narrow the range")

// TooDense is the error of a view whose range holds more than MaxViewEntries
// occurrences of one series of a calendar (one stored before rules were
// bounded: RecurrenceEngine.Validate now refuses them). It names the
// calendar, not the series, so that members who may only see when a calendar
// is busy learn nothing of its entries.
func TooDense(series *Entry) error {
	return &Error{Code: CodeTooManyOccurrences, Field: "range", CalendarID: series.CalendarID, Message: fmt.Sprintf(
		"a series of this calendar has more than %d occurrences in this range, more than a view shows: narrow the range", MaxViewEntries)}
}

// The fields an exception can set itself; the others follow its series.
const (
	FieldTiming       = "timing"
	FieldTitle        = "title"
	FieldDescription  = "description"
	FieldLocation     = "location"
	FieldColor        = "color"
	FieldTags         = "tags"
	FieldReminders    = "reminders"
	FieldTransparency = "transparency"
	FieldVisibility   = "visibility"
)

// RecurrenceEngine expands series. Package recurrence implements it (RFC 5545
// rules with rrule-go); the domain only says what it must do.
type RecurrenceEngine interface {
	// Validate checks a series: its rule parses and uses only supported parts,
	// its first occurrence is its own start, it is not absurdly large, and no
	// range a view may cover (MaxRangeSpan) holds more than MaxViewEntries of
	// its occurrences. Errors: CodeInvalid naming the field
	// ("recurrence.rule", ...).
	Validate(series *Entry) error

	// Starts returns the original starts of the series' occurrences that start
	// in [from, to), in order. Errors: ErrTooManyStarts when there are more
	// than max; CodeInvalid when the rule cannot be expanded.
	Starts(series *Entry, from, to time.Time, max int) ([]time.Time, error)

	// Last returns the start of the series' last occurrence, or ok=false when
	// it has none (it goes on forever).
	Last(series *Entry) (last time.Time, ok bool)

	// Has reports whether start is the original start of an occurrence.
	Has(series *Entry, start time.Time) bool

	// MoveRule returns the rule of series from for its timing changed to
	// to's, where every occurrence moves by the span of wall clock its start
	// moved by: UNTIL where move takes the rule's last occurrence, and the
	// rule's own times of day (BYHOUR, BYMINUTE, BYSECOND) moved by the change
	// of the start's time of day, so that the series keeps its occurrences.
	// Errors: CodeInvalid (on "timing") when one of those times would leave
	// its day or hour.
	MoveRule(from, to *Entry, move func(time.Time) time.Time) (string, error)

	// Portable returns the series' recurrence written so that any RFC 5545
	// reader finds the occurrences calgraph does. RFC 5545 leaves undefined a
	// start the rule would not give, which calgraph makes the first
	// occurrence (counted in COUNT) and readers such as ical.js, rrule.js and
	// dateutil leave out: for such a series the start is added as an RDATE
	// (unless an EXDATE removes it) and a COUNT becomes the UNTIL of the
	// rule's last occurrence, which readers that count the start and readers
	// that do not read alike (COUNT=1, the start alone, becomes a rule of the
	// same FREQ and COUNT without the parts that would move it off the
	// start). Any other recurrence comes back as it is.
	// Errors: CodeInvalid when the rule cannot be expanded.
	Portable(series *Entry) (Recurrence, error)

	// Split returns the recurrence of the series ended just before the
	// occurrence of its rule at start, and that of the series continuing from
	// it. Errors: CodeInvalid when start is not an occurrence of the rule.
	Split(series *Entry, start time.Time) (before, after Recurrence, err error)
}

// ValidateSeries checks a series before it is written: only timed and
// all-day entries recur, a timed series starts on a whole second (RFC 5545
// times have no fractions), and the engine accepts its recurrence.
func ValidateSeries(eng RecurrenceEngine, e *Entry) error {
	if e.Kind != KindTimed && e.Kind != KindAllDay {
		return Invalidf("recurrence", "only timed and all-day entries can recur, not %s", e.Kind)
	}
	if !e.Start.Equal(e.Start.Truncate(time.Second)) || !e.End.Equal(e.End.Truncate(time.Second)) {
		return Invalidf("timing", "a series starts and ends on whole seconds")
	}
	return eng.Validate(e)
}

// SeriesReachEnd returns where the reach of a series' last occurrence ends, or
// ok=false when the series goes on forever.
func (e *Entry) SeriesReachEnd(eng RecurrenceEngine) (end time.Time, ok bool) {
	last, ok := eng.Last(e)
	if !ok {
		return time.Time{}, false
	}
	_, end = e.OccurrenceAt(last).Reach()
	return end, true
}

// IsSeries reports whether e is a series (its recurrence's master).
func (e *Entry) IsSeries() bool { return e.Recurrence != nil }

// IsOccurrence reports whether e is an occurrence of a series.
func (e *Entry) IsOccurrence() bool { return e.SeriesID != "" }

// FirstStart is the original start of a series' first occurrence: its start,
// or for a series of whole days its first date at midnight UTC.
func (e *Entry) FirstStart() time.Time {
	if e.Dated() {
		return e.StartDate.In(time.UTC)
	}
	return e.Start
}

// EarliestStart is where a series' occurrences begin: its first start, or
// an earlier extra date (RDATE) when it has one (RFC 5545 allows them).
func (e *Entry) EarliestStart() time.Time {
	first := e.FirstStart()
	if e.Recurrence != nil {
		for _, d := range e.Recurrence.RDates {
			if d.Before(first) {
				first = d
			}
		}
	}
	return first
}

// length is how long each of a series' occurrences lasts by its rule.
func (e *Entry) length() time.Duration {
	if e.Dated() {
		return time.Duration(e.StartDate.DaysUntil(e.EndDate)) * 24 * time.Hour
	}
	return e.End.Sub(e.Start)
}

// occurrenceLayout formats an original start in occurrence IDs, as in an
// RFC 5545 RECURRENCE-ID.
const occurrenceLayout = "20060102T150405Z"

// OccurrenceID is the ID of a series' occurrence: the series' ID and the
// occurrence's original start. It stays the same when the occurrence is moved.
func OccurrenceID(seriesID string, originalStart time.Time) string {
	return seriesID + "/" + originalStart.UTC().Format(occurrenceLayout)
}

// ParseOccurrenceID reads an OccurrenceID. field names the input for errors.
func ParseOccurrenceID(field, id string) (OccurrenceKey, error) {
	sid, raw, ok := strings.Cut(id, "/")
	start, err := time.Parse(occurrenceLayout, raw)
	// time.Parse takes fractions of a second the layout does not have: an ID
	// is valid only in the one form OccurrenceID writes.
	if !ok || err != nil || ValidateID(field, sid) != nil || ValidateInstant(field, start) != nil || OccurrenceID(sid, start) != id {
		return OccurrenceKey{}, Invalidf(field, "%s is not a valid occurrence ID", field)
	}
	return OccurrenceKey{SeriesID: sid, OriginalStart: start}, nil
}

// OccurrenceKey identifies an occurrence: its calendar, its series and its
// original start.
type OccurrenceKey struct {
	CalendarID    string
	SeriesID      string
	OriginalStart time.Time
}

// Series is a series as stored: its master and its exceptions, ordered by
// original start.
type Series struct {
	Master     *Entry
	Exceptions []*Entry
}

// Exception returns the series' exception at an original start, or nil.
func (s *Series) Exception(originalStart time.Time) *Entry {
	for _, x := range s.Exceptions {
		if x.OriginalStart.Equal(originalStart) {
			return x
		}
	}
	return nil
}

// OccurrenceAt returns the series' occurrence originally starting at start, as
// its rule makes it: the series' fields, its timing moved to start with the
// same length, the series' version, and the attendee summary at it
// (Attendance.SummaryAt) with its reset mark (Attendance.Reset).
func (e *Entry) OccurrenceAt(start time.Time) *Entry {
	o := *e
	o.Recurrence, o.PreviousSeriesID, o.Overrides, o.LocalStart = nil, "", nil, time.Time{}
	o.ID, o.SeriesID, o.OriginalStart = OccurrenceID(e.ID, start), e.ID, start.UTC()
	o.Tags, o.Reminders = slices.Clone(e.Tags), slices.Clone(e.Reminders)
	o.Attendance.Summary, o.Attendance.Shares = e.Attendance.SummaryAt(start.UTC()), nil
	o.Attendance.Reset, o.Attendance.Resets, o.Attendance.Moves = e.Attendance.ResetOf(start), nil, 0
	if e.Dated() {
		d := DateOf(start.UTC())
		o.StartDate, o.EndDate = d, d.AddDays(e.StartDate.DaysUntil(e.EndDate))
		o.OriginalEnd = o.EndDate.In(time.UTC)
	} else {
		o.Start, o.End = start.UTC(), start.UTC().Add(e.End.Sub(e.Start))
		o.OriginalEnd = o.End
	}
	return &o
}

// Overlay returns the occurrence o as its exception exc changes it: the fields
// exc overrides come from exc, the others from o (so from the series as it is
// now). Its version is the sum of the series' and the exception's, so it
// changes whenever either does.
func (o *Entry) Overlay(exc *Entry) *Entry {
	out := *o
	out.IsException, out.Cancelled, out.Overrides = true, exc.Cancelled, exc.Overrides
	out.Version, out.Sequence = o.Version+exc.Version, exc.Sequence
	out.CreatedAt, out.UpdatedAt = exc.CreatedAt, exc.UpdatedAt
	if exc.UpdatedBy != "" {
		out.UpdatedBy = exc.UpdatedBy
	}
	for _, f := range exc.Overrides {
		switch f {
		case FieldTiming:
			out.Start, out.End, out.TimeZone, out.StartDate, out.EndDate = exc.Start, exc.End, exc.TimeZone, exc.StartDate, exc.EndDate
		case FieldTitle:
			out.Title = exc.Title
		case FieldDescription:
			out.Description = exc.Description
		case FieldLocation:
			out.Location = exc.Location
		case FieldColor:
			out.Color = exc.Color
		case FieldTags:
			out.Tags = exc.Tags
		case FieldReminders:
			out.Reminders = exc.Reminders
		case FieldTransparency:
			out.TransparencySet = exc.TransparencySet
		case FieldVisibility:
			out.VisibilitySet = exc.VisibilitySet
		}
	}
	return &out
}

// Occurrence returns the series' occurrence originally at start, with its
// exception if it has one; ok is false when start is not an occurrence.
func (s *Series) Occurrence(eng RecurrenceEngine, start time.Time) (occ *Entry, ok bool) {
	if !eng.Has(s.Master, start) {
		return nil, false
	}
	occ = s.Master.OccurrenceAt(start)
	if x := s.Exception(start); x != nil {
		occ = occ.Overlay(x)
	}
	return occ, true
}

// Fields lists the fields an update sets, as exception overrides.
func (u EntryUpdate) Fields() []string {
	var fs []string
	for _, f := range []struct {
		set  bool
		name string
	}{{u.Timing.Set, FieldTiming}, {u.Title.Set, FieldTitle}, {u.Description.Set, FieldDescription},
		{u.Location.Set, FieldLocation}, {u.Color.Set, FieldColor}, {u.Tags.Set, FieldTags}, {u.Reminders.Set, FieldReminders},
		{u.Transparency.Set, FieldTransparency}, {u.Visibility.Set, FieldVisibility}} {
		if f.set {
			fs = append(fs, f.name)
		}
	}
	return fs
}

// mergeOverrides returns the union of two override lists, sorted.
func mergeOverrides(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// SeriesReader reads series for views and edits; like Reader it does not
// authorize.
type SeriesReader interface {
	// Series returns a series with its exceptions. Errors: CodeNotFound.
	Series(ctx context.Context, key EntryKey) (*Series, error)
}

// SeriesService changes series and their occurrences for the signed-in viewer,
// who needs a role that writes entries. A series is created by CreateEntry
// with NewEntry.Recurrence set, and changed or deleted as a whole through
// UpdateEntry and DeleteEntry on its own key.
type SeriesService interface {
	// UpdateOccurrence changes one occurrence (ScopeThis: an exception), it and
	// the following ones (ScopeThisAndFollowing: the series is split there), or
	// the whole series (ScopeAll); u.Key is ignored and u.ExpectedVersion is
	// the occurrence's version. It returns the occurrence as changed for
	// ScopeThis, the new series for ScopeThisAndFollowing and the series for
	// ScopeAll, with its calendar as EntryService.CreateEntry does. Errors:
	// CodeUnauthenticated, CodeNotFound, CodeForbidden, CodeInvalid,
	// CodeVersionConflict.
	UpdateOccurrence(ctx context.Context, key OccurrenceKey, scope Scope, u EntryUpdate) (*Entry, *Calendar, error)

	// DeleteOccurrence cancels one occurrence, ends the series before it, or
	// deletes the series with its exceptions. Errors: as UpdateOccurrence.
	DeleteOccurrence(ctx context.Context, key OccurrenceKey, scope Scope, expectedVersion int) error
}
