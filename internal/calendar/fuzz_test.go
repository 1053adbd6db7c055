package calendar_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// checkInvalid fails unless err is a CodeInvalid error about field.
func checkInvalid(t *testing.T, err error, field string) {
	t.Helper()
	if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
		t.Fatalf("got code %v (%v), want %v", got, err, calendar.CodeInvalid)
	}
	if got := calendar.ErrorField(err); got != field {
		t.Fatalf("got field %q (%v), want %q", got, err, field)
	}
}

// FuzzParseDate checks that ParseDate refuses a string as an invalid date,
// naming the field, or reads a supported date that String writes back as
// the very same string.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-11-21", "1900-01-01", "2999-12-31", "3000-01-01", "3000-01-02", "1899-12-31",
		"2024-02-29", "2025-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-1-1", "26-11-21", "+999-01-01",
		"-001-01-01", "2026-11-21T00:00:00Z", " 2026-11-21", "2026-11-21\n", "２０２６-11-21", "2026/11/21", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := calendar.ParseDate("due", s)
		if err != nil {
			checkInvalid(t, err, "due")
			return
		}
		if got := d.String(); got != s {
			t.Fatalf("ParseDate(%q).String(): got %q, want %q", s, got, s)
		}
		if got := calendar.DateOf(d.In(time.UTC)); got != d {
			t.Fatalf("ParseDate(%q): got %v, which is not a day (it is %v at midnight)", s, d, got)
		}
		if d.Year < calendar.MinYear || d.Year > calendar.MaxYear+1 {
			t.Fatalf("ParseDate(%q): got year %d, want it between %d and %d", s, d.Year, calendar.MinYear, calendar.MaxYear+1)
		}
	})
}

// FuzzValidateColor checks that ValidateColor accepts exactly "#" and six
// hex digits, and names the field when it refuses.
func FuzzValidateColor(f *testing.F) {
	for _, s := range []string{"#3B82F6", "#3b82f6", "#000000", "#FFFFFF", "3B82F6", "#3B82F", "#3B82F60", "#GGGGGG",
		"#3B82F6\n", "\n#3B82F6", "#ＡＢＣＤＥＦ", "#3B82F6\x00", "", "#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := calendar.ValidateColor("color", s)
		want := len(s) == 7 && s[0] == '#' && strings.Trim(s[1:], "0123456789abcdefABCDEF") == ""
		if got := err == nil; got != want {
			t.Fatalf("ValidateColor(%q): got accepted %v (%v), want %v", s, got, err, want)
		}
		if err != nil {
			checkInvalid(t, err, "color")
		}
	})
}

// FuzzValidateTimeZone checks that ValidateTimeZone names the field when it
// refuses a zone, and only accepts zones that load, under their own name.
func FuzzValidateTimeZone(f *testing.F) {
	for _, s := range []string{"Europe/Paris", "UTC", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Local", "",
		"europe/paris", "Europe/Paris ", "Europe//Paris", "../../etc/passwd", "/etc/localtime", "Europe/../UTC",
		"Europe", "zone.tab", "posixrules", "Europe/Paris\x00", strings.Repeat("A", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := calendar.ValidateTimeZone("timeZone", s); err != nil {
			checkInvalid(t, err, "timeZone")
			return
		}
		loc, err := time.LoadLocation(s)
		if err != nil {
			t.Fatalf("ValidateTimeZone accepted %q: got %v from time.LoadLocation, want a zone", s, err)
		}
		if s == "Local" || loc.String() != s {
			t.Fatalf("ValidateTimeZone accepted %q: got zone %q, want a zone of that name other than Local", s, loc)
		}
	})
}

// A series ID and an occurrence ID of it for the seeds.
const (
	fuzzSeriesID     = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f5"
	fuzzOccurrenceID = fuzzSeriesID + "/20260105T140000Z"
)

// FuzzParseOccurrenceID checks that ParseOccurrenceID refuses an ID as
// invalid, naming the field, or reads a series ID and a supported original
// start that OccurrenceID writes back as the very same ID.
func FuzzParseOccurrenceID(f *testing.F) {
	for _, s := range []string{fuzzOccurrenceID, fuzzSeriesID + "/19000101T000000Z", fuzzSeriesID + "/30000101T000000Z",
		fuzzSeriesID + "/30000101T000001Z", fuzzSeriesID + "/18991231T235959Z", fuzzSeriesID + "/20260105T140000",
		fuzzSeriesID + "/20260105T140000+0100", fuzzSeriesID + "/20260230T140000Z", fuzzSeriesID + "/20260105T240000Z",
		fuzzSeriesID + "/20260105T235960Z", fuzzSeriesID + "/+9990105T140000Z", fuzzSeriesID + "/20260105T140000Z/x",
		fuzzSeriesID + "/20260105T140000.5Z", fuzzSeriesID + "/20260105T140000,000Z",
		strings.ToUpper(fuzzSeriesID) + "/20260105T140000Z", "s/20260105T140000Z", "/20260105T140000Z",
		fuzzSeriesID, fuzzSeriesID + "/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		k, err := calendar.ParseOccurrenceID("id", id)
		if err != nil {
			checkInvalid(t, err, "id")
			return
		}
		if got := calendar.OccurrenceID(k.SeriesID, k.OriginalStart); got != id {
			t.Fatalf("ParseOccurrenceID(%q) = %+v: got OccurrenceID %q, want %q", id, k, got, id)
		}
		if err := calendar.ValidateID("id", k.SeriesID); err != nil || k.CalendarID != "" {
			t.Fatalf("ParseOccurrenceID(%q): got %+v (%v), want a valid series ID and no calendar", id, k, err)
		}
		if err := calendar.ValidateInstant("id", k.OriginalStart); err != nil {
			t.Fatalf("ParseOccurrenceID(%q): got original start %v (%v), want a supported instant", id, k.OriginalStart, err)
		}
	})
}

// FuzzOccurrenceIDRoundTrip checks that the ID of an occurrence at any
// whole second of the supported years reads back as its series and start.
func FuzzOccurrenceIDRoundTrip(f *testing.F) {
	first := time.Date(calendar.MinYear, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	last := time.Date(calendar.MaxYear+1, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, sec := range []int64{0, 1, last - first, last - first - 1, 1767621600 - first} {
		f.Add(sec)
	}
	f.Fuzz(func(t *testing.T, sec int64) {
		if sec < 0 {
			sec = -(sec + 1)
		}
		start := time.Unix(first+sec%(last-first+1), 0).UTC()
		id := calendar.OccurrenceID(fuzzSeriesID, start)
		k, err := calendar.ParseOccurrenceID("id", id)
		if err != nil || k.SeriesID != fuzzSeriesID || !k.OriginalStart.Equal(start) {
			t.Fatalf("ParseOccurrenceID(%q): got %+v, %v, want series %s at %v", id, k, err, fuzzSeriesID, start)
		}
	})
}

// FuzzValidFeedToken checks that ValidFeedToken accepts the tokens
// NewFeedToken makes and nothing that is not a base64url encoding of 32
// bytes.
func FuzzValidFeedToken(f *testing.F) {
	token := calendar.NewFeedToken()
	for _, s := range []string{token, token[:42], token + "A", token + "=", token[:20] + "+" + token[21:],
		token[:20] + "/" + token[21:], token[:20] + "\n" + token[20:], token[:42] + "B", strings.Repeat("A", 43), strings.Repeat("_", 43),
		strings.Repeat("A", 44), ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := calendar.NewFeedToken(); !calendar.ValidFeedToken(n) || n == token {
			t.Fatalf("NewFeedToken: got %q, want a fresh valid token", n)
		}
		if !calendar.ValidFeedToken(s) {
			return
		}
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != 32 {
			t.Fatalf("ValidFeedToken accepted %q: got %d bytes (%v), want 32", s, len(b), err)
		}
		if h := calendar.FeedTokenHash(s); len(h) != 64 {
			t.Fatalf("FeedTokenHash(%q): got %q, want 64 hex digits", s, h)
		}
	})
}
