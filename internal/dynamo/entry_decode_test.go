package dynamo

import (
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// TestEntryDecoderMatchesAttributeValue: decodeEntryRecord reads what
// attributevalue reads, from a record with every field set (so a field
// added to entryRecord and not to the decoder fails here) and from records
// with fields left empty.
func TestEntryDecoderMatchesAttributeValue(t *testing.T) {
	ts := time.Date(2026, 6, 15, 9, 30, 0, 123456789, time.UTC)
	full := entryRecord{
		PK: "CAL#c", SK: "ENTRY#e", LSI1SK: "SPAN#x", LSI2SK: "TASK#y", ReachEnd: "2026-06-16T00:00:00.000Z",
		EntityType: entityException, Piece: 2, Pieces: 3, ID: "e", CalendarID: "c", Kind: "TIMED", Title: "t\u00e9\"",
		Description: "d", Location: "l", Color: "#000000", Tags: []string{"a", "b"}, Reminders: []int{10, -5},
		Start: "s", End: "e", TimeZone: "Europe/Paris", LocalStart: "2026-03-29T02:30:00", StartDate: "2026-06-15", EndDate: "2026-06-16",
		Completed: true, CompletedAt: "c", ICalUID: "u@x", Sequence: 4, Version: 7, CreatedAt: ts, UpdatedAt: ts.Add(time.Hour), CreatedBy: "creator",
		Rule: "FREQ=DAILY", RDates: []string{"r1", "r2"}, ExDates: []string{"x1"}, PreviousSeriesID: "p", Gen: "g",
		Xrev: 9, SeriesStart: "ss", SeriesID: "sid", OriginalStart: "os", OriginalEnd: "oe", Cancelled: true, Overrides: []string{"title"},
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
