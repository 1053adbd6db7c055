package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Resource calendars' bookings (see calendar/resource.go): a slot item per
// quarter hour held by a timed booking, and a day item per day in the
// calendar's zone holding a whole-day booking and the number of quarter hours
// timed bookings hold that day. Every write of an entry on a resource
// calendar takes and releases exactly the items its change moves, in the
// same transaction as the entry, each under a condition that makes a clash
// fail the whole with SLOT_CONFLICT.

// slotRecord is a quarter hour held by a timed booking.
type slotRecord struct {
	PK            string    `dynamodbav:"PK"`
	SK            string    `dynamodbav:"SK"`
	EntityType    string    `dynamodbav:"entityType"`
	CalendarID    string    `dynamodbav:"calendarId"`
	EntryID       string    `dynamodbav:"entryId"`
	OriginalStart time.Time `dynamodbav:"originalStart"`
	Start         time.Time `dynamodbav:"start"`
	End           time.Time `dynamodbav:"end"`
}

func (r slotRecord) occupant() calendar.Occupant {
	return calendar.Occupant{EntryID: r.EntryID, OriginalStart: r.OriginalStart, Start: r.Start, End: r.End}
}

// dayRecord is a day of a resource calendar: Whole names the whole-day
// booking holding it ("" when none), Timed counts the quarter hours timed
// bookings hold.
type dayRecord struct {
	PK                 string    `dynamodbav:"PK"`
	SK                 string    `dynamodbav:"SK"`
	EntityType         string    `dynamodbav:"entityType"`
	CalendarID         string    `dynamodbav:"calendarId"`
	Date               string    `dynamodbav:"date"`
	Whole              string    `dynamodbav:"whole"`
	WholeEntryID       string    `dynamodbav:"wholeEntryId"`
	WholeOriginalStart time.Time `dynamodbav:"wholeOriginalStart"`
	WholeFrom          string    `dynamodbav:"wholeFrom"`
	WholeTo            string    `dynamodbav:"wholeTo"`
	Timed              int       `dynamodbav:"timed"`
}

func (r dayRecord) occupant() calendar.Occupant {
	from, _ := calendar.ReadDate(r.WholeFrom)
	to, _ := calendar.ReadDate(r.WholeTo)
	return calendar.Occupant{EntryID: r.WholeEntryID, OriginalStart: r.WholeOriginalStart, From: from, To: to}
}

// bookings returns what an entry books: itself, or a series' occurrences.
func (s *Store) bookings(e *calendar.Entry, exceptions []*calendar.Entry) ([]*calendar.Entry, error) {
	if e == nil {
		return nil, nil
	}
	if e.IsSeries() {
		return calendar.SeriesBookings(s.recur, &calendar.Series{Master: e, Exceptions: exceptions})
	}
	return []*calendar.Entry{e}, nil
}

// unchangedFirst orders after's bookings so that those before holds just
// alike come first: a clash within after (an occurrence moved onto another
// of its series) then names the booking that stays, not the one moved.
func unchangedFirst(before, after []*calendar.Entry) []*calendar.Entry {
	key := func(e *calendar.Entry) string {
		return fmt.Sprint(e.SeriesID, e.ID, e.OriginalStart.UnixMilli(), e.Start.UnixMilli(), e.End.UnixMilli(), e.StartDate, e.EndDate, e.Cancelled)
	}
	held := map[string]bool{}
	for _, e := range before {
		held[key(e)] = true
	}
	var kept, changed []*calendar.Entry
	for _, e := range after {
		if held[key(e)] {
			kept = append(kept, e)
		} else {
			changed = append(changed, e)
		}
	}
	return append(kept, changed...)
}

// slotWrites returns the actions that move a resource calendar's bookings
// from before to after (nil for a calendar that is not a resource).
func (s *Store) slotWrites(cal *calendar.Calendar, before, after []*calendar.Entry) ([]txOp, error) {
	if cal == nil || !cal.IsResource {
		return nil, nil
	}
	loc, err := calendar.LoadLocation(cal.TimeZone)
	if err != nil {
		return nil, err
	}
	was, err := calendar.Occupy(before, loc)
	if err != nil {
		return nil, err
	}
	will, err := calendar.Occupy(unchangedFirst(before, after), loc)
	if err != nil {
		return nil, err
	}
	if err := will.Check(); err != nil {
		return nil, err
	}
	c := calendar.ChangeSlots(was, will)
	own := map[string]bool{} // the entries the change moves, not to be named as its clash
	for _, o := range was.Slots {
		own[o.EntryID] = true
	}
	var ops []txOp
	for _, t := range c.Take {
		ops = append(ops, opPut(slotKey(cal.ID, t), newSlotRecord(cal.ID, t, will.Slots[t]), notExists(), slotTaken(cal.ID)))
	}
	for _, t := range c.Retake {
		ops = append(ops, opPut(slotKey(cal.ID, t), newSlotRecord(cal.ID, t, will.Slots[t]), heldBy(was.Slots[t].EntryID), slotLost))
	}
	for _, t := range c.Release {
		ops = append(ops, opDelete(slotKey(cal.ID, t), heldBy(was.Slots[t].EntryID), slotLost))
	}
	for _, d := range c.Days {
		ops = append(ops, dayWrite(cal.ID, d, was.Days[d], will.Days[d], own))
	}
	return ops, nil
}

func newSlotRecord(calendarID string, t time.Time, o calendar.Occupant) slotRecord {
	k := slotKey(calendarID, t)
	return slotRecord{PK: k.PK, SK: k.SK, EntityType: entitySlot, CalendarID: calendarID, EntryID: o.EntryID,
		OriginalStart: o.OriginalStart, Start: o.Start, End: o.End}
}

func heldBy(entryID string) expression.ConditionBuilder {
	return exists().And(expression.Name("entryId").Equal(expression.Value(entryID)))
}

func slotTaken(calendarID string) explainFunc {
	return func(old item) error {
		r, err := unmarshal[slotRecord](old)
		if err != nil {
			return err
		}
		return calendar.NewSlotConflict(calendarID, r.occupant())
	}
}

func slotLost(item) error {
	return errors.New("a slot of the entry's booking is held by another")
}

// dayWrite returns the write of one day from was to will: the whole-day
// booking it names and the quarter hours timed bookings hold. own names the
// entries whose timed bookings the change moves. A day only a whole-day
// booking held is deleted when it lets go (no timed booking can be there);
// a day whose timed count falls to zero stays, as the count of others'
// bookings is not known to the write: one small item per day that ever held
// a timed booking.
func dayWrite(calendarID string, d calendar.Date, was, will calendar.DayUse, own map[string]bool) txOp {
	if was.Whole != nil && will.Whole == nil && was.Timed == 0 && will.Timed == 0 {
		return opDelete(dayKey(calendarID, d), expression.Name("whole").Equal(expression.Value(was.Whole.Ref())), slotLost)
	}
	timed, wholeName := expression.Name("timed"), expression.Name("whole")
	upd := expression.Add(timed, expression.Value(will.Timed-was.Timed)).
		Set(expression.Name("entityType"), expression.Value(entitySlotDay)).
		Set(expression.Name("calendarId"), expression.Value(calendarID)).
		Set(expression.Name("date"), expression.Value(d.String()))
	var w calendar.Occupant
	whole, from, to := "", "", ""
	if will.Whole != nil {
		w = *will.Whole
		whole, from, to = w.Ref(), w.From.String(), w.To.String()
	}
	upd = upd.Set(wholeName, expression.Value(whole)).
		Set(expression.Name("wholeEntryId"), expression.Value(w.EntryID)).
		Set(expression.Name("wholeOriginalStart"), expression.Value(w.OriginalStart)).
		Set(expression.Name("wholeFrom"), expression.Value(from)).
		Set(expression.Name("wholeTo"), expression.Value(to))

	free := expression.AttributeNotExists(wholeName).Or(wholeName.Equal(expression.Value("")))
	if was.Whole != nil {
		free = wholeName.Equal(expression.Value(was.Whole.Ref())) // ours to keep or give back
	}
	cond := noCondition()
	switch {
	case will.Whole != nil: // and no one else's timed bookings
		cond = free.And(expression.AttributeNotExists(timed).Or(timed.Equal(expression.Value(was.Timed))))
	case was.Whole != nil || will.Timed > was.Timed:
		cond = free
	}
	return opUpdate(dayKey(calendarID, d), upd, cond, func(old item) error {
		r, err := unmarshal[dayRecord](old)
		if err != nil {
			return err
		}
		if r.Whole != "" {
			return calendar.NewSlotConflict(calendarID, r.occupant())
		}
		return &dayTakenError{calendarID: calendarID, day: d, own: own}
	})
}

// dayTakenError is a whole-day booking refused for timed bookings on the
// day; the store names one of them, not of the entries own names, before
// answering (bookingFailed).
type dayTakenError struct {
	calendarID string
	day        calendar.Date
	own        map[string]bool
}

func (e *dayTakenError) Error() string { return "day " + e.day.String() + " holds timed bookings" }

// bookingFailed turns a write's error about a day into the SLOT_CONFLICT of
// one of the timed bookings that hold it.
func (s *Store) bookingFailed(ctx context.Context, err error) error {
	var day *dayTakenError
	if !errors.As(err, &day) {
		return err
	}
	loc := time.UTC
	if it, found, gerr := s.getItem(ctx, calendarKey(day.calendarID)); gerr == nil && found {
		if r, uerr := decodeCalendarRecord(it); uerr == nil {
			if l, lerr := calendar.LoadLocation(r.TimeZone); lerr == nil {
				loc = l
			}
		}
	}
	lo, hi := slotRange(day.day.In(loc), day.day.AddDays(1).In(loc))
	items, qerr := s.queryBetween(ctx, "", attrSK, calendarPartition(day.calendarID), lo, hi, filter{}, 1000)
	if qerr == nil {
		for _, it := range items {
			r, uerr := unmarshal[slotRecord](it)
			if uerr != nil {
				return fmt.Errorf("read the clashing booking: %w", uerr)
			}
			if !day.own[r.EntryID] {
				return calendar.NewSlotConflict(day.calendarID, r.occupant())
			}
		}
	}
	return calendar.Errorf(calendar.CodeSlotConflict, "the resource is already booked for part of %s", day.day)
}
