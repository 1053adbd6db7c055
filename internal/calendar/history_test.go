package calendar_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestEntryChanges: only the fields that differ, in the API's formats; a
// long value cut at a character's start within MaxHistoryValue bytes.
func TestEntryChanges(t *testing.T) {
	was := &calendar.Entry{Title: "Lunch", Tags: []string{"a"}, Reminders: []int{10}}
	is := &calendar.Entry{Title: "Lunch", Tags: []string{"a", "b"}, Description: strings.Repeat("€", 400), Completed: true}
	got := calendar.EntryChanges(was, is)
	var fields []string
	for _, c := range got {
		fields = append(fields, c.Field)
	}
	if diff := cmp.Diff([]string{"description", "tags", "reminders", "completed"}, fields); diff != "" {
		t.Fatalf("fields changed (-want +got):\n%s", diff)
	}
	d := got[0]
	if d.Before != nil || !d.Truncated || len(*d.After) != 1023 || !utf8.ValidString(*d.After) {
		t.Errorf("description: before %v, after of %d bytes (valid UTF-8: %v), truncated %v; want none, 1,023 bytes of whole €, truncated",
			d.Before, len(*d.After), utf8.ValidString(*d.After), d.Truncated)
	}
	if *got[1].Before != `["a"]` || *got[1].After != `["a","b"]` || *got[2].Before != "[10]" || got[2].After != nil || *got[3].After != "true" {
		t.Errorf("tags %s→%s, reminders %s→%v, completed →%s; want JSON lists and true", *got[1].Before, *got[1].After, *got[2].Before, got[2].After, *got[3].After)
	}
	if calendar.EntryChanges(is, nil) != nil {
		t.Error("a deletion lists changes, want none")
	}
}
