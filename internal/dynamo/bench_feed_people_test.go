package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// BenchmarkFeedPeople reads the feed of a calendar of 100 single entries,
// each with 10 external attendees (1,000 attendee items), and reports the
// calls and waves one read takes: the attendees cost one wave of a Query
// and a BatchGetItem, whatever the number of entries.
//
//	go test -run '^$' -bench FeedPeople -benchtime 20x ./internal/dynamo/
func BenchmarkFeedPeople(b *testing.B) {
	s, _ := dynamotest.Store(b)
	id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: "owner"}, Email: "owner@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	owner := calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
	cal, _, err := s.CreateCalendar(owner, calendar.NewCalendar{Name: "Events", TimeZone: "UTC"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range 100 {
		at := start.Add(time.Duration(i) * time.Hour)
		e, _, err := s.CreateEntry(owner, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("Meeting ", i),
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: at, End: at.Add(time.Hour), TimeZone: "UTC"}}})
		if err != nil {
			b.Fatal(err)
		}
		d := calendar.AttendeeDelta{Key: e.Key()}
		for j := range 10 {
			d.Add = append(d.Add, calendar.NewAttendee{Email: fmt.Sprintf("p%d-%d@elsewhere.org", i, j), DisplayName: "Someone, Else"})
		}
		if _, err := s.ChangeAttendees(owner, d); err != nil {
			b.Fatal(err)
		}
	}
	token, err := s.RotateFeed(owner, cal.ID)
	if err != nil {
		b.Fatal(err)
	}
	rec := &dynamo.Recorder{}
	rs := dynamo.New(dynamotest.Client(b, dynamo.WithRecorder(rec)), s.Table(), engine)
	b.ResetTimer()
	for range b.N {
		rec.Reset()
		feed, err := rs.Feed(context.Background(), token)
		if err != nil || len(feed.Attendees) != 100 {
			b.Fatalf("feed: %v, %d entries with attendees", err, len(feed.Attendees))
		}
	}
	b.ReportMetric(float64(len(rec.Calls())), "calls/op")
	b.ReportMetric(float64(dynamo.Waves(rec.Calls())), "waves/op")
}
