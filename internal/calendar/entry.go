package calendar

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind is what sort of entry an Entry is.
type Kind string

// The entry kinds.
const (
	KindTimed    Kind = "TIMED"     // from one instant to a later one, anchored in a time zone
	KindAllDay   Kind = "ALL_DAY"   // one whole day
	KindMultiDay Kind = "MULTI_DAY" // whole days, at least two, end date exclusive
	KindTask     Kind = "TASK"      // due on a date or at an instant; can be completed
)

// Entry limits.
const (
	MaxTitleLength      = 500
	MaxDescriptionBytes = 10 * 1024
	MaxLocationLength   = 500
	MaxTags             = 20
	MaxTagLength        = 50
	MaxReminders        = 5
	MaxReminderMinutes  = 4 * 7 * 24 * 60 // four weeks before
	MaxEntryDays        = 366             // the longest an entry may last
)

// EntryKey identifies an entry: its calendar and its ID within calgraph.
type EntryKey struct {
	CalendarID string
	EntryID    string
}

// Entry is something on a calendar. Which timing fields are set depends on Kind:
// TIMED sets Start, End and TimeZone; ALL_DAY and MULTI_DAY set StartDate and
// EndDate (exclusive: an all-day entry's EndDate is the next day); a TASK is
// due either on a date (StartDate, EndDate = the next day) or at an instant
// (Start = End, with TimeZone).
type Entry struct {
	ID          string
	CalendarID  string
	Kind        Kind
	Title       string
	Description string   // "" when there is none
	Location    string   // "" when there is none
	Color       string   // "#RRGGBB", or "" to use the calendar's
	Tags        []string // sorted, unique
	Reminders   []int    // minutes before the start, sorted, unique
	// TransparencySet is how the entry counts in free/busy time as set; ""
	// for its kind's default (Transparency).
	TransparencySet Transparency
	// VisibilitySet is who sees the entry's details as set; "" for DEFAULT
	// (Visibility).
	VisibilitySet Visibility
	// Redacted marks an entry as Redact returned it: not the entry as
	// stored, never written.
	Redacted   bool
	Start, End time.Time
	TimeZone   string
	// LocalStart is a timed entry's start as a wall clock in TimeZone
	// (labelled UTC), kept when no instant has it: a time a DST change skips
	// (02:30 on a day New York goes from 02:00 to 03:00). Start is then its
	// reading (03:30), and a series' later occurrences keep the wall clock.
	// Zero otherwise.
	LocalStart  time.Time
	StartDate   Date
	EndDate     Date
	Completed   bool
	CompletedAt time.Time // zero unless Completed
	ICalUID     string    // "<id>@<domain>", fixed at creation (RFC 5545 UID)
	Sequence    int       // RFC 5545 SEQUENCE: incremented on each significant change
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// CreatedBy is the ID of the user who created the entry ("" for entries
	// written before it was recorded); a series split off another keeps its
	// creator. Their stats count it (stats.go).
	CreatedBy string
	// UpdatedBy is the ID of the user who made the entry's last change
	// (its creator until someone changes it); "" on entries not written
	// since it was recorded (history.go). An occurrence of a series reads
	// its exception's, else its series'.
	UpdatedBy string

	// Recurrence is set on a series: the entry's own timing is then that of
	// its first occurrence (RFC 5545's DTSTART and DTEND).
	Recurrence *Recurrence
	// SeriesID is set on an occurrence of a series, generated or an exception.
	SeriesID string
	// OriginalStart and OriginalEnd are when an occurrence happens by its
	// series' rule; OriginalStart is its RFC 5545 RECURRENCE-ID (midnight UTC of
	// its day for a series of whole days, as is OriginalEnd).
	OriginalStart, OriginalEnd time.Time
	// IsException marks an occurrence changed or cancelled on its own.
	IsException bool
	// Cancelled marks a cancelled occurrence.
	Cancelled bool
	// Overrides lists the fields an exception sets itself (see FieldTiming).
	Overrides []string
	// PreviousSeriesID is set on a series split off another (THIS_AND_FOLLOWING).
	PreviousSeriesID string

	// Attendance is the entry's organizer, capacity and attendee summary
	// (attendee.go).
	Attendance Attendance

	// Holds lists the calendars the entry must not overlap the busy time of
	// (mustNotOverlap, booking.go), sorted; the entry makes each of them
	// other than its own busy while it lasts. Never on a series.
	Holds []string
}

// Key returns the entry's key.
func (e *Entry) Key() EntryKey { return EntryKey{CalendarID: e.CalendarID, EntryID: e.ID} }

// Dated reports whether the entry happens on whole days rather than at instants.
func (e *Entry) Dated() bool { return !e.StartDate.IsZero() }

// Interval returns when the entry happens as seen in loc: a dated entry's days
// begin and end at midnight in loc; a timed entry is the same everywhere.
func (e *Entry) Interval(loc *time.Location) (start, end time.Time) {
	if e.Dated() {
		return e.StartDate.In(loc), e.EndDate.In(loc)
	}
	return e.Start, e.End
}

// Overlaps reports whether the entry happens within [from, to) as seen in loc.
// An entry ending exactly at from or starting exactly at to does not; a task
// due at an instant does when the instant is inside.
func (e *Entry) Overlaps(from, to time.Time, loc *time.Location) bool {
	start, end := e.Interval(loc)
	if !end.After(start) {
		return !start.Before(from) && start.Before(to)
	}
	return start.Before(to) && end.After(from)
}

// zoneReach bounds how far from UTC any zone's midnight can be (UTC+14 and
// UTC-12 today, with margin for historical offsets).
const zoneReach = 16 * time.Hour

// Reach returns the widest interval in which the entry can happen, whichever
// zone it is seen in. Stores index entries by it, so a range query needs no zone.
// An exception reaches over both where it happens and where its series would
// have put it, so that a view of either finds it.
func (e *Entry) Reach() (start, end time.Time) {
	start, end = e.Start, e.End
	if e.Dated() {
		start, end = e.StartDate.In(time.UTC).Add(-zoneReach), e.EndDate.In(time.UTC).Add(zoneReach)
	}
	if e.IsException {
		os, oe := e.OriginalStart, e.OriginalEnd
		if e.Dated() {
			os, oe = os.Add(-zoneReach), oe.Add(zoneReach)
		}
		if os.Before(start) {
			start = os
		}
		if oe.After(end) {
			end = oe
		}
	}
	return start, end
}

// Defaults fill what a new or changed entry leaves out; they come from the
// viewer's preferences and the calendar.
type Defaults struct {
	TimeZone  string
	Duration  time.Duration
	Reminders []int
}

// NewEntry is the input for creating an entry; with Recurrence set it creates
// a series whose first occurrence is Timing.
type NewEntry struct {
	CalendarID  string
	Recurrence  *Recurrence
	Timing      Timing
	Title       string
	Description string
	Location    string
	Color       string
	Tags        []string
	Reminders   Patch[[]int] // unset: the viewer's default reminders
	// Transparency is "" for the default of the entry's kind.
	Transparency Transparency
	// Visibility is "" for DEFAULT.
	Visibility Visibility
	// MustNotOverlap names calendars whose busy time the entry must not
	// overlap (booking.go).
	MustNotOverlap []string
}

// Build validates n and returns the entry it describes, without ID, ICalUID,
// version or timestamps (the store sets those).
func (n NewEntry) Build(d Defaults) (Entry, error) {
	e := Entry{CalendarID: n.CalendarID, Sequence: 0, Recurrence: n.Recurrence}
	if err := n.Timing.apply(&e, d); err != nil {
		return e, err
	}
	reminders := d.Reminders
	if n.Reminders.Set {
		reminders = n.Reminders.Value
	}
	upd := EntryUpdate{
		Title: Set(n.Title), Description: Set(n.Description), Location: Set(n.Location),
		Color: Set(n.Color), Tags: Set(n.Tags), Reminders: Set(reminders), Transparency: Set(n.Transparency),
		Visibility: Set(n.Visibility),
	}
	if err := upd.applyFields(&e); err != nil {
		return e, err
	}
	var err error
	e.Holds, err = ValidateMustNotOverlap(n.MustNotOverlap, &e)
	return e, err
}

// EntryUpdate is a partial update of an entry. A set Description, Location or
// Color of "" removes it; set Tags or Reminders replace the whole list.
type EntryUpdate struct {
	Key             EntryKey
	ExpectedVersion int
	Timing          Patch[Timing]
	Title           Patch[string]
	Description     Patch[string]
	Location        Patch[string]
	Color           Patch[string]
	Tags            Patch[[]string]
	Reminders       Patch[[]int]
	// Transparency sets how the entry counts in free/busy time; "" returns
	// it to its kind's default.
	Transparency Patch[Transparency]
	// Visibility sets who sees the entry's details; "" is DEFAULT.
	Visibility Patch[Visibility]
	// Recurrence changes a series' recurrence, or makes a single entry a
	// series; it cannot be removed.
	Recurrence Patch[Recurrence]
	// Capacity bounds the head count (nil: no limit); Waitlist and
	// HideAttendees set the entry's attendance policy (attendee.go). A
	// capacity lowered below the head count unseats no one: later
	// acceptances wait or are refused.
	Capacity      Patch[*int]
	Waitlist      Patch[bool]
	HideAttendees Patch[bool]
	// OrganizerEmail hands the entry's organization over to the calgraph
	// user with that email (the store finds them).
	OrganizerEmail Patch[string]
	// MustNotOverlap replaces the calendars whose busy time the entry must
	// not overlap (booking.go); unset keeps those it has, and a move is
	// checked against them again.
	MustNotOverlap Patch[[]string]
}

// ChangesAttendance reports whether u sets any of the entry's attendance
// (its capacity, waitlist, list visibility or organizer).
func (u EntryUpdate) ChangesAttendance() bool {
	return u.Capacity.Set || u.Waitlist.Set || u.HideAttendees.Set || u.OrganizerEmail.Set
}

// Apply validates the update and returns e with it applied, its Sequence
// incremented when the change is significant in RFC 5545's sense (when or
// where it happens). A new timing that leaves out its zone or end keeps the
// entry's own rather than taking the defaults: moving a meeting keeps its
// length and zone.
func (u EntryUpdate) Apply(e Entry, d Defaults) (Entry, error) {
	before := e
	if e.TimeZone != "" {
		d.TimeZone = e.TimeZone
	}
	if e.End.After(e.Start) {
		d.Duration = e.End.Sub(e.Start)
	}
	if u.Timing.Set {
		if err := u.Timing.Value.apply(&e, d); err != nil {
			return e, err
		}
	}
	if err := u.applyFields(&e); err != nil {
		return e, err
	}
	if u.Recurrence.Set {
		r := u.Recurrence.Value
		e.Recurrence = &r
	}
	if u.MustNotOverlap.Set {
		e.Holds = u.MustNotOverlap.Value
	}
	var err error
	if e.Holds, err = ValidateMustNotOverlap(e.Holds, &e); err != nil {
		return e, err
	}
	if significant(before, e) {
		e.Sequence++
	}
	return e, nil
}

func (u EntryUpdate) applyFields(e *Entry) error {
	var err error
	if u.Title.Set {
		if e.Title, err = validText("title", u.Title.Value, MaxTitleLength, true); err != nil {
			return err
		}
	}
	if u.Description.Set {
		e.Description = strings.TrimSpace(u.Description.Value)
		if len(e.Description) > MaxDescriptionBytes || !utf8.ValidString(e.Description) {
			return Invalidf("description", "description must be valid UTF-8 of at most %d bytes", MaxDescriptionBytes)
		}
	}
	if u.Location.Set {
		if e.Location, err = validText("location", u.Location.Value, MaxLocationLength, false); err != nil {
			return err
		}
	}
	if u.Color.Set {
		if e.Color = u.Color.Value; e.Color != "" {
			if err := ValidateColor("color", e.Color); err != nil {
				return err
			}
		}
	}
	if u.Tags.Set {
		if e.Tags, err = validTags(u.Tags.Value); err != nil {
			return err
		}
	}
	if u.Reminders.Set {
		if e.Reminders, err = validReminders(u.Reminders.Value); err != nil {
			return err
		}
	}
	if u.Transparency.Set {
		if err := ValidateTransparency("transparency", u.Transparency.Value); err != nil {
			return err
		}
		e.TransparencySet = u.Transparency.Value
	}
	if u.Visibility.Set {
		if err := ValidateVisibility("visibility", u.Visibility.Value); err != nil {
			return err
		}
		e.VisibilitySet = u.Visibility.Value
		if e.VisibilitySet == VisibilityDefault {
			e.VisibilitySet = ""
		}
	}
	return u.applyAttendance(&e.Attendance)
}

// applyAttendance applies the attendance policy fields.
func (u EntryUpdate) applyAttendance(a *Attendance) error {
	if u.Capacity.Set {
		if err := ValidateCapacity(u.Capacity.Value); err != nil {
			return err
		}
		a.Capacity = 0
		if u.Capacity.Value != nil {
			a.Capacity = *u.Capacity.Value
		}
	}
	if u.Waitlist.Set {
		a.Waitlist = u.Waitlist.Value
	}
	if u.HideAttendees.Set {
		a.HideAttendees = u.HideAttendees.Value
	}
	return nil
}

// significant reports an RFC 5545 significant change: timing, place or status.
func significant(a, b Entry) bool {
	return a.Kind != b.Kind || !a.Start.Equal(b.Start) || !a.End.Equal(b.End) || a.TimeZone != b.TimeZone ||
		a.StartDate != b.StartDate || a.EndDate != b.EndDate || a.Location != b.Location || a.Completed != b.Completed ||
		a.Cancelled != b.Cancelled || !sameRecurrence(a.Recurrence, b.Recurrence)
}

func sameRecurrence(a, b *Recurrence) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Rule == b.Rule && slices.EqualFunc(a.RDates, b.RDates, time.Time.Equal) && slices.EqualFunc(a.ExDates, b.ExDates, time.Time.Equal)
}

// SetCompleted marks a task completed at now, or open again. Only tasks can be
// completed; a task already in the wanted state is returned unchanged.
func SetCompleted(e Entry, completed bool, now time.Time) (Entry, bool, error) {
	if e.Kind != KindTask {
		return e, false, Invalidf("id", "only tasks can be completed or reopened; this entry is %s", e.Kind)
	}
	if e.Completed == completed {
		return e, false, nil
	}
	e.Completed, e.CompletedAt = completed, time.Time{}
	if completed {
		e.CompletedAt = now
	}
	e.Sequence++
	return e, true, nil
}

// validText trims s and checks its length and that it holds no control
// characters; required refuses an empty result.
func validText(field, s string, max int, required bool) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" && required {
		return "", Invalidf(field, "%s must not be empty", field)
	}
	if !utf8.ValidString(s) {
		return "", Invalidf(field, "%s must be valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", Invalidf(field, "%s is %d characters long; the limit is %d", field, n, max)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", Invalidf(field, "%s must not contain control characters", field)
	}
	return s, nil
}

func validTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t, err := validText("tags", t, MaxTagLength, true)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxTags {
		return nil, Invalidf("tags", "an entry has at most %d tags, got %d", MaxTags, len(out))
	}
	return out, nil
}

func validReminders(minutes []int) ([]int, error) {
	out := slices.Clone(minutes)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxReminders {
		return nil, Invalidf("reminders", "an entry has at most %d reminders, got %d", MaxReminders, len(out))
	}
	for _, m := range out {
		if m < 0 || m > MaxReminderMinutes {
			return nil, Invalidf("reminders", "a reminder is 0 to %d minutes before the entry, got %d", MaxReminderMinutes, m)
		}
	}
	return out, nil
}

// EntryService changes entries for the signed-in viewer, who needs a role that
// writes entries (OWNER or WRITER) on the calendar, checked inside the write.
type EntryService interface {
	// CreateEntry creates an entry. It also returns the calendar as the
	// write's access check read it, before the write: a request's loaders
	// take it for the payload instead of reading it again (the other writes
	// whose result names a calendar do the same). The calendar comes back
	// whenever the check passed, with an error too: a replayed idempotent
	// request, refused here, answers with its first attempt's result, shown
	// on the calendar this attempt read. Errors: CodeUnauthenticated,
	// CodeNotFound, CodeForbidden, CodeInvalid.
	CreateEntry(ctx context.Context, n NewEntry) (*Entry, *Calendar, error)

	// UpdateEntry applies a partial update, returning the entry and its
	// calendar as CreateEntry does. Errors: as CreateEntry, and
	// CodeVersionConflict.
	UpdateEntry(ctx context.Context, u EntryUpdate) (*Entry, *Calendar, error)

	// DeleteEntry deletes an entry. Errors: as UpdateEntry.
	DeleteEntry(ctx context.Context, key EntryKey, expectedVersion int) error

	// SetTaskCompleted completes or reopens a task, returning it and its
	// calendar as CreateEntry does. Errors: as UpdateEntry.
	SetTaskCompleted(ctx context.Context, key EntryKey, expectedVersion int, completed bool) (*Entry, *Calendar, error)

	// MoveEntry moves an entry to another calendar the viewer writes to; it keeps
	// its ID and iCalendar UID but, living in another calendar, gets a new key.
	// It returns the entry and the calendar it moved to, as CreateEntry does.
	// Errors: as UpdateEntry (CodeNotFound and CodeForbidden for either calendar).
	MoveEntry(ctx context.Context, key EntryKey, expectedVersion int, toCalendarID string) (*Entry, *Calendar, error)
}
