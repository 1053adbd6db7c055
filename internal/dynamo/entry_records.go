package dynamo

import (
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// entryRecord is the stored form of five kinds of item, its roles (role
// says which one a record is):
//
//	role                entityType     Piece  SeriesID  Rule  LSI1SK  LSI2SK
//	roleEntry           ENTRY          0      -         -     yes     a task's only
//	roleEntryPiece      ENTRY_PIECE    >0     -         -     yes     -
//	roleSeries          SERIES         0      -         yes   -       by where it ends
//	roleException       EXCEPTION      0      yes       -     yes     -
//	roleExceptionPiece  ENTRY_PIECE    >0     yes       -     yes     -
//
// Every piece is a full copy of its entry or exception, so a range Query
// returns everything a view shows; only the entry item of a task carries
// LSI2SK, so each task appears once in a timeline. Gen is the generation of
// a series' exceptions that is current (on the master) or that an exception
// and its pieces belong to.
type entryRecord struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	LSI1SK string `dynamodbav:"LSI1SK,omitempty"`
	LSI2SK string `dynamodbav:"LSI2SK,omitempty"`
	// Wake and WakeAt are the entry's wake in GSI5 (wakeIndexKey), on the
	// entry item alone: when its reminders are next to be armed.
	Wake        string    `dynamodbav:"GSI5PK,omitempty"`
	WakeAt      string    `dynamodbav:"GSI5SK,omitempty"`
	ReachEnd    string    `dynamodbav:"reachEnd,omitempty"`
	EntityType  string    `dynamodbav:"entityType"`
	Piece       int       `dynamodbav:"piece"`
	Pieces      int       `dynamodbav:"pieces"`
	ID          string    `dynamodbav:"id"`
	CalendarID  string    `dynamodbav:"calendarId"`
	Kind        string    `dynamodbav:"kind"`
	Title       string    `dynamodbav:"title"`
	Description string    `dynamodbav:"description,omitempty"`
	Location    string    `dynamodbav:"location,omitempty"`
	Color       string    `dynamodbav:"color,omitempty"`
	Tags        []string  `dynamodbav:"tags,omitempty,stringset"`
	Reminders   []int     `dynamodbav:"reminders,omitempty,numberset"`
	Transp      string    `dynamodbav:"transp,omitempty"` // calendar.Entry.TransparencySet
	Vis         string    `dynamodbav:"vis,omitempty"`    // calendar.Entry.VisibilitySet
	Start       string    `dynamodbav:"start,omitempty"`
	End         string    `dynamodbav:"end,omitempty"`
	TimeZone    string    `dynamodbav:"timeZone,omitempty"`
	LocalStart  string    `dynamodbav:"localStart,omitempty"` // calendar.Entry.LocalStart, "2006-01-02T15:04:05"
	StartDate   string    `dynamodbav:"startDate,omitempty"`
	EndDate     string    `dynamodbav:"endDate,omitempty"`
	Completed   bool      `dynamodbav:"completed,omitempty"`
	CompletedAt string    `dynamodbav:"completedAt,omitempty"`
	ICalUID     string    `dynamodbav:"icalUid"`
	Sequence    int       `dynamodbav:"sequence"`
	Version     int       `dynamodbav:"version"`
	CreatedAt   time.Time `dynamodbav:"createdAt"`
	UpdatedAt   time.Time `dynamodbav:"updatedAt"`
	CreatedBy   string    `dynamodbav:"createdBy,omitempty"`
	UpdatedBy   string    `dynamodbav:"updatedBy,omitempty"`

	Rule             string   `dynamodbav:"rrule,omitempty"`
	RDates           []string `dynamodbav:"rdates,omitempty"`
	ExDates          []string `dynamodbav:"exdates,omitempty"`
	PreviousSeriesID string   `dynamodbav:"previousSeriesId,omitempty"`
	Gen              string   `dynamodbav:"gen,omitempty"`
	Xrev             int      `dynamodbav:"xrev,omitempty"`
	SeriesStart      string   `dynamodbav:"seriesStart,omitempty"`
	SeriesID         string   `dynamodbav:"seriesId,omitempty"`
	OriginalStart    string   `dynamodbav:"originalStart,omitempty"`
	OriginalEnd      string   `dynamodbav:"originalEnd,omitempty"`
	Cancelled        bool     `dynamodbav:"cancelled,omitempty"`
	Overrides        []string `dynamodbav:"overrides,omitempty,stringset"`

	// The entry's attendance (calendar.Attendance): who organizes it, its
	// capacity, and its attendees' summary, which attendee writes change by
	// ADD (attendees.go) and every other write copies as read, on condition
	// that AttRev is still as read.
	Organizer      string `dynamodbav:"organizer,omitempty"`
	Capacity       int    `dynamodbav:"capacity,omitempty"`
	Waitlist       bool   `dynamodbav:"waitlist,omitempty"`
	HideAttendees  bool   `dynamodbav:"hideAttendees,omitempty"`
	AttNeedsAction int    `dynamodbav:"attNeedsAction,omitempty"`
	AttAccepted    int    `dynamodbav:"attAccepted,omitempty"`
	AttTentative   int    `dynamodbav:"attTentative,omitempty"`
	AttDeclined    int    `dynamodbav:"attDeclined,omitempty"`
	AttWaitlisted  int    `dynamodbav:"attWaitlisted,omitempty"`
	AttGuests      int    `dynamodbav:"attGuests,omitempty"`
	AttHeads       int    `dynamodbav:"attHeads,omitempty"` // AttAccepted + AttGuests, for conditions
	AttTickets     int    `dynamodbav:"attTickets,omitempty"`
	AttRev         int    `dynamodbav:"attRev,omitempty"`
	// AttEpoch is the answer epoch (calendar.Attendance.Epoch): a move of
	// the entry's time raises it in the write that moves it, and an
	// attendee item whose epoch is older reads as NEEDS_ACTION.
	AttEpoch int `dynamodbav:"attEpoch,omitempty"`
	// A series master's occurrence answer shares (series_answers.go), by
	// key: attributes of their own, which the marshaller writes.
	Shares  map[calendar.AnswerKey]calendar.AttendeeSummary `dynamodbav:"-"`
	AttKeys int                                             `dynamodbav:"attKeys,omitempty"`
	// Holds is calendar.Entry.Holds: the calendars whose busy time the
	// entry must not overlap (booking.go).
	Holds []string `dynamodbav:"holds,omitempty,stringset"`
	// A series master's count of occurrence moves and each moved
	// occurrence's reset mark (calendar.Attendance.Moves, Resets): the
	// marks are attributes of their own too (series_answers.go).
	AttMoves int               `dynamodbav:"attMoves,omitempty"`
	Resets   map[time.Time]int `dynamodbav:"-"`
}

// entryRole is which of its five kinds of item an entryRecord is.
type entryRole int

const (
	roleEntry          entryRole = iota // a single entry (event or task), its piece 0
	roleEntryPiece                      // a later piece of a single entry (pieces.go)
	roleSeries                          // a series' master, with its rule
	roleException                       // an exception of a series, its piece 0
	roleExceptionPiece                  // a later piece of an exception
)

// role returns which kind of item r is.
func (r *entryRecord) role() entryRole {
	switch {
	case r.EntityType == entitySeries:
		return roleSeries
	case r.Piece > 0 && r.SeriesID != "":
		return roleExceptionPiece
	case r.Piece > 0:
		return roleEntryPiece
	case r.SeriesID != "":
		return roleException
	default:
		return roleEntry
	}
}

// placement is what decides where a series' items go beyond the entry itself:
// the generation of its exceptions, and for a master where its last
// occurrence's reach ends (zero when it never ends).
type placement struct {
	gen       string
	seriesEnd time.Time
}

// storageID is the ID an entry's items are stored under.
func storageID(e *calendar.Entry, gen string) string {
	if e.IsException {
		return exceptionID(e.SeriesID, gen, e.OriginalStart)
	}
	return e.ID
}

// entryRecords returns the entry item and its pieces (a series' master has
// none: it is found through LSI2).
func entryRecords(e *calendar.Entry, pl placement) []entryRecord {
	starts := pieceStarts(e)
	_, reachEnd := e.Reach()
	if e.IsSeries() {
		starts = starts[:1]
	}
	base := entryRecord{
		EntityType: entityEntry, Pieces: len(starts),
		ID: e.ID, CalendarID: e.CalendarID, Kind: string(e.Kind), Title: e.Title,
		Description: e.Description, Location: e.Location, Color: e.Color, Tags: e.Tags, Reminders: e.Reminders,
		Transp: string(e.TransparencySet), Vis: string(e.VisibilitySet), Start: formatTime(e.Start), End: formatTime(e.End), TimeZone: e.TimeZone, LocalStart: formatLocal(e.LocalStart),
		StartDate: formatDate(e.StartDate), EndDate: formatDate(e.EndDate),
		Completed: e.Completed, CompletedAt: formatTime(e.CompletedAt),
		ICalUID: e.ICalUID, Sequence: e.Sequence, Version: e.Version, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, CreatedBy: e.CreatedBy, UpdatedBy: e.UpdatedBy,
		PreviousSeriesID: e.PreviousSeriesID, Cancelled: e.Cancelled, Overrides: e.Overrides, Holds: e.Holds,
	}
	base.setAttendance(e.Attendance)
	switch {
	case e.IsSeries():
		base.EntityType, base.Gen, base.Rule = entitySeries, pl.gen, e.Recurrence.Rule
		base.SeriesStart = instantKey(starts[0])
		if early := e.EarliestStart(); early.Before(e.FirstStart()) { // an RDATE before the start
			if s, _ := e.OccurrenceAt(early).Reach(); s.Before(starts[0]) {
				base.SeriesStart = instantKey(s)
			}
		}
		base.RDates, base.ExDates = formatTimes(e.Recurrence.RDates), formatTimes(e.Recurrence.ExDates)
	case e.IsException:
		base.EntityType, base.Gen, base.SeriesID = entityException, pl.gen, e.SeriesID
		base.ID = storageID(e, pl.gen)
		base.OriginalStart, base.OriginalEnd = formatTime(e.OriginalStart), formatTime(e.OriginalEnd)
	}
	records := make([]entryRecord, len(starts))
	for n, start := range starts {
		r := base
		k := entryKey(e.CalendarID, base.ID)
		switch {
		case n > 0:
			k, r.EntityType = entryPieceKey(e.CalendarID, base.ID, n), entityEntryPiece
		case e.Kind == calendar.KindTask:
			r.LSI2SK = taskSortKey(e)
		case e.IsSeries():
			r.LSI2SK = seriesSortKey(pl.seriesEnd, e.ID)
		}
		r.PK, r.SK, r.Piece = k.PK, k.SK, n
		if !e.IsSeries() {
			r.LSI1SK, r.ReachEnd = reachSortKey(start, base.ID, n), instantKey(reachEnd)
		}
		if at, ok := wakeOf(e, pl); ok && n == 0 {
			k := wakeIndexKey(e.CalendarID, base.ID, at)
			r.Wake, r.WakeAt = k.PK, k.SK
		}
		records[n] = r
	}
	return records
}

// wakeOf is when an entry's reminders are to be armed (remind_arming.go), as
// its write leaves it: a series' at the write (its next occurrences are
// armed at once, and the scheduler then moves the wake to the occurrence
// past what it armed); a single entry's or an exception's an ArmHorizon
// before it can start, or at the write when that is later. An entry that has
// ended by the write, a cancelled occurrence and a completed task have none.
func wakeOf(e *calendar.Entry, pl placement) (time.Time, bool) {
	written := e.UpdatedAt
	if e.IsSeries() {
		return written, pl.seriesEnd.IsZero() || pl.seriesEnd.After(written)
	}
	start, end := e.Reach()
	if e.Cancelled || e.Completed || !end.After(written) {
		return time.Time{}, false
	}
	return maxTime(start.Add(-calendar.ArmHorizon), written), true
}

// setAttendance writes a's attributes into r.
func (r *entryRecord) setAttendance(a calendar.Attendance) {
	r.Organizer, r.Capacity, r.Waitlist, r.HideAttendees = a.Organizer, a.Capacity, a.Waitlist, a.HideAttendees
	s := a.Summary
	r.AttNeedsAction, r.AttAccepted, r.AttTentative, r.AttDeclined = s.NeedsAction, s.Accepted, s.Tentative, s.Declined
	r.AttWaitlisted, r.AttGuests, r.AttTickets, r.AttRev = s.Waitlisted, s.AcceptedGuests, a.Tickets, a.Rev
	r.AttHeads, r.AttEpoch = s.HeadCount(), a.Epoch
	r.Shares, r.AttKeys, r.AttMoves, r.Resets = a.Shares, 0, a.Moves, a.Resets
	for _, d := range a.Shares {
		if d != (calendar.AttendeeSummary{}) {
			r.AttKeys++
		}
	}
}

// attendance reads r's attendance attributes.
func (r *entryRecord) attendance() calendar.Attendance {
	return calendar.Attendance{
		Organizer: r.Organizer, Capacity: r.Capacity, Waitlist: r.Waitlist, HideAttendees: r.HideAttendees,
		Summary: calendar.AttendeeSummary{
			NeedsAction: r.AttNeedsAction, Accepted: r.AttAccepted, Tentative: r.AttTentative, Declined: r.AttDeclined,
			Waitlisted: r.AttWaitlisted, AcceptedGuests: r.AttGuests,
		},
		Tickets: r.AttTickets, Rev: r.AttRev, Epoch: r.AttEpoch, Shares: r.Shares,
		Moves: r.AttMoves, Resets: r.Resets,
	}
}

func taskSortKey(e *calendar.Entry) string {
	if e.Completed {
		return doneTaskSortKey(e.CompletedAt, e.ID)
	}
	due, _ := e.Interval(time.UTC)
	return openTaskSortKey(due, e.ID)
}

func (r entryRecord) entry() (*calendar.Entry, error) {
	e := &calendar.Entry{
		ID: r.ID, CalendarID: r.CalendarID, Kind: calendar.Kind(r.Kind), Title: r.Title,
		Description: r.Description, Location: r.Location, Color: r.Color, Tags: r.Tags, Reminders: r.Reminders,
		TransparencySet: calendar.Transparency(r.Transp), VisibilitySet: calendar.Visibility(r.Vis), TimeZone: r.TimeZone, Completed: r.Completed,
		ICalUID: r.ICalUID, Sequence: r.Sequence, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, CreatedBy: r.CreatedBy, UpdatedBy: r.UpdatedBy,
		PreviousSeriesID: r.PreviousSeriesID, SeriesID: r.SeriesID, IsException: r.SeriesID != "",
		Cancelled: r.Cancelled, Overrides: r.Overrides, Attendance: r.attendance(), Holds: r.Holds,
	}
	var err error
	for _, f := range []struct {
		raw string
		dst *time.Time
	}{{r.Start, &e.Start}, {r.End, &e.End}, {r.CompletedAt, &e.CompletedAt}, {r.OriginalStart, &e.OriginalStart}, {r.OriginalEnd, &e.OriginalEnd}} {
		if f.raw != "" {
			if *f.dst, err = time.Parse(time.RFC3339Nano, f.raw); err != nil {
				return nil, fmt.Errorf("entry %s: %w", r.ID, err)
			}
		}
	}
	for _, f := range []struct {
		raw string
		dst *calendar.Date
	}{{r.StartDate, &e.StartDate}, {r.EndDate, &e.EndDate}} {
		if f.raw != "" {
			if *f.dst, err = calendar.ReadDate(f.raw); err != nil {
				return nil, fmt.Errorf("entry %s: %w", r.ID, err)
			}
		}
	}
	if err := calendar.ValidateTransparency("transp", e.TransparencySet); err != nil {
		return nil, fmt.Errorf("entry %s: %w", r.ID, err)
	}
	if e.VisibilitySet == calendar.VisibilityDefault || calendar.ValidateVisibility("vis", e.VisibilitySet) != nil {
		return nil, fmt.Errorf("entry %s: vis %q is not PRIVATE (DEFAULT is no attribute)", r.ID, r.Vis)
	}
	if r.LocalStart != "" {
		if e.LocalStart, err = time.Parse(localLayout, r.LocalStart); err != nil {
			return nil, fmt.Errorf("entry %s: %w", r.ID, err)
		}
	}
	if r.Rule != "" {
		e.Recurrence = &calendar.Recurrence{Rule: r.Rule}
		if e.Recurrence.RDates, err = parseTimes(r.RDates); err == nil {
			e.Recurrence.ExDates, err = parseTimes(r.ExDates)
		}
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", r.ID, err)
		}
	}
	if e.IsException {
		e.ID = calendar.OccurrenceID(r.SeriesID, e.OriginalStart)
	}
	return e, nil
}

func formatTimes(ts []time.Time) []string {
	var out []string
	for _, t := range ts {
		out = append(out, formatTime(t))
	}
	return out
}

func parseTimes(raw []string) ([]time.Time, error) {
	var out []time.Time
	for _, s := range raw {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// localLayout is a wall clock's form in LocalStart.
const localLayout = "2006-01-02T15:04:05"

func formatLocal(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(localLayout)
}

func formatDate(d calendar.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}
