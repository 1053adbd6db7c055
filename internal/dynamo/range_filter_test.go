package dynamo_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// TestRangeQuerySendsWhatReachesIn: of the 8 days of entry starts a range
// Query reads before the range, DynamoDB sends only the entries that reach
// into it, and an item written without reachEnd is still sent.
func TestRangeQuerySendsWhatReachesIn(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Work")
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	timed := func(title, start, end string) {
		_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: title,
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: at(start), End: at(end), TimeZone: "UTC"}}})
		f.mustDo(err)
	}
	timed("ended before", "2026-06-10T09:00:00Z", "2026-06-10T10:00:00Z")
	timed("ends at the start", "2026-06-14T23:00:00Z", "2026-06-15T00:00:00Z")
	timed("reaches in", "2026-06-14T23:00:00Z", "2026-06-15T01:00:00Z")
	timed("inside", "2026-06-16T09:00:00Z", "2026-06-16T10:00:00Z")
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "all days before",
		Timing: calendar.Timing{MultiDay: &calendar.DaySpan{Start: calendar.Date{Year: 2026, Month: 6, Day: 8}, End: calendar.Date{Year: 2026, Month: 6, Day: 11}}}})
	f.mustDo(err)
	// An item of an older version, without reachEnd: a copy of "ended
	// before" under another ID.
	for _, it := range f.items() {
		if it["title"] == "ended before" {
			delete(it, "reachEnd")
			delete(it, "createdBy")
			delete(it, "updatedBy") // older than history too
			it["SK"], it["id"], it["title"] = it["SK"].(string)+"old", it["id"].(string)+"old", "old item"
			it["LSI1SK"] = it["LSI1SK"].(string) + "old"
			it["updatedAt"] = "2020-01-01T00:00:00Z" // older than the change log keeps
			f.putItem(it)
		}
	}

	var mu sync.Mutex
	var sent []string
	count := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("count", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				q, ok := in.Parameters.(*dynamodb.QueryInput)
				if res, isQuery := out.Result.(*dynamodb.QueryOutput); ok && isQuery && aws.ToString(q.IndexName) == "LSI1" {
					mu.Lock()
					for _, it := range res.Items {
						sent = append(sent, it["title"].(*types.AttributeValueMemberS).Value)
					}
					mu.Unlock()
				}
				return out, md, err
			}), middleware.After)
		})
	}
	s := dynamo.New(dynamotest.Client(t, count), f.store.Table(), recurrence.Engine{})
	entries, err := s.EntriesReaching(context.Background(), calendar.ReadScope{}, cal, at("2026-06-15T00:00:00Z"), at("2026-06-22T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(sent)
	if want := []string{"ends at the start", "inside", "old item", "reaches in"}; !slices.Equal(sent, want) {
		t.Fatalf("LSI1 sent %q, want %q", sent, want)
	}
	if len(entries) != 4 {
		t.Fatalf("%d entries returned, want 4", len(entries))
	}
}
