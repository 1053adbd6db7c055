package ical_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeIndexes holds Item.Index, Exception.Index and ItemError.Index to
// their documented meaning: the component's position among the VEVENTs and
// VTODOs of the whole document, across VCALENDARs, other components not counted.
func TestDecodeIndexes(t *testing.T) {
	journal := []string{"BEGIN:VJOURNAL", "UID:j", "END:VJOURNAL"}
	data := doc(
		vevent("UID:s", "DTSTART:20260302T090000Z", "RRULE:FREQ=DAILY"), // 0
		journal,                                // not counted
		vtodo("UID:t", "DUE:20260308T100000Z"), // 1
		vevent("UID:s", "DTSTART:20260302T090000Z"),                           // 2: the UID again
		vevent("UID:s", "RECURRENCE-ID:20260303T090000Z", "STATUS:CANCELLED"), // 3
	) + doc(
		vevent("UID:x", "RECURRENCE-ID:20260303T090000Z"), // 4: no series x
		journal,
		vevent("UID:e", "DTSTART:20260304T090000Z"), // 5
	)
	imp := decode(t, data)
	var got []string
	for _, it := range imp.Items {
		got = append(got, fmt.Sprintf("item %s %d", it.UID, it.Index))
		for _, x := range it.Exceptions {
			got = append(got, fmt.Sprintf("exception %s %d", it.UID, x.Index))
		}
	}
	for _, e := range imp.Errors {
		got = append(got, fmt.Sprintf("error %s %d", e.UID, e.Index))
	}
	want := []string{"item s 0", "exception s 3", "item t 1", "item e 5", "error s 2", "error x 4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indexes (-want +got):\n%s\nerrors: %+v", diff, imp.Errors)
	}
	// FuzzDecode's independent count, on a document whose count is known.
	if n := countComponents(t, []byte(data)); n != 6 {
		t.Fatalf("countComponents: got %d, want 6", n)
	}
}
