package dynamo_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// setRule rewrites a series' rule in the table, bypassing validation, as a
// series stored before rules were bounded has it.
func (f *fixture) setRule(seriesID, rule string) {
	f.t.Helper()
	n := 0
	for _, it := range f.items() {
		if it["id"] != seriesID || it["rrule"] == nil {
			continue
		}
		key, err := attributevalue.MarshalMap(map[string]any{"PK": it["PK"], "SK": it["SK"]})
		f.mustDo(err)
		_, err = f.db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table()), Key: key,
			UpdateExpression:          aws.String("SET rrule = :r"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: rule}}})
		f.mustDo(err)
		n++
	}
	if n == 0 {
		f.t.Fatalf("series %s not found", seriesID)
	}
}

// TestDenseLegacySeries: a series stored before rules were bounded (every
// minute, for ever) fails only the views of its own calendar that hold more
// of its occurrences than a view shows; the other calendars' views, in the
// same request or the same agenda, are whole, and a view of one day counts
// the day's occurrences, not those around it.
func TestDenseLegacySeries(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	dense, normal := f.calendarOf(ada, "Dense"), f.calendarOf(ada, "Normal")
	s := f.series(ada, dense.ID, "Every minute", timed("2026-01-05T09:00:00Z", "2026-01-05T09:01:00Z", "UTC"), "FREQ=DAILY")
	f.setRule(s.ID, "FREQ=MINUTELY")
	f.series(ada, normal.ID, "Standup", timed("2026-01-05T09:00:00Z", "2026-01-05T09:15:00Z", "UTC"), "FREQ=DAILY")
	week := weekOf("2026-03-02")
	utc := "UTC"
	week.TimeZone = utc

	request := loader.WithLoaders(ada, loader.New(f.store, engine, calendar.ReadScope{Cached: true}))
	_, err := loader.For(request).Entries(request, dense.ID, week, calendar.Filter{})
	if calendar.ErrorCode(err) != calendar.CodeTooManyOccurrences {
		t.Fatalf("the dense calendar's week: got %v, want TOO_MANY_OCCURRENCES", err)
	}
	v, err := loader.For(request).Entries(request, normal.ID, week, calendar.Filter{})
	if err != nil || len(v.Entries) != 7 {
		t.Fatalf("the normal calendar's week in the same request: got %d entries, %v; want 7", entriesOf(v), err)
	}

	request = loader.WithLoaders(ada, loader.New(f.store, engine, calendar.ReadScope{Cached: true}))
	v, err = loader.For(request).Agenda(request, nil, week, calendar.Filter{}, true)
	if err != nil || len(v.Entries) != 7 || v.Entries[0].Title != "Standup" {
		t.Fatalf("the agenda of both: got %d entries, %v; want the 7 standups", entriesOf(v), err)
	}
	if len(v.Partial) != 1 || calendar.ErrorCode(v.Partial[0]) != calendar.CodeTooManyOccurrences || calendar.ErrorCalendar(v.Partial[0]) != dense.ID {
		t.Fatalf("the agenda's errors: got %v, want one naming the dense calendar", v.Partial)
	}

	// 200 days on, one day holds 1,440 occurrences: fewer than a view shows.
	request = loader.WithLoaders(ada, loader.New(f.store, engine, calendar.ReadScope{Cached: true}))
	oneDay := calendar.RangeSpec{FromDate: day("2026-07-24"), ToDate: day("2026-07-25"), TimeZone: utc}
	v, err = loader.For(request).Entries(request, dense.ID, oneDay, calendar.Filter{})
	if err != nil || len(v.Entries) != 1440 {
		t.Fatalf("one day of the dense calendar: got %d entries, %v; want 1440", entriesOf(v), err)
	}
}

func entriesOf(v *loader.View) int {
	if v == nil {
		return -1
	}
	return len(v.Entries)
}
