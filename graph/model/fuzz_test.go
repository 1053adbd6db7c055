package model_test

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/graph/model"
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

// marshalled returns the string a scalar's marshaler writes, unquoted.
func marshalled(t *testing.T, m graphql.Marshaler) string {
	t.Helper()
	var b bytes.Buffer
	m.MarshalGQL(&b)
	s, err := strconv.Unquote(b.String())
	if err != nil {
		t.Fatalf("got %s from a marshaler, want a JSON string: %v", b.String(), err)
	}
	return s
}

// FuzzUnmarshalDateTime checks that UnmarshalDateTime refuses a value as
// invalid input, or reads an instant of the supported years, to the
// millisecond, that MarshalDateTime writes in UTC and that reads back the same.
func FuzzUnmarshalDateTime(f *testing.F) {
	for _, s := range []string{"2026-11-21T09:30:00Z", "2026-11-21T09:30:00.123456789+05:30", "2026-11-21T09:30:00-00:00",
		"1900-01-01T00:00:00Z", "1899-12-31T23:59:59.999Z", "1900-01-01T00:00:00+00:01", "3000-01-01T00:00:00Z",
		"3000-01-01T00:00:00.001Z", "2999-12-31T23:00:00-01:00", "2026-11-21T24:00:00Z", "2026-11-21T09:30:60Z",
		"2026-02-29T09:30:00Z", "2026-11-21T09:30:00+24:00", "2026-11-21t09:30:00z", "2026-11-21 09:30:00Z",
		"2026-11-21T09:30:00,5Z", "2026-11-21T09:30Z", "2026-11-21", "+2026-11-21T09:30:00Z", "", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := model.UnmarshalDateTime([]byte(s)); err == nil {
			t.Fatalf("UnmarshalDateTime([]byte(%q)): got no error, want only strings read", s)
		}
		v, err := model.UnmarshalDateTime(s)
		if err != nil {
			checkInvalid(t, err, model.FieldFromPath)
			return
		}
		if err := calendar.ValidateInstant("at", v); err != nil || !v.Equal(v.Truncate(time.Millisecond)) {
			t.Fatalf("UnmarshalDateTime(%q): got %v (%v), want an instant of the supported years, to the millisecond", s, v, err)
		}
		out := marshalled(t, model.MarshalDateTime(v))
		if !strings.HasSuffix(out, "Z") {
			t.Fatalf("MarshalDateTime(%v): got %q, want UTC", v, out)
		}
		back, err := model.UnmarshalDateTime(out)
		if err != nil || !back.Equal(v) {
			t.Fatalf("UnmarshalDateTime(%q) (written from %q): got %v, %v, want %v", out, s, back, err, v)
		}
	})
}

// FuzzUnmarshalDate checks that UnmarshalDate refuses a value as invalid
// input, or reads a date that MarshalDate writes back as the same string.
func FuzzUnmarshalDate(f *testing.F) {
	for _, s := range []string{"2026-11-21", "1900-01-01", "3000-01-01", "3000-01-02", "1899-12-31", "2026-02-29",
		"2024-02-29", "2026-1-1", "+999-01-01", "2026-11-21T00:00:00Z", "2026-11-21 ", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := model.UnmarshalDate(s)
		if err != nil {
			checkInvalid(t, err, model.FieldFromPath)
			return
		}
		if out := marshalled(t, model.MarshalDate(d)); out != s {
			t.Fatalf("MarshalDate(UnmarshalDate(%q)): got %q, want %q", s, out, s)
		}
	})
}

// IDs for the seeds.
const (
	fuzzCalendarID = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f5"
	fuzzOtherID    = "0190c7a4-5b6e-7c3d-8e9f-a0b1c2d3e4f6"
)

// FuzzDecodeGID checks every decoder of global IDs (DecodeGID, the decoders
// of users, calendars, memberships, entries, invitations and occurrences, and
// DecodeEntryOrOccurrenceID) on the same input: each refuses it as invalid
// input about the field, or reads a key that the matching encoder turns back
// into the very same ID; at most one decoder of a type accepts it.
func FuzzDecodeGID(f *testing.F) {
	occurrence := calendar.OccurrenceID(fuzzOtherID, time.Date(2026, 1, 5, 14, 0, 0, 0, time.UTC))
	for _, s := range []string{
		model.UserGID(fuzzCalendarID),
		model.CalendarGID(fuzzCalendarID),
		model.MembershipGID(calendar.MembershipKey{CalendarID: fuzzCalendarID, UserID: fuzzOtherID}),
		model.EntryGID(calendar.EntryKey{CalendarID: fuzzCalendarID, EntryID: fuzzOtherID}),
		model.OccurrenceGID(fuzzCalendarID, occurrence),
		model.GlobalID(model.KindEntry, fuzzCalendarID+":"+fuzzOtherID+":"+fuzzOtherID),
		model.InvitationGID(calendar.InvitationKey{CalendarID: fuzzCalendarID, ID: fuzzOtherID}),
		model.GlobalID(model.KindOccurrence, fuzzCalendarID+":"+fuzzOtherID+"/20260105T140000"),
		model.GlobalID(model.KindOccurrence, fuzzCalendarID+":"+occurrence[:len(occurrence)-1]+".5Z"),
		model.GlobalID(model.KindCalendar, strings.ToUpper(fuzzCalendarID)),
		model.GlobalID(model.KindCalendar, ""),
		model.GlobalID("", fuzzCalendarID),
		model.GlobalID("Thing", fuzzCalendarID),
		base64.URLEncoding.EncodeToString([]byte(model.KindCalendar + ":" + fuzzCalendarID)),
		base64.StdEncoding.EncodeToString([]byte(model.KindEntry + ":" + fuzzCalendarID + "?" + fuzzOtherID)),
		base64.RawURLEncoding.EncodeToString([]byte(model.KindCalendar + fuzzCalendarID)),
		strings.Repeat("A", 204),
		fuzzCalendarID, "", "=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, gid string) {
		kind, key, gidErr := model.DecodeGID("id", gid)
		if gidErr != nil {
			checkInvalid(t, gidErr, "id")
		} else if got := model.GlobalID(kind, key); got != gid {
			t.Fatalf("DecodeGID(%q) = %q, %q: got GlobalID %q, want %q", gid, kind, key, got, gid)
		}
		accepted := 0
		check := func(decoder string, err error, encoded func() string) {
			t.Helper()
			if err != nil {
				checkInvalid(t, err, "id")
				return
			}
			accepted++
			if got := encoded(); got != gid {
				t.Fatalf("%s(%q): got a key that encodes as %q, want %q", decoder, gid, got, gid)
			}
		}
		user, err := model.DecodeAs("id", model.KindUser, gid)
		check("DecodeAs(User)", err, func() string { return model.UserGID(user) })
		cal, err := model.DecodeCalendarID("id", gid)
		check("DecodeCalendarID", err, func() string { return model.CalendarGID(cal) })
		m, err := model.DecodeMembershipID("id", gid)
		check("DecodeMembershipID", err, func() string { return model.MembershipGID(m) })
		e, err := model.DecodeEntryID("id", gid)
		check("DecodeEntryID", err, func() string { return model.EntryGID(e) })
		inv, err := model.DecodeInvitationID("id", gid)
		check("DecodeInvitationID", err, func() string { return model.InvitationGID(inv) })
		o, err := model.DecodeOccurrenceID("id", gid)
		check("DecodeOccurrenceID", err, func() string {
			return model.OccurrenceGID(o.CalendarID, calendar.OccurrenceID(o.SeriesID, o.OriginalStart))
		})
		if accepted > 1 {
			t.Fatalf("%q: got %d decoders accepting it, want at most one", gid, accepted)
		}
		if accepted == 1 && gidErr != nil {
			t.Fatalf("%q: got a typed decoder accepting it, but DecodeGID refusing it: %v", gid, gidErr)
		}
		ek, occ, err := model.DecodeEntryOrOccurrenceID("id", gid)
		switch {
		case err != nil:
			checkInvalid(t, err, "id")
		case (ek == nil) == (occ == nil):
			t.Fatalf("DecodeEntryOrOccurrenceID(%q): got entry %v and occurrence %v, want exactly one", gid, ek, occ)
		case ek != nil && *ek != e,
			occ != nil && (occ.CalendarID != o.CalendarID || occ.SeriesID != o.SeriesID || !occ.OriginalStart.Equal(o.OriginalStart)):
			t.Fatalf("DecodeEntryOrOccurrenceID(%q): got %v, %v, want what DecodeEntryID or DecodeOccurrenceID read", gid, ek, occ)
		}
	})
}
