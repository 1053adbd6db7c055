package dynamo_test

import (
	"fmt"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestSearchBudget: a catch-up's reads count against the search's budget
// (a build's do not); a search refused for it keeps what it read, so the
// next ones, with the same budget, read the rest and succeed.
func TestSearchBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Busy")
	create := func(n int) {
		for i := range n {
			_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("Filler ", i), Timing: soon(1)})
			f.mustDo(err)
		}
	}
	budgeted := func() calendar.SearchQuery {
		q := text("filler")
		q.Budget = calendar.NewBudget(5, 1<<20)
		return q
	}
	create(8)
	if _, err := f.store.Search(ada, budgeted()); err != nil {
		t.Fatalf("the build of 8 entries on a budget of 5: %v", err)
	}
	create(8)
	_, err := f.store.Search(ada, budgeted())
	if code := calendar.ErrorCode(err); code != calendar.CodeTooLarge {
		t.Fatalf("a catch-up of 8 entries on a budget of 5: got %v, want %s", err, calendar.CodeTooLarge)
	}
	// Within 30 s of the writes the log returns the first 8 again as well
	// (a build's token remembers no records): 16 changes, 5 a search.
	for try := 1; ; try++ {
		p, err := f.store.Search(ada, budgeted())
		if err == nil {
			if len(p.Hits) != 16 {
				t.Errorf("found %d entries, want 16", len(p.Hits))
			}
			break
		}
		if try == 4 {
			t.Fatalf("search %d after the refusal: %v", try, err)
		}
	}
}
