package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// BenchmarkQueryReads is the store's reads that are Queries, one kind per
// sub-benchmark, on a calendar of 10 entries in the week read and 5 members:
// a user by sign-in identity (GSI3), a page of a user's calendars (GSI1),
// all of a user's memberships (GSI1), a week's range read (LSI1 and LSI2),
// a page of a full sync read (the table, filtered) and a live delivery's
// log read (the table). With -benchmem it shows what building and sending
// the Queries costs the server (the embedded engine, in process, included):
//
//	go test ./internal/dynamo -run '^$' -bench QueryReads -benchmem -count 5
//
// Latest run (2026-11-27, 2 shared cores, -benchtime 200x, 5 runs each of
// this tree and of the tree before keyquery.go, interleaved; medians):
// allocations per read fell where the SDK's expression builder went, from
// 740 to 718 (identity) and 460 to 407 (all-memberships), and by 3 for a
// page (ConsistentRead and ScanIndexForward are no longer sent at their
// defaults); the others moved by 2 or fewer. ns/op moved by ±20-40% either
// way between runs on the loaded machine: no CPU difference can be read.
func BenchmarkQueryReads(b *testing.B) {
	s, db := dynamotest.Store(b)
	f := &fixture{t: b, store: s, db: db}
	ada := f.user("ada@example.com")
	adaID, _ := calendar.ViewerID(ada)
	cal := f.calendarOf(ada, "Bench")
	for i := range 4 {
		email := fmt.Sprintf("member%d@example.com", i)
		f.share(ada, cal, f.user(email), email, calendar.RoleReader)
	}
	for i := range 10 {
		day := fmt.Sprintf("2026-06-%02d", 15+i%7)
		if _, _, err := s.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: fmt.Sprint("entry ", i),
			Timing: timed(day+"T09:00:00Z", day+"T10:00:00Z", "UTC")}); err != nil {
			b.Fatal(err)
		}
	}
	token, err := s.StartToken(ada, cal.ID, false)
	if err != nil {
		b.Fatal(err)
	}
	from, to := time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 22, 0, 0, 0, 0, time.UTC)
	reads := []struct {
		name string
		read func() error
	}{
		{"identity", func() error {
			_, _, err := s.ResolveIdentity(ada, calendar.SignUp{Identity: calendar.Identity{Provider: "test", Subject: "ada@example.com"}, Email: "ada@example.com"})
			return err
		}},
		{"calendars-page", func() error { _, err := s.MembershipsOfUser(ada, adaID, calendar.Page{First: 20}); return err }},
		{"all-memberships", func() error { _, err := s.AllMembershipsOfUser(ada, adaID, 100); return err }},
		{"range", func() error { _, err := s.EntriesReaching(ada, calendar.ReadScope{}, cal, from, to); return err }},
		{"full-sync-page", func() error { _, err := s.Changes(ada, cal.ID, "", 20); return err }},
		{"log", func() error { _, err := s.LogChanges(ada, cal.ID, token, 20); return err }},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := r.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
