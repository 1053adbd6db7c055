package calendar

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBusyByTransparency: freeBusy's intervals follow each entry's
// transparency: a whole-day entry is free unless set, a timed one busy;
// where several overlap, out of office wins over busy and busy over
// tentative; stretches of one status that touch are joined, and tasks and
// FREE entries leave no trace.
func TestBusyByTransparency(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }
	timed := func(from, to int, tr Transparency) *Entry {
		return &Entry{Kind: KindTimed, Start: at(from), End: at(to), TransparencySet: tr}
	}
	d1 := DateOf(day)
	birthday := &Entry{Kind: KindAllDay, StartDate: d1, EndDate: d1.AddDays(1)}
	conference := &Entry{Kind: KindAllDay, StartDate: d1, EndDate: d1.AddDays(1), TransparencySet: TransparencyBusy}
	task := &Entry{Kind: KindTask, Start: at(9), End: at(9), TransparencySet: TransparencyBusy}
	r := Range{Start: day, End: day.Add(24 * time.Hour), Zone: time.UTC}
	show := func(ivs []BusyInterval) string {
		var parts []string
		for _, iv := range ivs {
			parts = append(parts, fmt.Sprintf("%02d-%02d %s", iv.Start.Hour(), iv.End.Sub(day)/time.Hour, iv.Status))
		}
		return strings.Join(parts, ", ")
	}
	for _, c := range []struct {
		name    string
		entries []*Entry
		want    string
	}{
		{"a birthday blocks nothing", []*Entry{birthday, task}, ""},
		{"a conference blocks the day", []*Entry{conference}, "00-24 BUSY"},
		{"defaults", []*Entry{timed(9, 10, ""), timed(10, 11, "")}, "09-11 BUSY"},
		{"free timed", []*Entry{timed(9, 10, TransparencyFree)}, ""},
		{"precedence", []*Entry{timed(8, 12, TransparencyTentative), timed(9, 10, TransparencyBusy), timed(9, 11, TransparencyOutOfOffice)},
			"08-09 TENTATIVE, 09-11 OUT_OF_OFFICE, 11-12 TENTATIVE"},
		{"busy inside out of office", []*Entry{timed(8, 12, TransparencyOutOfOffice), timed(9, 10, TransparencyBusy)}, "08-12 OUT_OF_OFFICE"},
		{"a gap", []*Entry{timed(8, 9, TransparencyBusy), timed(10, 11, TransparencyBusy)}, "08-09 BUSY, 10-11 BUSY"},
		{"different statuses touching", []*Entry{timed(8, 9, TransparencyBusy), timed(9, 10, TransparencyTentative)}, "08-09 BUSY, 09-10 TENTATIVE"},
	} {
		if got := show(Busy(c.entries, r)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if (&Entry{Kind: KindMultiDay}).Transparency() != TransparencyFree || (&Entry{Kind: KindTimed}).Transparency() != TransparencyBusy {
		t.Error("kind defaults: a multi-day entry is FREE, a timed one BUSY")
	}
	if ValidateTransparency("t", "MAYBE") == nil || ValidateTransparency("t", "") != nil {
		t.Error("ValidateTransparency")
	}
}
