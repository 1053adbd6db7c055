package dynamo_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestWritePlans pins the transaction of each public write: every item it
// writes or checks, under which condition, in order, as write.Plan lists it
// (change records and the idempotency marker are stamped when sent, so they
// show what they are). IDs are written as names: ann, bob, cal (ann's
// calendar), room (a resource calendar), e1, e2 (entries), s1 (a series),
// inv (an invitation). Each step runs on what the steps before it left.
func TestWritePlans(t *testing.T) {
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	s, db := dynamotest.Store(t, dynamo.WithClock(func() time.Time { return now }), dynamo.WithIDs(sequentialIDs()))
	f := &fixture{t: t, store: s, db: db}
	t.Cleanup(func() {
		if !t.Failed() {
			f.consistent()
		}
	})
	ann, bob := f.user("ann@example.com"), f.user("bob@example.com") // …001, …002
	names := map[string]string{"001": "ann", "002": "bob"}
	name := func(id, as string) { names[id[len(id)-3:]] = as }
	var plans [][]string
	dynamo.SetPlanHook(s, func(p []string) { plans = append(plans, p) })

	var cal, room *calendar.Calendar
	var e1, e2, s1 *calendar.Entry
	var inv *calendar.Invitation
	var token string
	var annAtRoom *calendar.Membership
	steps := []struct {
		name string
		do   func() error
		want []string // one transaction's plan; several are separated by "--"
	}{
		{"CreateCalendar", func() (err error) {
			cal, _, err = s.CreateCalendar(ann, calendar.NewCalendar{Name: "Team"})
			name(cal.ID, "cal")
			return err
		}, []string{
			"Check USER#ann/USER#ann if attribute_exists (PK)",
			"Put CAL#cal/CAL#cal if attribute_not_exists (PK)",
			"Put CAL#cal/OWNERS if attribute_not_exists (PK)",
			"Put CAL#cal/MEMBER#ann if attribute_not_exists (PK)",
			"Put CAL#cal/CHG#… change record of CAL",
			"Put CAL#cal/CHG#… change record of MEMBER#ann",
			"Put USER#ann/CHG#… change record of MEMBER#cal",
		}},
		{"UpdateCalendar", func() (err error) {
			cal, err = s.UpdateCalendar(ann, calendar.CalendarUpdate{ID: cal.ID, ExpectedVersion: 1, Name: calendar.Set("Team A")})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Update CAL#cal/CAL#cal REMOVE description SET name = \"Team A\", color = \"#3B82F6\", timeZone = \"UTC\", isResource = false, version = 2, updatedAt = \"2026-11-21T09:30:00Z\" if (attribute_exists (PK)) AND (version = 1)",
			"Put CAL#cal/CHG#… change record of CAL",
		}},
		{"CreateEntry", func() (err error) {
			e1, _, err = s.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Standup",
				Timing: timed("2026-11-23T09:00:00Z", "2026-11-23T09:15:00Z", "UTC")})
			name(e1.ID, "e1")
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Put CAL#cal/ENTRY#e1 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c9 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCreated = 1795253400000 ADD events 1 if (attribute_not_exists(lastCreated) OR lastCreated <= 1795253400000)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
		}},
		{"SetMyReminders", func() error { // the user's own item, checked against the entry and their role; no log, no revision
			_, err := s.SetMyReminders(ann, calendar.MyRemindersChange{Key: e1.Key(), Reminders: []calendar.Reminder{{Minutes: 10}}})
			return err
		}, []string{
			"Check CAL#cal/ENTRY#e1 if attribute_exists (PK)",
			`Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN ("OWNER", "WRITER", "READER"))`,
			"Put CAL#cal/MYREM#e1#ann if attribute_not_exists (PK)",
			"Put DUE#0/2026-11-21T09:30:00.000Z#A#cal#e1#ann",
		}},
		{"CreateEntry under an idempotency key", func() (err error) {
			e2, err = calendar.Once(ann, s, "key-1", "fingerprint", func(ctx context.Context) (*calendar.Entry, error) {
				e, _, err := s.CreateEntry(ctx, calendar.NewEntry{CalendarID: cal.ID, Title: "Review", Timing: dueOn("2026-11-24")})
				return e, err
			})
			name(e2.ID, "e2")
			return err
		}, []string{
			"Put IDEM#hash/IDEM#hash if absent or expired (idempotency marker)",
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Put CAL#cal/ENTRY#e2 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#N#DD0#0 SET entityType = \"STATS_NODE\" ADD c2 1",
			"Update USER#ann/STATS#N#DD1#2 SET entityType = \"STATS_NODE\" ADD c7 1",
			"Update USER#ann/STATS#N#DD2#207 SET entityType = \"STATS_NODE\" ADD c81 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\" ADD tasks 1",
			"Put CAL#cal/CHG#… change record of ENTRY#e2",
		}},
		{"UpdateEntry", func() (err error) {
			e1, _, err = s.UpdateEntry(ann, calendar.EntryUpdate{Key: calendar.EntryKey{CalendarID: cal.ID, EntryID: e1.ID},
				ExpectedVersion: 1, Title: calendar.Set("Daily standup")})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Put CAL#cal/ENTRY#e1 if ((attribute_exists (PK)) AND (version = 1)) AND ((attribute_not_exists (attRev)) OR (attRev = 0))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/HIST#e1#01 history record 1 of e1 after 0 (CREATED)", // derived from the item until now
			"Put CAL#cal/HIST#e1#02 history record 2 of e1 after 1 (UPDATED)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
		}},
		{"ChangeAttendees", func() (err error) {
			e1, err = s.ChangeAttendees(ann, calendar.AttendeeDelta{Key: e1.Key(),
				Add: []calendar.NewAttendee{{Email: "bob@example.com"}, {Email: "eve@elsewhere.org", DisplayName: "Eve"}}})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Put CAL#cal/ATT#e1#U#bob if attribute_not_exists (PK)",
			"Put CAL#cal/ATT#e1#E#eve@elsewhere.org if attribute_not_exists (PK)",
			"Update CAL#cal/ENTRY#e1 ADD attRev 1, attNeedsAction 2 if ((attribute_exists (PK)) AND (pieces = 1)) AND ((attribute_not_exists (attRev)) OR (attRev = 0))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put USER#bob/CHG#… change record of ATT#cal#e1", // bob's own log: he is invited (eve has none)
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
		}},
		{"Respond", func() error {
			_, err := s.Respond(bob, calendar.RSVP{Key: e1.Key(), ExpectedVersion: 1, Response: calendar.ResponseAccepted, AdditionalGuests: 1})
			return err
		}, []string{
			"Put CAL#cal/ATT#e1#U#bob if (attribute_exists (PK)) AND (version = 1)",
			"Update CAL#cal/ENTRY#e1 ADD attRev 1, attNeedsAction -1, attAccepted 1, attGuests 1, attHeads 2 if ((attribute_exists (PK)) AND (pieces = 1)) AND (((attribute_not_exists (capacity)) OR (capacity = 0)) AND ((attribute_not_exists (attEpoch)) OR (attEpoch = 0)))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put USER#bob/CHG#… change record of ATT#cal#e1",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
		}},
		{"SetTaskCompleted", func() (err error) {
			e2, _, err = s.SetTaskCompleted(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: e2.ID}, 1, true)
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Put CAL#cal/ENTRY#e2 if ((attribute_exists (PK)) AND (version = 1)) AND ((attribute_not_exists (attRev)) OR (attRev = 0))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Update USER#ann/STATS#N#DD0#0 SET entityType = \"STATS_NODE\" ADD c2 -1",
			"Update USER#ann/STATS#N#DD1#2 SET entityType = \"STATS_NODE\" ADD c7 -1",
			"Update USER#ann/STATS#N#DD2#207 SET entityType = \"STATS_NODE\" ADD c81 -1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCompleted = 1795253400000 if (attribute_not_exists(lastCompleted) OR lastCompleted <= 1795253400000)",
			"Put CAL#cal/HIST#e2#01 history record 1 of e2 after 0 (CREATED)",
			"Put CAL#cal/HIST#e2#02 history record 2 of e2 after 1 (UPDATED)",
			"Put CAL#cal/CHG#… change record of ENTRY#e2",
		}},
		{"DeleteEntry", func() error {
			return s.DeleteEntry(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: e1.ID}, 2)
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Delete CAL#cal/ENTRY#e1 if ((attribute_exists (PK)) AND (version = 2)) AND (attRev = 2)",
			"Put CAL#cal/TRASH#2026-11-21T09:30:00.000Z#e1", // the entry and its attendees, for restoreEntry (trash.go)
			"Put CAL#cal/TRASHREF#e1",
			"Delete CAL#cal/ATT#e1#E#eve@elsewhere.org if (attribute_exists (PK)) AND (version = 1)",
			"Delete CAL#cal/ATT#e1#U#bob if (attribute_exists (PK)) AND (version = 2)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c9 -1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\" ADD events -1",
			"Put CAL#cal/HIST#e1#03 history record 3 of e1 after 2 (DELETED)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
			"Put USER#bob/CHG#… change record of ATT#cal#e1", // his invitation is gone
		}},
		{"RestoreEntry", func() error {
			_, _, err := s.RestoreEntry(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: e1.ID})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Check PENDING/trash#cal/e1 if attribute_not_exists (PK)", // no deletion of it in steps under way (trash_steps.go)
			"Delete CAL#cal/TRASH#2026-11-21T09:30:00.000Z#e1 if attribute_exists (PK)",
			"Delete CAL#cal/TRASHREF#e1 if trashSK = \"TRASH#2026-11-21T09:30:00.000Z#e1\"",
			"Put CAL#cal/ENTRY#e1 if attribute_not_exists (PK)", // as it was deleted
			"Put CAL#cal/ATT#e1#E#eve@elsewhere.org if attribute_not_exists (PK)",
			"Put CAL#cal/ATT#e1#U#bob if attribute_not_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c9 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\" ADD events 1",
			"Put CAL#cal/HIST#e1#04 history record 4 of e1 after 3 (RESTORED)", // version 4: the deletion's record was 3
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
			"Put USER#bob/CHG#… change record of ATT#cal#e1", // his invitation is back
		}},
		{"DeleteEntry again", func() error {
			return s.DeleteEntry(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: e1.ID}, 4)
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Delete CAL#cal/ENTRY#e1 if ((attribute_exists (PK)) AND (version = 4)) AND (attRev = 2)",
			"Put CAL#cal/TRASH#2026-11-21T09:30:00.000Z#e1",
			"Put CAL#cal/TRASHREF#e1",
			"Delete CAL#cal/ATT#e1#E#eve@elsewhere.org if (attribute_exists (PK)) AND (version = 1)",
			"Delete CAL#cal/ATT#e1#U#bob if (attribute_exists (PK)) AND (version = 2)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c9 -1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\" ADD events -1",
			"Put CAL#cal/HIST#e1#05 history record 5 of e1 after 4 (DELETED)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
			"Put USER#bob/CHG#… change record of ATT#cal#e1",
		}},
		{"CreateEntry of the calendar's first series", func() (err error) {
			s1, _, err = s.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Weekly",
				Timing:     timed("2026-11-23T10:00:00Z", "2026-11-23T11:00:00Z", "UTC"),
				Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=4"}})
			name(s1.ID, "s1")
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal REMOVE neverHeldSeries ADD rev 1 if attribute_exists (PK)",
			"Put CAL#cal/ENTRY#s1 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCreated = 1795253400000 ADD events 1 if (attribute_not_exists(lastCreated) OR lastCreated <= 1795253400000)",
			"Put CAL#cal/CHG#… change record of CAL",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"UpdateOccurrence of one occurrence", func() error {
			key := calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: s1.ID, OriginalStart: at("2026-11-30T10:00:00Z")}
			_, _, err := s.UpdateOccurrence(ann, key, calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 1, Title: calendar.Set("Moved")})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/ENTRY#s1 ADD xrev 1 if ((attribute_exists (PK)) AND (version = 1)) AND ((attribute_not_exists (xrev)) OR (xrev = 0))",
			"Put CAL#cal/ENTRY#s1#X#2026-11-30T10:00:00.000Z if attribute_not_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/HIST#s1#01 history record 1 of s1 after 0 (CREATED)",
			"Put CAL#cal/HIST#s1#02 history record 2 of s1 after 1 (OCCURRENCE_CHANGED)",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"ChangeAttendees of a series", func() (err error) {
			s1, err = s.ChangeAttendees(ann, calendar.AttendeeDelta{Key: s1.Key(), Add: []calendar.NewAttendee{{Email: "bob@example.com"}}})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Put CAL#cal/ATT#s1#U#bob if attribute_not_exists (PK)",
			"Update CAL#cal/ENTRY#s1 ADD attRev 1, attNeedsAction 1 if ((attribute_exists (PK)) AND (pieces = 1)) AND ((attribute_not_exists (attRev)) OR (attRev = 0))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put USER#bob/CHG#… change record of ATT#cal#s1",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"Respond to one occurrence", func() error {
			_, err := s.Respond(bob, calendar.RSVP{Key: s1.Key(), Occurrence: at("2026-12-07T10:00:00Z"), Scope: calendar.ScopeThis,
				ExpectedVersion: 1, Response: calendar.ResponseDeclined})
			return err
		}, []string{
			"Check CAL#cal/ENTRY#s1#X#2026-12-07T10:00:00.000Z if (attribute_not_exists (cancelled)) OR (cancelled = false)",
			"Update CAL#cal/ENTRY#s1 ADD attRev 1, ao#O20261207T100000Z#n -1, ao#O20261207T100000Z#d 1, attKeys 1 if ((attribute_exists (PK)) AND (pieces = 1)) AND (((((attribute_not_exists (ao#O20261207T100000Z#n)) AND ((attribute_not_exists (attKeys)) OR (attKeys <= 99))) AND ((attribute_not_exists (gen)) OR (gen = \"\"))) AND ((attribute_not_exists (attEpoch)) OR (attEpoch = 0))) AND ((attribute_not_exists (attMoves)) OR (attMoves = 0)))",
			"Put CAL#cal/ATT#s1#U#bob if (attribute_exists (PK)) AND (version = 1)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put USER#bob/CHG#… change record of ATT#cal#s1",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"UpdateEntry of a series with answers", func() error {
			_, _, err := s.UpdateEntry(ann, calendar.EntryUpdate{Key: s1.Key(), ExpectedVersion: 1, Title: calendar.Set("Weekly sync")})
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Put CAL#cal/ENTRY#s1 if (((attribute_exists (PK)) AND (version = 1)) AND (xrev = 1)) AND (attRev = 2)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/HIST#s1#03 history record 3 of s1 after 2 (UPDATED)",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"UpdateOccurrence moving an answered occurrence alone", func() error {
			key := calendar.OccurrenceKey{CalendarID: cal.ID, SeriesID: s1.ID, OriginalStart: at("2026-12-07T10:00:00Z")}
			_, _, err := s.UpdateOccurrence(ann, key, calendar.ScopeThis, calendar.EntryUpdate{ExpectedVersion: 2,
				Timing: calendar.Set(timed("2026-12-07T15:00:00Z", "2026-12-07T16:00:00Z", "UTC"))})
			return err
		}, []string{ // the reset at it cancels bob's decline there: its share goes
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/ENTRY#s1 ADD xrev 1, attRev 1, attKeys -1 REMOVE ao#O20261207T100000Z#n, ao#O20261207T100000Z#a, ao#O20261207T100000Z#t, ao#O20261207T100000Z#d, ao#O20261207T100000Z#g SET attMoves = 1, rs#20261207T100000Z = 1 if (((((ao#O20261207T100000Z#n = -1) AND ((attribute_not_exists (ao#O20261207T100000Z#a)) OR (ao#O20261207T100000Z#a = 0))) AND ((attribute_not_exists (ao#O20261207T100000Z#t)) OR (ao#O20261207T100000Z#t = 0))) AND (ao#O20261207T100000Z#d = 1)) AND ((attribute_not_exists (ao#O20261207T100000Z#g)) OR (ao#O20261207T100000Z#g = 0))) AND (((((attribute_exists (PK)) AND (version = 2)) AND (xrev = 1)) AND (attRev = 2)) AND ((attribute_not_exists (attMoves)) OR (attMoves = 0)))",
			"Put CAL#cal/ENTRY#s1#X#2026-12-07T10:00:00.000Z if attribute_not_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/HIST#s1#04 history record 4 of s1 after 3 (OCCURRENCE_CHANGED)",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
		{"MoveEntry to a resource calendar", func() (err error) {
			room, _, err = s.CreateCalendar(ann, calendar.NewCalendar{Name: "Room", IsResource: true})
			if err != nil {
				return err
			}
			name(room.ID, "room")
			plans = nil
			e1, _, err = s.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: "Talk",
				Timing: timed("2026-11-25T14:00:00Z", "2026-11-25T14:30:00Z", "UTC")})
			if err != nil {
				return err
			}
			name(e1.ID, "e1")
			plans = nil
			e1, _, err = s.MoveEntry(ann, calendar.EntryKey{CalendarID: cal.ID, EntryID: e1.ID}, 1, room.ID)
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Check CAL#room/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#room/CAL#room ADD rev 1 if attribute_exists (PK)",
			"Delete CAL#cal/ENTRY#e1 if ((attribute_exists (PK)) AND (version = 1)) AND ((attribute_not_exists (attRev)) OR (attRev = 0))",
			"Put CAL#room/ENTRY#e1 if attribute_not_exists (PK)",
			"Put CAL#room/SLOT#2026-11-25T14:00:00.000Z if attribute_not_exists (PK)",
			"Put CAL#room/SLOT#2026-11-25T14:15:00.000Z if attribute_not_exists (PK)",
			"Update CAL#room/SLOTDAY#2026-11-25 ADD timed 2 SET entityType = \"SLOT_DAY\", calendarId = \"room\", date = \"2026-11-25\", whole = \"\", wholeEntryId = \"\", wholeOriginalStart = \"0001-01-01T00:00:00Z\", wholeFrom = \"\", wholeTo = \"\" if (attribute_not_exists (whole)) OR (whole = \"\")",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#room/HIST#e1#02 history record 2 of e1 after 1 (MOVED)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
			"Put CAL#room/CHG#… change record of ENTRY#e1",
		}},
		{"AddMember", func() error {
			_, _, err := s.AddMember(ann, cal.ID, "bob@example.com", calendar.RoleWriter)
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Check USER#bob/USER#bob if attribute_exists (PK)",
			"Put CAL#cal/MEMBER#bob if attribute_not_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Put CAL#cal/CHG#… change record of MEMBER#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"ChangeRole", func() error {
			_, _, err := s.ChangeRole(ann, calendar.MembershipKey{CalendarID: cal.ID, UserID: viewer(t, bob)}, calendar.RoleOwner, 1)
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Update CAL#cal/MEMBER#bob SET role = \"OWNER\", version = 2, updatedAt = \"2026-11-21T09:30:00Z\" if (((attribute_exists (PK)) AND (version = 1)) AND (role = \"WRITER\")) AND (createdAt = \"2026-11-21T09:30:00Z\")",
			"Update CAL#cal/OWNERS SET owners = owners + 1 if attribute_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/CHG#… change record of MEMBER#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"UpdateCalendarSettings", func() error {
			color := "#112233"
			_, _, err := s.UpdateCalendarSettings(bob, calendar.SettingsUpdate{CalendarID: cal.ID, Color: calendar.Set(&color), SortKey: calendar.Set("a0")})
			return err
		}, []string{
			// The member's settings attributes alone, and their own log: no revision, nothing in the calendar's log.
			"Update CAL#cal/MEMBER#bob REMOVE setName, setHidden, setUnselected, setReminders SET setColor = \"#112233\", setSortKey = \"a0\", setVersion = 1, setUpdatedAt = \"2026-11-21T09:30:00Z\" if (attribute_exists (PK)) AND (attribute_not_exists (setVersion))",
			"Check CAL#cal/CAL#cal if attribute_exists (PK)",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"UpdateCalendarSettings of default reminders", func() error {
			_, _, err := s.UpdateCalendarSettings(bob, calendar.SettingsUpdate{CalendarID: cal.ID, ExpectedVersion: 1,
				DefaultReminders: calendar.Set([]calendar.Reminder{{Minutes: 10}})})
			return err
		}, []string{
			// And the schedule's copy of the defaults, and an arm item of them.
			"Update CAL#cal/MEMBER#bob REMOVE setName, setHidden, setUnselected SET setColor = \"#112233\", setSortKey = \"a0\", setReminders = [1 values], setVersion = 2, setUpdatedAt = \"2026-11-21T09:30:00Z\" if (attribute_exists (PK)) AND (setVersion = 1)",
			"Check CAL#cal/CAL#cal if attribute_exists (PK)",
			"Put CAL#cal/REMDEF#bob",
			"Put DUE#3/2026-11-21T09:30:00.000Z#C#cal#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"RemoveMember", func() error {
			return s.RemoveMember(ann, calendar.MembershipKey{CalendarID: cal.ID, UserID: viewer(t, bob)}, 2)
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Delete CAL#cal/MEMBER#bob if (((attribute_exists (PK)) AND (version = 2)) AND (role = \"OWNER\")) AND (createdAt = \"2026-11-21T09:30:00Z\")",
			"Delete CAL#cal/REMDEF#bob",
			"Update CAL#cal/OWNERS SET owners = owners + -1 if (attribute_exists (PK)) AND (owners > 1)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/CHG#… change record of MEMBER#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"CreateInvitation", func() (err error) {
			inv, token, _, err = s.CreateInvitation(ann, calendar.NewInvitation{CalendarID: cal.ID, Role: calendar.RoleReader,
				ValidUntil: now.Add(24 * time.Hour), MaxUses: 2})
			name(inv.ID, "inv")
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Check CAL#cal/CAL#cal if attribute_exists (PK)",
			"Put CAL#cal/INVITE#inv if attribute_not_exists (PK)",
		}},
		{"AcceptInvitation", func() error {
			_, err := s.AcceptInvitation(bob, token)
			return err
		}, []string{
			"Update CAL#cal/INVITE#inv SET uses = uses + 1 if ((attribute_exists (PK)) AND (uses < maxUses)) AND (validUntil > 1795253400000)",
			"Check USER#bob/USER#bob if attribute_exists (PK)",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Put CAL#cal/MEMBER#bob if attribute_not_exists (PK)",
			"Put CAL#cal/CHG#… change record of MEMBER#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"RevokeInvitation", func() error {
			return s.RevokeInvitation(ann, calendar.InvitationKey{CalendarID: cal.ID, ID: inv.ID})
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Delete CAL#cal/INVITE#inv if attribute_exists (PK)",
		}},
		{"LeaveCalendar", func() error {
			_, err := s.LeaveCalendar(bob, cal.ID, 1)
			return err
		}, []string{
			"Delete CAL#cal/MEMBER#bob if (((attribute_exists (PK)) AND (version = 1)) AND (role = \"READER\")) AND (createdAt = \"2026-11-21T09:30:00Z\")",
			"Delete CAL#cal/REMDEF#bob",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
			"Put CAL#cal/CHG#… change record of MEMBER#bob",
			"Put USER#bob/CHG#… change record of MEMBER#cal",
		}},
		{"RegisterCalendarWebhook", func() error {
			h, _, err := s.RegisterCalendarWebhook(ann, calendar.NewCalendarWebhook{CalendarID: cal.ID, URL: "https://hooks.example.com/cal"})
			if err == nil {
				name(h.ID, "hook")
			}
			return err
		}, []string{
			"Put CALHOOK#1/ann#hook if attribute_not_exists (PK)",
			"Update CALHOOK#1/ann ADD hooks 1 SET entityType = \"CALENDAR_WEBHOOK_COUNT\" if (attribute_not_exists (hooks)) OR (hooks < 10)",
			"Check USER#ann/USER#ann if attribute_exists (PK)",
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Put HOOKCUR#3/cal#ann#hook if attribute_not_exists (PK)",
		}},
		{"RotateFeed", func() (err error) {
			_, err = s.RotateFeed(ann, cal.ID)
			return err
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Check CAL#cal/CAL#cal if attribute_exists (PK)",
			"Put CAL#cal/FEED if attribute_not_exists (PK)",
			"Put FEED#hash/FEED#hash if attribute_not_exists (PK)",
		}},
		{"DisableFeed", func() error {
			return s.DisableFeed(ann, cal.ID)
		}, []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Delete CAL#cal/FEED if (attribute_exists (PK)) AND (tokenHash = \"hash\")",
			"Delete FEED#hash/FEED#hash",
		}},
		{"DeleteCalendar, then its counted entries", func() error {
			return s.DeleteCalendar(ann, cal.ID, 2)
		}, []string{
			"Delete CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\"))",
			"Delete CAL#cal/CAL#cal if (attribute_exists (PK)) AND (version = 2)",
			"Delete CAL#cal/OWNERS if attribute_exists (PK)",
			"Check CAL#cal/FEED if attribute_not_exists (PK)",
			"Put PENDING/calendar#cal",
			"Put CAL#cal/CHG#… change record of MEMBER#ann",
			"Put USER#ann/CHG#… change record of MEMBER#cal",
			"Put CAL#cal/CHG#… change record of CAL",
			"--",
			"Delete CAL#cal/ENTRY#e2 if (attribute_exists (PK)) AND (version = 2)",
			"Delete CAL#cal/ENTRY#s1 if (attribute_exists (PK)) AND (version = 2)",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\" ADD events -1, tasks -1",
			"Put CAL#cal/CHG#… change record of ENTRY#e2",
			"Put CAL#cal/CHG#… change record of ENTRY#s1",
		}},
	}
	for _, st := range steps {
		plans = nil
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		var got []string
		for i, p := range plans {
			if i > 0 {
				got = append(got, "--")
			}
			for _, line := range p {
				got = append(got, readable(line, names))
			}
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s's plan (-want +got):\n%s\ngot:\n%s", st.name, diff, quoted(got))
		}
	}
	_, _, _, _, _, _, _, _ = room, e1, e2, s1, inv, token, annAtRoom, bob
}

var (
	sequentialID = regexp.MustCompile(`00000000-0000-7000-8000-000000000(\d\d\d)`)
	tokenHash    = regexp.MustCompile(`[0-9a-f]{64}`)
)

// readable writes the sequential IDs of a plan's line as names, and the
// hashes of random feed tokens as "hash".
func readable(line string, names map[string]string) string {
	line = tokenHash.ReplaceAllString(line, "hash")
	return sequentialID.ReplaceAllStringFunc(line, func(id string) string {
		if n, ok := names[id[len(id)-3:]]; ok {
			return n
		}
		return "id" + id[len(id)-3:]
	})
}

// quoted writes lines as Go string literals, to paste into a want.
func quoted(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "\t\t\t%q,\n", l)
	}
	return b.String()
}

var _ = context.Background
