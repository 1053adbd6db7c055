package graph_test

import (
	"os"
	"strings"
	"testing"
)

// TestImportOutlookExport imports an Outlook 365 export through GraphQL: all
// three components become entries (Windows zone names included), and the
// answer says which one came without its ORGANIZER and ATTENDEE.
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
	if len(errs) != 1 || !strings.Contains(get(errs[0], "message").(string), "imported without ORGANIZER, ATTENDEE") ||
		get(errs[0], "imported") != true {
		t.Errorf("errors %v, want one note of ORGANIZER and ATTENDEE left out of a component imported", errs)
	}
}
