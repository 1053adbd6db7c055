package model_test

import (
	"testing"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// TestOptionalStringsAreTheEntrysOwn checks an entry's nullable strings:
// null when empty, the value otherwise, and read from the domain entry
// without a copy (a week view asks a hundred entries for their colors).
func TestOptionalStringsAreTheEntrysOwn(t *testing.T) {
	e := &calendar.Entry{Kind: calendar.KindTimed, Color: "#ff0000", Location: "Room 1"}
	timed, ok := model.EntryOf(e, &calendar.Calendar{}).(*model.TimedEntry)
	if !ok {
		t.Fatal("a timed entry is not a *model.TimedEntry")
	}
	if c, l, d := timed.Color(), timed.Location(), timed.Description(); c == nil || *c != "#ff0000" || l == nil || *l != "Room 1" || d != nil {
		t.Errorf("color %v, location %v, description %v; want #ff0000, Room 1, null", c, l, d)
	}
	task := model.TaskOf(&calendar.Entry{Kind: calendar.KindTask, TimeZone: "Europe/Paris"}, &model.Calendar{})
	if z := task.TimeZone(); z == nil || *z != "Europe/Paris" {
		t.Errorf("task's time zone %v, want Europe/Paris", z)
	}
	if n := testing.AllocsPerRun(100, func() { colorSink = timed.Color() }); n != 0 {
		t.Errorf("Color allocates %v times, want 0", n)
	}
}

var colorSink *string
