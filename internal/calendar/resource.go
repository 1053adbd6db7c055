package calendar

import (
	"fmt"
	"slices"
	"time"
)

// Resource calendars (a room, a car, a person's bookable hours) never hold two
// overlapping entries or occurrences. A store enforces it inside each write
// with one item per thing that can be booked, written only if it is free:
//
//   - a quarter-hour slot (SlotLength) for timed bookings, which must start
//     and end on quarter hours and last at most MaxTimedBooking;
//   - a day, in the calendar's zone, for all-day and multi-day bookings (at
//     most MaxDayBooking days), which also counts the quarter hours timed
//     bookings hold that day, so that a whole-day booking and a timed one on
//     the same day exclude each other.
//
// Tasks book nothing. A series books every occurrence, so on a resource
// calendar it must end (COUNT or UNTIL) and hold at most MaxSeriesSlots
// quarter hours and MaxSeriesDays days in all, and a change of it must fit
// one transaction. A resource calendar's flag and zone are fixed when it is
// created, since its day items are days of that zone.

// Booking limits on resource calendars.
const (
	SlotLength      = 15 * time.Minute
	MaxTimedBooking = 8 * time.Hour
	MaxDayBooking   = 31 // days
	MaxSeriesSlots  = 40 // quarter hours of all of a series' occurrences
	MaxSeriesDays   = 20 // days of all of a series' occurrences
)

// Occupant is what holds a slot or day: an entry, or an occurrence of a
// series (OriginalStart set), with its time for messages.
type Occupant struct {
	EntryID       string
	OriginalStart time.Time
	Start, End    time.Time // a timed booking
	From, To      Date      // a booking of whole days, To exclusive
}

// Ref identifies the occupant: its entry ID, or its occurrence ID.
func (o Occupant) Ref() string {
	if o.OriginalStart.IsZero() {
		return o.EntryID
	}
	return OccurrenceID(o.EntryID, o.OriginalStart)
}

// DayUse is what one day of a resource calendar holds: a whole-day booking,
// and how many quarter hours timed bookings hold that day.
type DayUse struct {
	Whole *Occupant
	Timed int
}

// Occupancy is what some entries hold on a resource calendar.
type Occupancy struct {
	Slots map[time.Time]Occupant // by the slot's start, UTC
	Days  map[Date]DayUse
}

func newOccupancy() Occupancy {
	return Occupancy{Slots: map[time.Time]Occupant{}, Days: map[Date]DayUse{}}
}

// Occupy returns what bookings hold on a resource calendar whose zone is loc:
// single entries, or the occurrences of one series (see SeriesBookings).
// Errors: CodeInvalid for a booking off the quarter-hour grid or too long,
// CodeSlotConflict for bookings among them that overlap.
func Occupy(bookings []*Entry, loc *time.Location) (Occupancy, error) {
	o := newOccupancy()
	for _, e := range bookings {
		if e.Kind == KindTask || e.Cancelled {
			continue
		}
		occ := Occupant{EntryID: e.ID, OriginalStart: e.OriginalStart}
		if e.IsOccurrence() {
			occ.EntryID = e.SeriesID
		}
		var err error
		if e.Dated() {
			err = o.addDays(e, occ)
		} else {
			err = o.addSlots(e, occ, loc)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o Occupancy) addSlots(e *Entry, occ Occupant, loc *time.Location) error {
	if !e.Start.Equal(e.Start.Truncate(SlotLength)) || !e.End.Equal(e.End.Truncate(SlotLength)) {
		return Invalidf("timing", "bookings on a resource calendar start and end on a quarter hour")
	}
	if e.End.Sub(e.Start) > MaxTimedBooking {
		return Invalidf("timing", "a timed booking on a resource calendar lasts at most %v; book whole days for longer", MaxTimedBooking)
	}
	occ.Start, occ.End = e.Start, e.End
	for t := e.Start.UTC(); t.Before(e.End); t = t.Add(SlotLength) {
		if prior, taken := o.Slots[t]; taken {
			return slotConflict(prior)
		}
		o.Slots[t] = occ
		d := DateOf(t.In(loc))
		use := o.Days[d]
		use.Timed++
		o.Days[d] = use
	}
	return nil
}

func (o Occupancy) addDays(e *Entry, occ Occupant) error {
	n := e.StartDate.DaysUntil(e.EndDate)
	if n > MaxDayBooking {
		return Invalidf("timing", "a booking of whole days on a resource calendar lasts at most %d days", MaxDayBooking)
	}
	occ.From, occ.To = e.StartDate, e.EndDate
	for i := range n {
		d := e.StartDate.AddDays(i)
		if prior := o.Days[d].Whole; prior != nil {
			return slotConflict(*prior)
		}
		use := o.Days[d]
		use.Whole = &occ
		o.Days[d] = use
	}
	return nil
}

// Check refuses an occupancy whose days hold both a whole-day booking and a
// timed one, which Occupy lets through so that a change can be checked
// against what it replaces.
func (o Occupancy) Check() error {
	for _, use := range o.Days {
		if use.Whole != nil && use.Timed > 0 {
			return slotConflict(*use.Whole)
		}
	}
	return nil
}

// SlotConflict describes the booking a write clashed with.
type SlotConflict struct {
	Occupant
	CalendarID string
}

func slotConflict(o Occupant) *Error {
	e := Errorf(CodeSlotConflict, "the resource is already booked %s: extensions.conflict names the booking", o.When())
	e.Conflict = &SlotConflict{Occupant: o}
	return e
}

// NewSlotConflict returns the error of a booking clashing with o on a
// resource calendar.
func NewSlotConflict(calendarID string, o Occupant) error {
	err := slotConflict(o)
	err.Conflict.CalendarID = calendarID
	return err
}

// When describes the occupant's time for messages.
func (o Occupant) When() string {
	if o.From.IsZero() {
		return fmt.Sprintf("from %s to %s", o.Start.UTC().Format(time.RFC3339), o.End.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("from %s to %s (exclusive)", o.From, o.To)
}

// SeriesBookings returns every occurrence of a series on a resource calendar,
// with its exceptions: the series must end, and all its occurrences together
// hold at most MaxSeriesSlots quarter hours and MaxSeriesDays days. Errors:
// CodeInvalid.
func SeriesBookings(eng RecurrenceEngine, s *Series) ([]*Entry, error) {
	m := s.Master
	last, ok := eng.Last(m)
	if !ok {
		return nil, Invalidf("recurrence.rule", "a series on a resource calendar must end: give COUNT or UNTIL")
	}
	starts, err := eng.Starts(m, m.EarliestStart(), last.Add(time.Second), MaxSeriesSlots+MaxSeriesDays)
	if err != nil {
		return nil, Invalidf("recurrence", "a series on a resource calendar holds at most %d quarter hours and %d days in all", MaxSeriesSlots, MaxSeriesDays)
	}
	var out []*Entry
	slots, days := 0, 0
	for _, start := range starts {
		occ := m.OccurrenceAt(start)
		if x := s.Exception(start); x != nil {
			occ = occ.Overlay(x)
		}
		if occ.Cancelled {
			continue
		}
		if occ.Dated() {
			days += occ.StartDate.DaysUntil(occ.EndDate)
		} else {
			slots += int(occ.End.Sub(occ.Start) / SlotLength)
		}
		out = append(out, occ)
	}
	if slots > MaxSeriesSlots || days > MaxSeriesDays {
		return nil, Invalidf("recurrence", "a series on a resource calendar holds at most %d quarter hours and %d days in all", MaxSeriesSlots, MaxSeriesDays)
	}
	return out, nil
}

// SlotChange is how a write moves a resource calendar's occupancy from what
// an entry or series held before to what it holds after.
type SlotChange struct {
	Take    []time.Time // slots to take: free before
	Release []time.Time // slots to give back
	Retake  []time.Time // slots kept, with another occupant of the same entry
	Days    []Date      // days whose use changes
	Before  Occupancy
	After   Occupancy
}

// ChangeSlots returns what moving from before to after writes.
func ChangeSlots(before, after Occupancy) SlotChange {
	c := SlotChange{Before: before, After: after}
	for t, occ := range after.Slots {
		prior, held := before.Slots[t]
		switch {
		case !held:
			c.Take = append(c.Take, t)
		case prior != occ:
			c.Retake = append(c.Retake, t)
		}
	}
	for t := range before.Slots {
		if _, kept := after.Slots[t]; !kept {
			c.Release = append(c.Release, t)
		}
	}
	for d, use := range after.Days {
		if !sameUse(before.Days[d], use) {
			c.Days = append(c.Days, d)
		}
	}
	for d := range before.Days {
		if _, kept := after.Days[d]; !kept {
			c.Days = append(c.Days, d)
		}
	}
	for _, ts := range [][]time.Time{c.Take, c.Release, c.Retake} {
		slices.SortFunc(ts, time.Time.Compare)
	}
	slices.SortFunc(c.Days, func(a, b Date) int { return a.DaysUntil(b) * -1 })
	return c
}

func sameUse(a, b DayUse) bool {
	if a.Timed != b.Timed || (a.Whole == nil) != (b.Whole == nil) {
		return false
	}
	return a.Whole == nil || *a.Whole == *b.Whole
}

// Size is how many items the change writes.
func (c SlotChange) Size() int { return len(c.Take) + len(c.Release) + len(c.Retake) + len(c.Days) }
