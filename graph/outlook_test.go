package graph_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestImportOutlookExport imports an Outlook 365 export through GraphQL: all
// three components become entries (Windows zone names included), Planning
// with its attendee, and the answer says that its ORGANIZER, who is not a
// calgraph user, left the importer organizing it.
func TestImportOutlookExport(t *testing.T) {
	e := newEnv(t)
	w := e.world("outlook")
	doc, err := os.ReadFile("../internal/ical/testdata/outlook.ics")
	if err != nil {
		t.Fatal(err)
	}
	d := e.must(w.writer, importDoc, map[string]any{"c": w.calendarID, "ics": string(doc)})
	var titles []string
	for _, en := range get(d, "importCalendar.entries").([]any) {
		titles = append(titles, get(en, "title").(string))
	}
	if strings.Join(titles, ",") != "Planning,Standup,Holiday" {
		t.Errorf("imported %v, want Planning, Standup and Holiday", titles)
	}
	errs := get(d, "importCalendar.errors").([]any)
	if len(errs) != 1 || get(errs[0], "message") != "ORGANIZER ada@example.com is not a calgraph user: you organize the entry" ||
		get(errs[0], "imported") != true {
		t.Errorf("errors %v, want one note of Planning's ORGANIZER not being a calgraph user", errs)
	}
	planning := str(d, "importCalendar.entries.0.id")
	d = e.must(w.writer, peopleOf, map[string]any{"id": planning})
	if got := fmt.Sprint(get(d, "node.attendees.edges")); got != "[map[node:map[additionalGuests:0 displayName:Bob email:bob@example.com optional:false response:NEEDS_ACTION user:<nil>]]]" {
		t.Errorf("Planning's attendees: %s, want Bob, external, invited", got)
	}
}
