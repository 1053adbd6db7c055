package dynamo

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestEntryRecordRoles holds entryRecord's table of roles to what
// entryRecords writes: for a task, a timed entry of three pieces, a series
// and an exception of two pieces, each record's role, entity type, piece,
// and which of SeriesID, Rule, LSI1SK and LSI2SK it carries.
func TestEntryRecordRoles(t *testing.T) {
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	long := at.Add(2*pieceSpan + time.Hour) // three pieces
	timed := func(id string, end time.Time) *calendar.Entry {
		return &calendar.Entry{ID: id, CalendarID: "c", Kind: calendar.KindTimed, Title: id, Start: at, End: end, TimeZone: "UTC",
			Version: 1, CreatedAt: at, UpdatedAt: at}
	}
	task := timed("task", at)
	task.Kind = calendar.KindTask
	series := timed("series", at.Add(time.Hour))
	series.Recurrence = &calendar.Recurrence{Rule: "FREQ=WEEKLY"}
	exception := timed("x", at.Add(pieceSpan+time.Hour)) // two pieces
	exception.IsException, exception.SeriesID = true, "series"
	exception.OriginalStart, exception.OriginalEnd = at, at.Add(time.Hour)

	// role, entityType, piece, SeriesID, Rule, LSI1SK, LSI2SK
	const row = "%v %s piece %d series %v rule %v lsi1 %v lsi2 %v"
	for _, tt := range []struct {
		name  string
		entry *calendar.Entry
		want  []string
	}{
		{"task", task, []string{fmt.Sprintf(row, roleEntry, entityEntry, 0, false, false, true, true)}},
		{"timed, three pieces", timed("long", long), []string{
			fmt.Sprintf(row, roleEntry, entityEntry, 0, false, false, true, false),
			fmt.Sprintf(row, roleEntryPiece, entityEntryPiece, 1, false, false, true, false),
			fmt.Sprintf(row, roleEntryPiece, entityEntryPiece, 2, false, false, true, false)}},
		{"series", series, []string{fmt.Sprintf(row, roleSeries, entitySeries, 0, false, true, false, true)}},
		{"exception, two pieces", exception, []string{
			fmt.Sprintf(row, roleException, entityException, 0, true, false, true, false),
			fmt.Sprintf(row, roleExceptionPiece, entityEntryPiece, 1, true, false, true, false)}},
	} {
		records := entryRecords(tt.entry, placement{gen: "g"})
		var got []string
		for _, r := range records {
			got = append(got, fmt.Sprintf(row, r.role(), r.EntityType, r.Piece, r.SeriesID != "", r.Rule != "", r.LSI1SK != "", r.LSI2SK != ""))
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
