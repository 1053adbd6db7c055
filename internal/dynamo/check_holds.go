package dynamo

import "slices"

// checkHolds compares the holds on each calendar (booking.go) with the
// entries that hold it: a hold whose entry is gone, no longer holds the
// calendar or is at another time, and an entry without the hold it should
// have, are reported. Calendars whose deletion is under way are left alone:
// their entries' holds go with them.
func (c *checker) checkHolds() {
	type held struct{ calendarID, entryID string }
	entries := map[held]entryRecord{} // by the entry's calendar and ID
	var holds []holdRecord
	for id, items := range c.byCalendar {
		if c.pending[pendingCalendar+"#"+id] {
			continue
		}
		for _, it := range items {
			switch stringAttr(it, "entityType") {
			case entityHold:
				r, _ := unmarshal[holdRecord](it)
				holds = append(holds, r)
			case entityEntry:
				if _, ok := it["holds"]; ok {
					r, _ := decodeEntryRecord(it)
					entries[held{id, r.ID}] = r
				}
			}
		}
	}
	found := map[itemKey]bool{}
	for _, h := range holds {
		if c.pending[pendingCalendar+"#"+h.EntryCalendarID] {
			continue
		}
		r, ok := entries[held{h.EntryCalendarID, h.EntryID}]
		if !ok || !slices.Contains(r.Holds, h.CalendarID) {
			c.problem("calendar %s: hold %s of entry %s/%s, which does not hold the calendar", h.CalendarID, h.SK, h.EntryCalendarID, h.EntryID)
			continue
		}
		e, err := r.entry()
		if err != nil {
			continue // reported with the entry
		}
		k := itemKey{PK: h.PK, SK: h.SK}
		_, reachEnd := e.Reach()
		if want := newHoldRecord(holdKey(h.CalendarID, reachEnd, e.ID), h.CalendarID, e); want != h {
			c.problem("calendar %s: hold %s of entry %s/%s is not at the entry's time", h.CalendarID, h.SK, h.EntryCalendarID, h.EntryID)
		}
		found[k] = true
	}
	for at, r := range entries {
		e, err := r.entry()
		if err != nil {
			continue
		}
		_, reachEnd := e.Reach()
		for _, id := range e.Holds {
			_, exists := c.calendars[id]
			if id != at.calendarID && exists && !c.pending[pendingCalendar+"#"+id] && !found[holdKey(id, reachEnd, e.ID)] {
				c.problem("entry %s/%s holds calendar %s, which has no hold of it", at.calendarID, at.entryID, id)
			}
		}
	}
}
