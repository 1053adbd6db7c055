package dynamo_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestCheckFindsBrokenInvariants builds a consistent table, breaks one
// invariant at a time as a faulty writer would, and checks Store.Check says so.
func TestCheckFindsBrokenInvariants(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(f *fixture, items []map[string]any)
		want    string
	}{
		{"a slot lost", func(f *fixture, items []map[string]any) {
			it := first(items, "SLOT")
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}, "holds no slot item"},
		{"a day miscounted", func(f *fixture, items []map[string]any) {
			it := first(items, "SLOT_DAY")
			it["timed"] = 99
			f.putItem(it)
		}, "quarter hours"},
		{"an owner tally off", func(f *fixture, items []map[string]any) {
			it := first(items, "OWNER_TALLY")
			it["owners"] = 2
			f.putItem(it)
		}, "owner tally"},
		{"an email item lost", func(f *fixture, items []map[string]any) {
			it := first(items, "EMAIL")
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}, "no email item"},
		{"a piece lost", func(f *fixture, items []map[string]any) {
			it := first(items, "ENTRY_PIECE")
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}, "items, want"},
		{"a series lost under its exception", func(f *fixture, items []map[string]any) {
			it := first(items, "SERIES")
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}, "has no series in its generation"},
		{"a calendar lost under its members", func(f *fixture, items []map[string]any) {
			it := first(items, "CALENDAR")
			f.deleteRaw(it["PK"].(string), it["SK"].(string))
		}, "no deletion under way"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ada, cal := f.resource()
			if _, err := f.book(ada, cal.ID, "Meeting", timed("2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", paris)); err != nil {
				t.Fatal(err)
			}
			if _, err := f.book(ada, cal.ID, "Trip", multiDay("2026-03-10", "2026-03-25")); err != nil {
				t.Fatal(err)
			}
			s := f.series(ada, cal.ID, "Weekly", timed("2026-04-06T09:00:00Z", "2026-04-06T10:00:00Z", paris), "FREQ=WEEKLY;COUNT=3")
			f.edit(ada, s.OccurrenceAt(s.Start), calendar.ScopeThis, title("Kick-off"))
			f.consistent()
			f.messy = true
			tt.corrupt(f, f.items())
			problems, err := f.store.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Fatalf("problems %q, want one saying %q", problems, tt.want)
			}
		})
	}
}

// first returns the first item of an entity type.
func first(items []map[string]any, entityType string) map[string]any {
	for _, it := range items {
		if it["entityType"] == entityType {
			return it
		}
	}
	panic("no " + entityType + " item")
}
