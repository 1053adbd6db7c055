package graph_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

const peopleOf = `query($id: ID!) { node(id: $id) { ... on Entry { organizer { email }
	attendees { edges { node { email displayName optional response additionalGuests user { email } } } } } } }`

// TestFeedAttendeesRoundTrip: a feed shows an entry's organizer and
// attendees with their answers, and importing it into another calendar
// gives the copy the same organizer and attendees, calgraph users as
// themselves and external addresses as such, with the same answers; the
// copy's summary counts them (and Store.Check agrees when the test ends).
// The importer organizing the source, the copy is not handed over.
func TestFeedAttendeesRoundTrip(t *testing.T) {
	e := newEnv(t)
	p := e.party("fp", 2, 0, false)
	e.must(p.guests[0], `mutation($id: ID!) { respondToEntry(input: {entryId: $id, expectedVersion: 1, response: ACCEPTED, additionalGuests: 2}) { attendee { version } } }`,
		map[string]any{"id": p.entryID})
	e.must(p.guests[1], respond, map[string]any{"id": p.entryID, "v": 1, "r": "DECLINED"})
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "jo@elsewhere.org", displayName: "Doe, \"Jo\": ops", optional: true}]}) { entry { id } } }`,
		map[string]any{"id": p.entryID})
	d := e.must(p.owner, `query($id: ID!) { node(id: $id) { ... on Entry { calendar { id } } } }`, map[string]any{"id": p.entryID})
	calID := str(d, "node.calendar.id")

	d = e.must(p.owner, rotate, map[string]any{"c": calID})
	status, ics, _ := e.getFeed(str(d, "rotateCalendarFeed.path"), "")
	unfolded := strings.ReplaceAll(ics, "\r\n ", "")
	if status != http.StatusOK || strings.Count(unfolded, "\r\nATTENDEE;") != 4 ||
		!strings.Contains(unfolded, "\r\nORGANIZER:mailto:owner-fp@example.com\r\n") && !strings.Contains(unfolded, "\r\nORGANIZER;CN=") ||
		!strings.Contains(unfolded, `CN="Doe, ^'Jo^': ops"`) {
		t.Fatalf("feed: %d\n%s", status, ics)
	}

	d = e.must(p.owner, `mutation { createCalendar(input: {name: "Copy"}) { calendar { id } } }`, nil)
	d = e.must(p.owner, importDoc, map[string]any{"c": str(d, "createCalendar.calendar.id"), "ics": ics})
	if errs := get(d, "importCalendar.errors").([]any); len(errs) != 0 {
		t.Fatalf("import errors: %v", errs)
	}
	copyID := str(d, "importCalendar.entries.0.id")
	original := e.must(p.owner, peopleOf, map[string]any{"id": p.entryID})
	copied := e.must(p.owner, peopleOf, map[string]any{"id": copyID})
	if !reflect.DeepEqual(original, copied) || len(asList(get(original, "node.attendees.edges"))) != 4 {
		t.Errorf("the import's people differ from the feed's source:\n%v\n%v", original, copied)
	}
	// The importer organizes the source: the copy needs no handover write.
	if d := e.must(p.owner, `query($id: ID!) { node(id: $id) { ... on Entry { version } } }`, map[string]any{"id": copyID}); num(d, "node.version") != 1 {
		t.Errorf("the copy's version: %v, want 1 (its organizer is the importer, nothing to hand over)", get(d, "node.version"))
	}
	d = e.must(p.owner, summaryOf, map[string]any{"id": copyID})
	if got := fmt.Sprint(get(d, "node.attendeeSummary")); got != "map[accepted:1 declined:1 headCount:3 needsAction:2 tentative:0 total:4 waitlisted:0]" {
		t.Errorf("the copy's summary: %s", got)
	}
}
