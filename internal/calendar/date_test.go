package calendar_test

import (
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestDateIn: a day begins at midnight, or where the clocks jump over
// midnight, at the first moment after the jump (not an hour before midnight).
func TestDateIn(t *testing.T) {
	tests := []struct {
		zone, date, want string
	}{
		{"Europe/Paris", "2026-03-29", "2026-03-28T23:00:00Z"},     // DST at 02:00: midnight exists
		{"America/Santiago", "2026-09-06", "2026-09-06T04:00:00Z"}, // 00:00 -04 → 01:00 -03
		{"America/Havana", "2026-03-08", "2026-03-08T05:00:00Z"},   // 00:00 CST → 01:00 CDT
		{"America/Santiago", "2026-04-05", "2026-04-05T04:00:00Z"}, // 00:00 -03 goes back to 23:00 -04 of the day before
		{"UTC", "2026-01-01", "2026-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		loc, err := time.LoadLocation(tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		d, err := calendar.ParseDate("date", tt.date)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.In(loc).UTC().Format(time.RFC3339); got != tt.want {
			t.Errorf("%s in %s begins at %s, want %s", tt.date, tt.zone, got, tt.want)
		}
	}
}
