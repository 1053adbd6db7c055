package dynamo

import (
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestEntryDecoderMatchesAttributeValue: decodeEntryRecord reads what
// attributevalue reads, from a record with every field set (so a field
// added to entryRecord and not to the decoder fails here) and from records
// with fields left empty.
func TestEntryDecoderMatchesAttributeValue(t *testing.T) {
	ts := time.Date(2026, 6, 15, 9, 30, 0, 123456789, time.UTC)
	full := entryRecord{
		PK: "CAL#c", SK: "ENTRY#e", LSI1SK: "SPAN#x", LSI2SK: "TASK#y", Wake: "WAKE#1", WakeAt: "2026-05-16T00:00:00.000Z#c#e", ReachEnd: "2026-06-16T00:00:00.000Z",
		EntityType: entityException, Piece: 2, Pieces: 3, ID: "e", CalendarID: "c", Kind: "TIMED", Title: "t\u00e9\"",
		Description: "d", Location: "l", Color: "#000000", Tags: []string{"a", "b"}, Reminders: []int{10, -5}, Transp: "FREE", Vis: "PRIVATE",
		Start: "s", End: "e", TimeZone: "Europe/Paris", LocalStart: "2026-03-29T02:30:00", StartDate: "2026-06-15", EndDate: "2026-06-16",
		Completed: true, CompletedAt: "c", ICalUID: "u@x", Sequence: 4, Version: 7, CreatedAt: ts, UpdatedAt: ts.Add(time.Hour), CreatedBy: "creator", UpdatedBy: "editor",
		Rule: "FREQ=DAILY", RDates: []string{"r1", "r2"}, ExDates: []string{"x1"}, PreviousSeriesID: "p", Gen: "g",
		Xrev: 9, SeriesStart: "ss", SeriesID: "sid", OriginalStart: "os", OriginalEnd: "oe", Cancelled: true, Overrides: []string{"title"},
		Organizer: "o", Capacity: 10, Waitlist: true, HideAttendees: true, AttNeedsAction: 1, AttAccepted: 2, AttTentative: 3,
		AttDeclined: 4, AttWaitlisted: 5, AttGuests: 6, AttTickets: 7, AttRev: 8, AttHeads: 9, AttEpoch: 10, AttKeys: 1, Holds: []string{"c1", "c2"},
		Shares:   map[calendar.AnswerKey]calendar.AttendeeSummary{{From: ts.Truncate(time.Second), Following: true}: {NeedsAction: -1, Accepted: 1, AcceptedGuests: 2}},
		AttMoves: 3, Resets: map[time.Time]int{ts.Truncate(time.Second): 2},
	}
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the full record leaves %s empty: set it", v.Type().Field(i).Name)
		}
	}
	for name, r := range map[string]entryRecord{
		"every field": full,
		"no field":    {},
		"an entry":    {PK: "CAL#c", SK: "ENTRY#e", EntityType: entityEntry, ID: "e", Kind: "ALL_DAY", StartDate: "2026-06-15", CreatedAt: ts},
	} {
		it, err := attributevalue.MarshalMap(r)
		if err != nil {
			t.Fatal(err)
		}
		it["someOtherAttribute"] = it["PK"]
		want, err := unmarshal[entryRecord](it)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeEntryRecord(it)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
	}
	it, _ := attributevalue.MarshalMap(full)
	it["version"] = it["title"]
	if _, err := decodeEntryRecord(it); err == nil {
		t.Error("a string where a number belongs was read")
	}
}

// TestRecordDecodersMatchAttributeValue: the calendar and membership
// decoders read what attributevalue reads, for records with every field set,
// none, and attributes neither knows.
func TestRecordDecodersMatchAttributeValue(t *testing.T) {
	ts := time.Date(2026, 6, 15, 9, 30, 0, 123456789, time.UTC)
	cal := calendarRecord{PK: "CAL#c", SK: "CAL#c", EntityType: entityCalendar, ID: "c", Name: "n\u00e9", Color: "#123456",
		Description: "d", TimeZone: "Europe/Paris", IsResource: true, Version: 3, CreatedAt: ts, UpdatedAt: ts.Add(time.Hour),
		NeverHeldSeries: true, HasHolds: true, Rev: 1 << 40}
	mem := membershipRecord{PK: "CAL#c", SK: "MEMBER#u", GSI1PK: "USER#u", GSI1SK: "CAL#c", EntityType: entityMembership,
		CalendarID: "c", UserID: "u", Role: "WRITER", Version: 2, CreatedAt: ts, UpdatedAt: ts.Add(time.Minute),
		settingsRecord: settingsRecord{SetColor: "#ABCDEF", SetName: "mine", SetHidden: true, SetUnselected: true, SetSortKey: "a0",
			SetReminders: []string{"30:WEBHOOK", "10:IN_APP"}, SetVersion: 4, SetUpdatedAt: &ts}}
	for _, r := range []any{cal, mem} {
		v := reflect.ValueOf(r)
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Fatalf("the full %T leaves %s empty: set it", r, v.Type().Field(i).Name)
			}
		}
	}
	for _, r := range []any{cal, calendarRecord{}, mem, membershipRecord{}} {
		it, err := attributevalue.MarshalMap(r)
		if err != nil {
			t.Fatal(err)
		}
		it["someOtherAttribute"] = it["PK"]
		var got, want any
		var gerr, werr error
		switch r.(type) {
		case calendarRecord:
			got, gerr = decodeCalendarRecord(it)
			want, werr = unmarshal[calendarRecord](it)
		case membershipRecord:
			got, gerr = decodeMembershipRecord(it)
			want, werr = unmarshal[membershipRecord](it)
		}
		if gerr != nil || werr != nil {
			t.Fatalf("%T: %v, %v", r, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T:\ngot  %+v\nwant %+v", r, got, want)
		}
	}
	it, _ := attributevalue.MarshalMap(cal)
	it["version"] = it["name"]
	if _, err := decodeCalendarRecord(it); err == nil {
		t.Error("a calendar whose version is a string decoded")
	}
}
