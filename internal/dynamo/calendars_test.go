package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// sequentialIDs returns a generator of predictable UUIDs.
func sequentialIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n.Add(1)) }
}

func TestCreateCalendarWritesExactlyTheseItems(t *testing.T) {
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	s, db := dynamotest.Store(t, dynamo.WithClock(func() time.Time { return now }), dynamo.WithIDs(sequentialIDs()))
	f := &fixture{t: t, store: s, db: db}
	ada := f.user("ada@example.com") // user ...001
	_, _, err := s.CreateCalendar(ada, calendar.NewCalendar{Name: " Team ", Description: "Shared", TimeZone: "Europe/Paris", IsResource: true})
	if err != nil {
		t.Fatal(err)
	}
	const u, c, ts = "00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002", "2026-11-21T09:30:00Z"
	want := []map[string]any{
		{"PK": "CAL#" + c, "SK": "CAL#" + c, "entityType": "CALENDAR", "id": c, "name": "Team", "color": "#3B82F6",
			"description": "Shared", "timeZone": "Europe/Paris", "isResource": true, "neverHeldSeries": true, "version": 1.0, "createdAt": ts, "updatedAt": ts},
		{"PK": "CAL#" + c, "SK": "MEMBER#" + u, "GSI1PK": "USER#" + u, "GSI1SK": "CAL#" + c, "entityType": "MEMBERSHIP",
			"calendarId": c, "userId": u, "role": "OWNER", "version": 1.0, "createdAt": ts, "updatedAt": ts},
		{"PK": "CAL#" + c, "SK": "OWNERS", "entityType": "OWNER_TALLY", "calendarId": c, "owners": 1.0},
		{"PK": "EMAIL#ada@example.com", "SK": "EMAIL#ada@example.com", "entityType": "EMAIL", "userId": u},
		{"PK": "IDENT#test#ada@example.com", "SK": "IDENT#test#ada@example.com", "entityType": "IDENTITY", "userId": u},
		{"PK": "USER#" + u, "SK": "USER#" + u, "GSI3PK": "PROV#test#ada@example.com", "GSI3SK": "USER#" + u, "entityType": "USER",
			"id": u, "name": "ada", "email": "ada@example.com", "provider": "test", "subject": "ada@example.com",
			"prefWeekStart": "MONDAY", "prefDefaultDurationMinutes": 60.0, "prefTheme": "SYSTEM",
			"prefCalendarIncrementMinutes": 15.0, "prefAutoArchiveDelayHours": 24.0, "prefBrowserNotifications": true, "prefSoundNotifications": true,
			"version": 1.0, "createdAt": ts, "updatedAt": ts},
	}
	if diff := cmp.Diff(want, f.items()); diff != "" {
		t.Errorf("table after create (-want +got):\n%s", diff)
	}
	// The change records: the calendar and the membership in the calendar's
	// log, the membership in the user's, all at one position.
	var changes []string
	positions := map[string]bool{}
	for _, it := range f.allItems() {
		if it["entityType"] == "CHANGE" {
			sk := it["SK"].(string)
			positions[sk[:len("CHG#")+16]] = true
			changes = append(changes, fmt.Sprint(it["PK"], " ", it["object"]))
		}
	}
	wantChanges := []string{"CAL#" + c + " CAL", "CAL#" + c + " MEMBER#" + u, "USER#" + u + " MEMBER#" + c}
	slices.Sort(changes)
	if !slices.Equal(changes, wantChanges) || len(positions) != 1 {
		t.Errorf("change records %q at %d positions, want %q at one", changes, len(positions), wantChanges)
	}
}

// roles sets up a calendar with an owner, a writer, a reader and an outsider.
type roles struct {
	cal                             *calendar.Calendar
	owner, writer, reader, outsider context.Context
	ownerM, writerM, readerM        *calendar.Membership
}

func (f *fixture) roles() roles {
	f.t.Helper()
	r := roles{owner: f.user("owner@example.com"), writer: f.user("writer@example.com"),
		reader: f.user("reader@example.com"), outsider: f.user("outsider@example.com")}
	r.cal = f.calendarOf(r.owner, "Team")
	r.writerM = f.share(r.owner, r.cal, r.writer, "writer@example.com", calendar.RoleWriter)
	r.readerM = f.share(r.owner, r.cal, r.reader, "reader@example.com", calendar.RoleReader)
	found, err := f.store.Read(r.owner, calendar.Keys{Memberships: []calendar.MembershipKey{{CalendarID: r.cal.ID, UserID: viewer(f.t, r.owner)}}})
	if err != nil {
		f.t.Fatal(err)
	}
	for _, m := range found.Memberships {
		r.ownerM = m
	}
	return r
}

// actors lists who tries an operation and, for the owner, success (-1).
func (r roles) actors(ownerCode calendar.Code) []struct {
	name string
	ctx  context.Context
	want calendar.Code
} {
	return []struct {
		name string
		ctx  context.Context
		want calendar.Code
	}{
		{"anonymous", context.Background(), calendar.CodeUnauthenticated},
		{"outsider", r.outsider, calendar.CodeNotFound},
		{"reader", r.reader, calendar.CodeForbidden},
		{"writer", r.writer, calendar.CodeForbidden},
		{"owner", r.owner, ownerCode},
	}
}

func TestUpdateCalendarByRole(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	for _, a := range r.actors(-1) {
		t.Run(a.name, func(t *testing.T) {
			c, err := f.store.UpdateCalendar(a.ctx, calendar.CalendarUpdate{ID: r.cal.ID, ExpectedVersion: 1, Name: calendar.Set("Renamed")})
			if a.want >= 0 {
				wantCode(t, err, a.want)
				return
			}
			if err != nil || c.Name != "Renamed" || c.Version != 2 {
				t.Fatalf("got %+v, %v; want Renamed at version 2", c, err)
			}
		})
	}
}

func TestUpdateCalendarInput(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Home", Description: "old", Color: "#112233"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		update    calendar.CalendarUpdate
		wantField string
		want      calendar.Calendar
	}{
		{"clear description, keep the rest", calendar.CalendarUpdate{Description: calendar.Set("")}, "",
			calendar.Calendar{Name: "Home", Color: "#112233", TimeZone: "UTC"}},
		{"bad color", calendar.CalendarUpdate{Color: calendar.Set("blue")}, "color", calendar.Calendar{}},
		{"empty name", calendar.CalendarUpdate{Name: calendar.Set("")}, "name", calendar.Calendar{}},
		{"unknown zone", calendar.CalendarUpdate{TimeZone: calendar.Set("Mars/Olympus")}, "timeZone", calendar.Calendar{}},
		{"Local zone", calendar.CalendarUpdate{TimeZone: calendar.Set("Local")}, "timeZone", calendar.Calendar{}},
		{"zone", calendar.CalendarUpdate{TimeZone: calendar.Set("America/New_York"), IsResource: calendar.Set(false)}, "",
			calendar.Calendar{Name: "Home", Color: "#112233", TimeZone: "America/New_York"}},
		{"resource flag, fixed at creation", calendar.CalendarUpdate{IsResource: calendar.Set(true)}, "isResource", calendar.Calendar{}},
	}
	version := cal.Version
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.update.ID, tt.update.ExpectedVersion = cal.ID, version
			got, err := f.store.UpdateCalendar(ada, tt.update)
			if tt.wantField != "" {
				wantCode(t, err, calendar.CodeInvalid)
				if f := calendar.ErrorField(err); f != tt.wantField {
					t.Fatalf("got field %q, want %q", f, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			version = got.Version
			g := calendar.Calendar{Name: got.Name, Color: got.Color, Description: got.Description, TimeZone: got.TimeZone, IsResource: got.IsResource}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("calendar (-want +got):\n%s", diff)
			}
		})
	}
	_, err = f.store.UpdateCalendar(ada, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: 1, Name: calendar.Set("x")})
	wantCode(t, err, calendar.CodeVersionConflict)
	_, err = f.store.UpdateCalendar(ada, calendar.CalendarUpdate{ID: "not-a-uuid", ExpectedVersion: 1})
	wantCode(t, err, calendar.CodeInvalid)
}

func TestDeleteCalendar(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	for _, a := range r.actors(calendar.CodeVersionConflict) {
		t.Run(a.name+" with a stale version", func(t *testing.T) {
			wantCode(t, f.store.DeleteCalendar(a.ctx, r.cal.ID, 7), a.want)
		})
	}
	if err := f.store.DeleteCalendar(r.owner, r.cal.ID, 1); err != nil {
		t.Fatalf("owner deletes: %v", err)
	}
	if got := f.countEntities(); got["CALENDAR"] != 0 || got["MEMBERSHIP"] != 0 || got["OWNER_TALLY"] != 0 {
		t.Errorf("got entities %v after delete, want no calendar, memberships or tally", got)
	}
	wantCode(t, f.store.DeleteCalendar(r.owner, r.cal.ID, 1), calendar.CodeNotFound)
	for _, ctx := range []context.Context{r.owner, r.writer} {
		page, err := f.store.MembershipsOfUser(ctx, viewer(t, ctx), calendar.Page{First: 10})
		if err != nil || len(page.Memberships) != 0 {
			t.Errorf("got %v, %v; want no memberships left", page, err)
		}
	}
}
