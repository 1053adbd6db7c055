package dynamo_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestSeriesSharesDoNotPileUp: an occurrence answer's share goes from the
// master when the answers there come back to the series' (an ALL answer
// replacing them), so the master's keys count answers that differ, not
// every occurrence ever answered apart; Store.Check agrees.
func TestSeriesSharesDoNotPileUp(t *testing.T) {
	f := newFixture(t)
	m := f.dailyMeeting(2)
	shareAttrs := func() int {
		n := 0
		for _, it := range f.allItems() {
			if it["SK"] == "ENTRY#"+m.entry.ID {
				for name := range it {
					if strings.HasPrefix(name, "ao#") {
						n++
					}
				}
				if keys, ok := it["attKeys"]; ok && len(f.entryNow(m).Attendance.Shares) != int(keys.(float64)) {
					t.Errorf("attKeys %v, shares %d", keys, len(f.entryNow(m).Attendance.Shares))
				}
			}
		}
		return n
	}
	for _, d := range []int{8, 9, 10} {
		_, err := f.answer(m, m.guests[0], d, calendar.ScopeThis, calendar.ResponseDeclined)
		f.mustDo(err)
	}
	if n := len(f.entryNow(m).Attendance.Shares); n != 3 {
		t.Fatalf("%d share keys after three answers apart, want 3", n)
	}
	f.consistent()
	_, err := f.answer(m, m.guests[0], 0, calendar.ScopeAll, calendar.ResponseAccepted)
	f.mustDo(err)
	if n := len(f.entryNow(m).Attendance.Shares); n != 0 {
		t.Errorf("%d share keys after an ALL answer replaced them, want none", n)
	}
	if n := shareAttrs(); n != 0 {
		t.Errorf("%d share attributes left on the master, want none", n)
	}
	f.consistent()
	// The keys are free again: ten more answers apart fit.
	for d := 11; d < 21; d++ {
		_, err := f.answer(m, m.guests[1], d, calendar.ScopeThis, calendar.ResponseTentative)
		f.mustDo(err)
	}
	f.consistent()
}

// TestSeriesSharesComeAndGoConcurrently: eight attendees at once answer
// the same occurrence apart and then the whole series, so that the key of
// that occurrence is made, added to and removed under each other's feet;
// at the end its share is zero (the key itself may stay when the write
// that brought it to zero read another value: answers ADD to a key
// without reading each other; its next write, or the series' next
// rewrite, removes it) and Store.Check agrees.
func TestSeriesSharesComeAndGoConcurrently(t *testing.T) {
	t.Parallel() // a table of its own; it mostly waits on retries
	f := newFixture(t)
	m := f.dailyMeeting(8)
	var wg sync.WaitGroup
	errs := make([]error, len(m.guests))
	for i, g := range m.guests {
		wg.Go(func() {
			if _, errs[i] = f.answer(m, g, 9, calendar.ScopeThis, calendar.ResponseDeclined); errs[i] == nil {
				_, errs[i] = f.answer(m, g, 0, calendar.ScopeAll, calendar.ResponseAccepted)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("guest %d: %v", i, err)
		}
	}
	att := f.entryNow(m).Attendance
	for k, s := range att.Shares {
		if s != (calendar.AttendeeSummary{}) {
			t.Errorf("the share of %v is %+v, want zero", k, s)
		}
	}
	if len(att.Shares) > 1 || att.Summary.Accepted != 8 {
		t.Errorf("after the answers: %d share keys and summary %+v, want at most the one and 8 accepted", len(att.Shares), att.Summary)
	}
	f.consistent()
}
