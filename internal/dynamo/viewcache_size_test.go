package dynamo

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// heldEntry is an entry like the benchmark's (graph/bench_test.go), its
// strings on the heap as a decoded one's are.
func heldEntry(cal, i int) *calendar.Entry {
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	return &calendar.Entry{
		ID: fmt.Sprintf("01J%023d", i), CalendarID: fmt.Sprintf("01K%023d", cal), Kind: calendar.KindTimed,
		Title: fmt.Sprintf("Meeting %d about the quarterly plan", i), Location: strings.Clone("Room 4"),
		Color: strings.Clone("#336699"), Tags: []string{fmt.Sprint("work", i%3), strings.Clone("team")},
		Reminders: []int{10}, Start: at, End: at.Add(time.Hour), TimeZone: strings.Clone("Europe/Paris"),
		ICalUID: fmt.Sprintf("01J%023d@calgraph", i), Version: 1, CreatedAt: at, UpdatedAt: at,
		CreatedBy: fmt.Sprintf("01U%023d", cal), UpdatedBy: fmt.Sprintf("01U%023d", cal),
		Attendance: calendar.Attendance{Organizer: fmt.Sprintf("01U%023d", cal)},
	}
}

// TestViewCacheSizesAreHonest fills a view cache with range reads and member
// pages and compares what it says it holds with how much the heap grew: the
// bound (-view-cache-bytes) is only a bound on memory if the two agree.
func TestViewCacheSizesAreHonest(t *testing.T) {
	const calendars, perRange = 2000, 5
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := newViewCache(1 << 40)
	for cal := range calendars {
		entries := make([]*calendar.Entry, perRange)
		for i := range entries {
			entries[i] = heldEntry(cal, i)
		}
		from := time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC)
		k := rangeKey(&calendar.Calendar{ID: entries[0].CalendarID, Revision: 7}, from, from.AddDate(0, 0, 7))
		c.put(k, entries, len(entries), rangeBytes(entries))
		page := &calendar.MembershipPage{EndCursor: fmt.Sprint("cursor", cal)}
		for i := range 2 {
			page.Memberships = append(page.Memberships, &calendar.Membership{CalendarID: entries[0].CalendarID,
				UserID: fmt.Sprintf("01U%023d", i), Role: calendar.RoleWriter, Version: 1})
			page.Cursors = append(page.Cursors, fmt.Sprintf("cursor%023d", i))
		}
		c.put(membersKey(&calendar.Calendar{ID: entries[0].CalendarID, Revision: 7}, calendar.Page{First: 20}), page, 2, membersBytes(page))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	held := c.held
	if c.items != calendars*(perRange+2) {
		t.Fatalf("holds %d items, want %d", c.items, calendars*(perRange+2))
	}
	ratio := grew / float64(held)
	t.Logf("the heap grew %.0f bytes, the cache counts %d (%.0f per entry): %.2f×", grew, held, float64(held)/float64(c.items), ratio)
	if ratio < 0.85 || ratio > 1.15 {
		t.Errorf("the heap grew %.2f× what the view cache counts; want within 0.85–1.15×", ratio)
	}
	runtime.KeepAlive(c)
}

// TestViewCacheStaysWithinItsBytes holds more than the bound and checks that
// the least recently used reads went to make room.
func TestViewCacheStaysWithinItsBytes(t *testing.T) {
	one := []*calendar.Entry{heldEntry(0, 0)}
	cost := rangeBytes(one) + heldOverhead
	c := newViewCache(10 * cost)
	from := time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC)
	for day := range 25 {
		c.put(rangeKey(&calendar.Calendar{ID: "c", Revision: 1}, from.AddDate(0, 0, day), from.AddDate(0, 0, day+1)), one, 1, rangeBytes(one))
	}
	if c.held > c.max || c.items != 10 || len(c.index) != 10 {
		t.Fatalf("holds %d bytes in %d reads (%d items), bound %d", c.held, len(c.index), c.items, c.max)
	}
	if _, ok := c.get(context.Background(), rangeKey(&calendar.Calendar{ID: "c", Revision: 1}, from.AddDate(0, 0, 24), from.AddDate(0, 0, 25))); !ok {
		t.Fatal("the last read put is not held")
	}
}
