package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// holdRecord is the time an entry of another calendar holds on a calendar
// (booking.go): busy as the entry makes it, nothing of what it is but its
// time, how busy, and which entry it is, for Store.Check.
type holdRecord struct {
	PK              string `dynamodbav:"PK"`
	SK              string `dynamodbav:"SK"`
	EntityType      string `dynamodbav:"entityType"`
	CalendarID      string `dynamodbav:"calendarId"` // the calendar held
	EntryCalendarID string `dynamodbav:"entryCalendarId"`
	EntryID         string `dynamodbav:"entryId"`
	Kind            string `dynamodbav:"kind"`
	Transp          string `dynamodbav:"transp,omitempty"`
	Start           string `dynamodbav:"start,omitempty"`
	End             string `dynamodbav:"end,omitempty"`
	StartDate       string `dynamodbav:"startDate,omitempty"`
	EndDate         string `dynamodbav:"endDate,omitempty"`
}

func newHoldRecord(k itemKey, calendarID string, e *calendar.Entry) holdRecord {
	return holdRecord{PK: k.PK, SK: k.SK, EntityType: entityHold, CalendarID: calendarID,
		EntryCalendarID: e.CalendarID, EntryID: e.ID, Kind: string(e.Kind), Transp: string(e.TransparencySet),
		Start: formatTime(e.Start), End: formatTime(e.End), StartDate: formatDate(e.StartDate), EndDate: formatDate(e.EndDate)}
}

// busy returns the hold as an entry that has its time and busy status and
// nothing else: what calendar.Busy reads. Its ID is the entry's.
func (r holdRecord) busy() (*calendar.Entry, error) {
	e := &calendar.Entry{ID: r.EntryID, CalendarID: r.EntryCalendarID, Kind: calendar.Kind(r.Kind),
		TransparencySet: calendar.Transparency(r.Transp)}
	var err error
	if r.Start != "" {
		if e.Start, err = time.Parse(time.RFC3339Nano, r.Start); err == nil {
			e.End, err = time.Parse(time.RFC3339Nano, r.End)
		}
	}
	if err == nil && r.StartDate != "" {
		if e.StartDate, err = calendar.ReadDate(r.StartDate); err == nil {
			e.EndDate, err = calendar.ReadDate(r.EndDate)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("hold %s/%s: %w", r.PK, r.SK, err)
	}
	return e, nil
}

// maxHolds bounds the holds one busy read takes: those ending after its
// start, so a calendar's bookings still to come.
const maxHolds = 2 * calendar.MaxViewEntries

// busyTime is when cal is busy in [from, to), as freeBusy shows it
// (calendar.Busy, in cal's zone): its entries and their series' occurrences
// with exceptions laid over them, FREE ones not counting, and the holds of
// entries elsewhere on it. The entry or hold of except (an entry ID) is left
// out: an entry moved does not clash with where it was. A series too dense
// to expand in the range makes all of it busy. The reads are strong; what
// they show is settled only as booking.go says.
func (s *Store) busyTime(ctx context.Context, cal *calendar.Calendar, from, to time.Time, except string) ([]calendar.BusyInterval, error) {
	loc, err := calendar.LoadLocation(cal.TimeZone)
	if err != nil {
		return nil, err
	}
	var entries, holds []*calendar.Entry
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		entries, _, err = s.entriesReaching(gctx, nil, cal, from, to, pageReserve(0))
		return err
	})
	g.Go(func() (err error) {
		holds, err = s.HoldsReaching(gctx, cal, from, to)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	entries = append(entries, holds...)
	entries = slices.DeleteFunc(entries, func(e *calendar.Entry) bool { return e.ID == except })
	r := calendar.Range{Start: from, End: to, Zone: loc}
	x, err := calendar.Expand(s.recur, entries, r, false, calendar.MaxOccurrencesPerRequest)
	if err != nil {
		return nil, err
	}
	if len(x.TooDense) > 0 {
		return []calendar.BusyInterval{{Interval: calendar.Interval{Start: from, End: to}, Status: calendar.TransparencyBusy}}, nil
	}
	return calendar.Busy(x.Entries, r), nil
}

// HoldsReaching implements calendar.HoldReader with a strongly consistent
// Query of the holds whose reach ends after from (holdKey); those starting
// at to or later are left out here.
func (s *Store) HoldsReaching(ctx context.Context, cal *calendar.Calendar, from, to time.Time) ([]*calendar.Entry, error) {
	if !cal.HasHolds {
		return nil, nil
	}
	lo, hi := holdRange(from)
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(cal.ID), lo, hi, filter{}, maxHolds)
	if err != nil {
		return nil, fmt.Errorf("query holds of calendar %s: %w", cal.ID, err)
	}
	var holds []*calendar.Entry
	for _, it := range items {
		r, err := unmarshal[holdRecord](it)
		if err != nil {
			return nil, err
		}
		h, err := r.busy()
		if err != nil {
			return nil, err
		}
		if start, _ := h.Reach(); start.Before(to) {
			holds = append(holds, h)
		}
	}
	return holds, nil
}

// unsettledFor is how long a read of calendarID at revision must wait for
// this instance to have seen it there for the settle window (booking.go);
// it records the sighting. Without a cache, every read waits the window.
func (c *viewCache) unsettledFor(calendarID string, revision int64) time.Duration {
	if c == nil {
		return settleWindow
	}
	c.settled(calendarID, revision, time.Time{})
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.seen[calendarID]
	if !ok || s.revision != revision { // seen newer since: this read is stale anyway
		return 0
	}
	return max(0, c.settle-c.now().Sub(s.at))
}

// holdsOf returns the keys of the holds of the entry whose item it is (none
// for any other item): a calendar's deletion removes them with its entries.
func holdsOf(it item) []itemKey {
	if _, ok := it["holds"]; !ok || stringAttr(it, "entityType") != entityEntry {
		return nil
	}
	r, err := decodeEntryRecord(it)
	if err != nil {
		return nil
	}
	e, err := r.entry()
	if err != nil {
		return nil
	}
	_, reachEnd := e.Reach()
	var keys []itemKey
	for _, id := range e.Holds {
		if id != e.CalendarID {
			keys = append(keys, holdKey(id, reachEnd, e.ID))
		}
	}
	return keys
}
