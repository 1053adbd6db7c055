package dynamo

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The checks of what a calendar holds: entries, their pieces and exceptions,
// and on a resource calendar the slot and day items its bookings need.

func (c *checker) checkEntries(calendarID string, entries map[string]entryRecord, exceptions []entryRecord, pieces map[string]int) {
	for _, x := range exceptions {
		if m, ok := entries[x.SeriesID]; (!ok || m.Gen != x.Gen) && !(!ok && c.moving(calendarID, x.SeriesID)) {
			c.problem("calendar %s: exception %s has no series in its generation", calendarID, x.ID)
		}
	}
	all := map[string]int{}
	for id, r := range entries {
		all[id] = r.Pieces
	}
	for _, x := range exceptions {
		all[x.ID] = x.Pieces
	}
	for id, n := range all {
		if got := pieces[id] + 1; got != n {
			c.problem("calendar %s: entry %s has %d items, want %d", calendarID, id, got, n)
		}
	}
	for id := range pieces {
		if _, ok := all[id]; !ok && !c.moving(calendarID, id[:min(len(id), idLength)]) {
			c.problem("calendar %s: pieces of a missing entry %s", calendarID, id)
		}
	}
}

// checkNeverHeldSeries: a calendar marked as never having held a series
// holds none, nor any exception, or views would leave them out.
func (c *checker) checkNeverHeldSeries(cal calendarRecord, entries map[string]entryRecord, exceptions []entryRecord) {
	if !cal.NeverHeldSeries {
		return
	}
	for id, r := range entries {
		if r.EntityType == entitySeries {
			c.problem("calendar %s: marked as never having held a series, holds series %s", cal.ID, id)
		}
	}
	if len(exceptions) > 0 {
		c.problem("calendar %s: marked as never having held a series, holds %d exceptions", cal.ID, len(exceptions))
	}
}

// checkBookings compares a calendar's slot and day items with what its
// entries and series book.
func (c *checker) checkBookings(cal calendarRecord, entries map[string]entryRecord, exceptions []entryRecord, slots []slotRecord, days []dayRecord) {
	if !cal.IsResource {
		if len(slots)+len(days) > 0 {
			c.problem("calendar %s is not a resource but holds %d slot and day items", cal.ID, len(slots)+len(days))
		}
		return
	}
	want, err := c.expectedOccupancy(cal, entries, exceptions)
	if err != nil {
		c.problem("calendar %s: its entries cannot be booked: %v", cal.ID, err)
		return
	}
	for _, r := range slots {
		t, _ := time.Parse(time.RFC3339Nano, r.SK[len(prefixSlot):])
		if o, ok := want.Slots[t]; !ok || o.EntryID != r.EntryID || !o.OriginalStart.Equal(r.OriginalStart) {
			c.problem("calendar %s: slot %s is held by %s, which does not book it", cal.ID, r.SK, r.EntryID)
		}
		delete(want.Slots, t)
	}
	for t, o := range want.Slots {
		c.problem("calendar %s: %s books %s but holds no slot item", cal.ID, o.Ref(), instantKey(t))
	}
	for _, r := range days {
		d, _ := calendar.ReadDate(r.Date)
		use := want.Days[d]
		whole := ""
		if use.Whole != nil {
			whole = use.Whole.Ref()
		}
		if r.Timed != use.Timed || r.Whole != whole {
			c.problem("calendar %s: day %s holds %q and %d quarter hours, its entries %q and %d", cal.ID, r.Date, r.Whole, r.Timed, whole, use.Timed)
		}
		delete(want.Days, d)
	}
	for d, use := range want.Days {
		if use.Timed != 0 || use.Whole != nil {
			c.problem("calendar %s: day %s is booked but has no day item", cal.ID, d)
		}
	}
}

func (c *checker) expectedOccupancy(cal calendarRecord, entries map[string]entryRecord, exceptions []entryRecord) (calendar.Occupancy, error) {
	loc, err := calendar.LoadLocation(cal.TimeZone)
	if err != nil {
		return calendar.Occupancy{}, err
	}
	var bookings []*calendar.Entry
	for _, r := range entries {
		e, err := r.entry()
		if err != nil {
			return calendar.Occupancy{}, err
		}
		var xs []*calendar.Entry
		for _, xr := range exceptions {
			if xr.SeriesID == e.ID && xr.Gen == r.Gen && xr.role() == roleException {
				x, err := xr.entry()
				if err != nil {
					return calendar.Occupancy{}, err
				}
				xs = append(xs, x)
			}
		}
		b, err := c.store.bookings(e, xs)
		if err != nil {
			return calendar.Occupancy{}, err
		}
		bookings = append(bookings, b...)
	}
	o, err := calendar.Occupy(bookings, loc)
	if err == nil {
		err = o.Check()
	}
	return o, err
}
