package dynamo

import (
	"time"
	"unsafe"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The view cache is bounded in bytes (-view-cache-bytes): each thing it holds
// is charged what it keeps reachable on the heap, counted here from its
// fields, plus what holding it costs the cache itself. Go rounds every
// allocation up to a size class (at most an eighth more for the sizes here),
// which alloc rounds for; TestViewCacheSizesAreHonest compares the counts
// with the heap's growth.

// heldOverhead is what the cache spends on each thing it holds whatever it
// is: its list element, its viewCached, its index slot and key.
const heldOverhead = int(unsafe.Sizeof(viewCached{})+unsafe.Sizeof(struct{ next, prev, list, value [2]uintptr }{})) +
	2*int(unsafe.Sizeof(viewKey{})) + 16

// rangeBytes is what a cached range read of these entries keeps: the slice
// and every entry it points to (the cache holds them, not copies of them:
// requests are handed copies of the slice only).
func rangeBytes(entries []*calendar.Entry) int {
	n := alloc(cap(entries) * int(unsafe.Sizeof(uintptr(0))))
	for _, e := range entries {
		n += heldEntryBytes(e)
	}
	return n
}

// heldEntryBytes is what one entry keeps on the heap.
func heldEntryBytes(e *calendar.Entry) int {
	n := alloc(int(unsafe.Sizeof(*e)))
	for _, s := range []string{e.ID, e.CalendarID, e.Title, e.Description, e.Location, e.Color, e.TimeZone,
		e.ICalUID, e.CreatedBy, e.UpdatedBy, e.SeriesID, e.PreviousSeriesID, e.Attendance.Organizer} {
		n += alloc(len(s))
	}
	n += stringsBytes(e.Tags) + stringsBytes(e.Overrides) + stringsBytes(e.Holds)
	n += alloc(cap(e.Reminders) * int(unsafe.Sizeof(int(0))))
	if r := e.Recurrence; r != nil {
		n += alloc(int(unsafe.Sizeof(*r))) + alloc(len(r.Rule)) +
			alloc((cap(r.RDates)+cap(r.ExDates))*int(unsafe.Sizeof(time.Time{})))
	}
	if sh := e.Attendance.Shares; sh != nil {
		// A map takes about twice its slots, each a key and a value.
		n += 48 + 2*len(sh)*int(unsafe.Sizeof(calendar.AnswerKey{})+unsafe.Sizeof(calendar.AttendeeSummary{}))
	}
	return n
}

// membersBytes is what a cached member page keeps: its memberships (without
// settings: member pages never carry them) and cursors.
func membersBytes(p *calendar.MembershipPage) int {
	n := alloc(int(unsafe.Sizeof(*p))) + alloc(cap(p.Memberships)*int(unsafe.Sizeof(uintptr(0)))) +
		stringsBytes(p.Cursors) + alloc(len(p.EndCursor))
	for _, m := range p.Memberships {
		n += alloc(int(unsafe.Sizeof(*m))) + alloc(len(m.CalendarID)) + alloc(len(m.UserID)) + alloc(len(string(m.Role)))
	}
	return n
}

// stringsBytes is what a slice of strings keeps: its array and the strings.
func stringsBytes(ss []string) int {
	n := alloc(cap(ss) * int(unsafe.Sizeof("")))
	for _, s := range ss {
		n += alloc(len(s))
	}
	return n
}

// alloc is what an allocation of n bytes takes: Go's size classes step by
// 16 bytes up to 128, then by at most an eighth.
func alloc(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 128:
		return (n + 15) &^ 15
	}
	step := 1
	for step*16 < n {
		step *= 2
	}
	return (n + step - 1) &^ (step - 1)
}
