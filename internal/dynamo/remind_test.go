package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// consistentAt checks the table as of now (the schedule was run to then),
// instead of at the test's end.
func (f *fixture) consistentAt(now time.Time) {
	f.t.Helper()
	problems, err := withClock(f, now.Format(time.RFC3339)).Check(context.Background())
	f.mustDo(err)
	for _, p := range problems {
		f.t.Errorf("inconsistent at %s: %s", now.Format(time.RFC3339), p)
	}
	f.messy = true
}

// runReminders does what fell due at now on each store, concurrently, until
// nothing is left.
func runReminders(t *testing.T, now time.Time, stores ...*dynamo.Store) {
	t.Helper()
	for round := 0; ; round++ {
		if round == 20 {
			t.Fatalf("the schedule at %s does not settle", now)
		}
		var mu sync.Mutex
		found := 0
		var wg sync.WaitGroup
		for _, s := range stores {
			wg.Go(func() {
				tasks, err := s.ReminderTasks(context.Background(), now, 100)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				found += len(tasks)
				mu.Unlock()
				for _, task := range tasks {
					if err := s.DoReminderTask(context.Background(), task, now); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if found == 0 || t.Failed() {
			return
		}
	}
}

// alertsOf lists the user's alerts, dismissed ones too, by due time.
func alertsOf(t *testing.T, s *dynamo.Store, ctx context.Context) []*calendar.Alert {
	t.Helper()
	p, err := s.Alerts(ctx, true, calendar.Page{First: 100})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(p.Alerts, func(a, b *calendar.Alert) int { return a.DueAt.Compare(b.DueAt) })
	return p.Alerts
}

// alertRecords counts the records of alerts in a user's log.
func (f *fixture) alertRecords(userID string) map[string]int {
	n := map[string]int{}
	for _, it := range f.allItems() {
		if it["entityType"] == "CHANGE" && it["PK"] == "USER#"+userID {
			if obj, _ := it["object"].(string); strings.HasPrefix(obj, "ALERT#") {
				n[obj]++
			}
		}
	}
	return n
}

// TestRemindersFireOnceAcrossDST: a member's default reminders on a weekly
// Paris series with a moved and a cancelled occurrence and a DST change
// among them fire at their instants (absolute minutes before the
// occurrence's start in its zone), none early, each once, with two
// instances working the schedule at once.
func TestRemindersFireOnceAcrossDST(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal, _, err := f.store.CreateCalendar(ada, calendar.NewCalendar{Name: "Team", TimeZone: paris})
	f.mustDo(err)
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	f.mustDo(dynamo.SetReminderDefaults(bob, f.store, cal.ID, []calendar.Reminder{{Minutes: 10, Method: calendar.ReminderInApp}, {Minutes: 1440, Method: calendar.ReminderInApp}}))
	f.series(ada, cal.ID, "Standup", timed("2027-03-15T08:00:00Z", "2027-03-15T08:30:00Z", paris), "FREQ=WEEKLY;BYDAY=MO;COUNT=4")
	occs := f.occurrences(ada, cal.ID, calendar.RangeSpec{FromDate: day("2027-03-15"), ToDate: day("2027-04-12")}, paris, false)
	f.edit(ada, find(t, occs, paris, "03-22 09:00"), calendar.ScopeThis, calendar.EntryUpdate{Timing: calendar.Set(timed("2027-03-22T10:00:00Z", "2027-03-22T10:30:00Z", paris))})
	f.cancel(ada, find(t, occs, paris, "04-05 09:00"), calendar.ScopeThis)

	other := dynamo.New(f.db, f.store.Table(), engine)
	runReminders(t, time.Now(), f.store, other)
	// The 28 March DST change is between the day-before reminder (08:00
	// UTC on the 28th is 10:00 CEST) and the occurrence.
	want := []string{"2027-03-14T08:00:00Z", "2027-03-15T07:50:00Z", "2027-03-21T10:00:00Z", "2027-03-22T09:50:00Z",
		"2027-03-28T07:00:00Z", "2027-03-29T06:50:00Z"}
	for i, w := range want {
		due := at(w)
		runReminders(t, due.Add(-time.Second), f.store, other)
		if got := alertsOf(t, f.store, bob); len(got) != i {
			t.Fatalf("at %s, a second before the reminder due then: %d alerts, want %d", due.Add(-time.Second), len(got), i)
		}
		runReminders(t, due, f.store, other)
		got := alertsOf(t, f.store, bob)
		if len(got) != i+1 || !got[i].DueAt.Equal(due) || got[i].State != calendar.AlertFired || got[i].Fired != 1 {
			t.Fatalf("at %s: alerts %+v, want the %d-th due then", due, got, i+1)
		}
	}
	if got := alertsOf(t, f.store, ada); len(got) != 0 {
		t.Errorf("ada set no reminders but got %d alerts", len(got))
	}
	f.consistentAt(at(want[len(want)-1]))
	records := f.alertRecords(viewer(t, bob))
	if len(records) != len(want) {
		t.Errorf("bob's log names %d alerts, want %d", len(records), len(want))
	}
	for obj, n := range records {
		if n != 1 {
			t.Errorf("%s recorded %d times, want once", obj, n)
		}
	}
}

// dentist makes a user with a calendar whose default reminder is 30 minutes
// before, and an entry in it; it returns the user and when the reminder is due.
func (f *fixture) dentist() (context.Context, time.Time) {
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	f.mustDo(dynamo.SetReminderDefaults(ada, f.store, cal.ID, []calendar.Reminder{{Minutes: 30}}))
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Dentist",
		Timing: timed("2027-05-03T09:00:00Z", "2027-05-03T10:00:00Z", "UTC")})
	f.mustDo(err)
	return ada, at("2027-05-03T08:30:00Z")
}

// TestReminderLeftByAStoppedInstance: an instance that claims a reminder
// and stops leaves it to another once its lease runs out: late, not lost,
// and once.
func TestReminderLeftByAStoppedInstance(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, due := f.dentist()
	other := dynamo.New(f.db, f.store.Table(), engine)
	runReminders(t, due.Add(-time.Hour), f.store)
	n, err := dynamo.ClaimDueReminders(context.Background(), other, due)
	f.mustDo(err)
	if n != 1 {
		t.Fatalf("claimed %d due items, want the one reminder", n)
	}
	runReminders(t, due.Add(10*time.Second), f.store)
	if got := alertsOf(t, f.store, ada); len(got) != 0 {
		t.Fatalf("fired while another instance held the reminder: %+v", got)
	}
	runReminders(t, due.Add(31*time.Second), f.store)
	got := alertsOf(t, f.store, ada)
	if len(got) != 1 || !got[0].DueAt.Equal(due) {
		t.Fatalf("after the lease ran out: %+v, want the reminder, once", got)
	}
	f.consistentAt(due.Add(31 * time.Second))
}

// TestReminderClaimAppliedBeforeItsConnectionFailed: a claim of a due item
// that DynamoDB applied but whose answer was lost with its connection is sent
// again by the SDK; the repeat must find the lease it took and go on, so the
// reminder fires when due rather than when the lease runs out. The reminder,
// armed an hour before, is claimed when due through a client that cuts the
// first claim so.
func TestReminderClaimAppliedBeforeItsConnectionFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, due := f.dentist()
	db, claims := cutFirstClaim(f.db)
	cutting := dynamo.New(db, f.store.Table(), engine)
	runReminders(t, due.Add(-time.Hour), f.store)
	runReminders(t, due, cutting)
	if claims.Load() < 2 {
		t.Fatalf("%d claim attempts: the claim was not sent again, the test cut nothing", claims.Load())
	}
	if got := alertsOf(t, f.store, ada); len(got) != 1 || !got[0].DueAt.Equal(due) {
		t.Fatalf("at %s: alerts %+v; want the reminder fired, once, its claim's repeat holding the lease", due, got)
	}
	f.consistentAt(due)
}

// TestSnoozeAndDismiss: a fired alert snoozed fires again when the snooze
// runs out, dismissed it is done on every device; bad input and another
// user's alert change nothing.
func TestSnoozeAndDismiss(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, eve := f.user("ada@example.com"), f.user("eve@example.com")
	cal := f.calendarOf(ada, "Home")
	f.mustDo(dynamo.SetReminderDefaults(ada, f.store, cal.ID, []calendar.Reminder{{Minutes: 0}}))
	start := time.Now().UTC().Add(time.Hour).Truncate(time.Minute)
	_, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Call",
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
	f.mustDo(err)
	runReminders(t, time.Now(), f.store)
	runReminders(t, start, f.store)
	got := alertsOf(t, f.store, ada)
	if len(got) != 1 {
		t.Fatalf("%d alerts, want 1", len(got))
	}
	id := got[0].ID.String()
	five, zero := 5, 0
	past := time.Now().Add(-time.Minute)
	for _, c := range []struct {
		name    string
		ctx     context.Context
		id      string
		minutes *int
		until   *time.Time
		code    calendar.Code
	}{
		{"into the past", ada, id, nil, &past, calendar.CodeInvalid},
		{"no time", ada, id, nil, nil, calendar.CodeInvalid},
		{"both", ada, id, &five, &past, calendar.CodeInvalid},
		{"zero minutes", ada, id, &zero, nil, calendar.CodeInvalid},
		{"malformed ID", ada, "nope", &five, nil, calendar.CodeInvalid},
		{"someone else's", eve, id, &five, nil, calendar.CodeNotFound},
	} {
		_, err := f.store.SnoozeAlert(c.ctx, c.id, c.minutes, c.until)
		if calendar.ErrorCode(err) != c.code {
			t.Errorf("snooze %s: %v, want code %v", c.name, err, c.code)
		}
	}
	if _, err := f.store.DismissAlert(eve, id); calendar.ErrorCode(err) != calendar.CodeNotFound {
		t.Errorf("eve dismissing ada's alert: %v, want NOT_FOUND", err)
	}
	if got := alertsOf(t, f.store, ada); got[0].State != calendar.AlertFired || got[0].Version != 1 {
		t.Fatalf("bad input changed the alert: %+v", got[0])
	}
	a, err := f.store.SnoozeAlert(ada, id, &five, nil)
	f.mustDo(err)
	if a.State != calendar.AlertSnoozed {
		t.Fatalf("snoozed: %+v", a)
	}
	runReminders(t, a.SnoozedUntil.Add(-time.Second), f.store)
	if got := alertsOf(t, f.store, ada); got[0].State != calendar.AlertSnoozed {
		t.Fatalf("a second before the snooze ran out: %+v", got[0])
	}
	runReminders(t, a.SnoozedUntil, f.store)
	got = alertsOf(t, f.store, ada)
	if got[0].State != calendar.AlertFired || got[0].Fired != 2 {
		t.Fatalf("after the snooze: %+v, want fired again", got[0])
	}
	// Snoozed again and dismissed: the snooze never runs out.
	a, err = f.store.SnoozeAlert(ada, id, &five, nil)
	f.mustDo(err)
	d, err := f.store.DismissAlert(ada, id)
	f.mustDo(err)
	if d.State != calendar.AlertDismissed {
		t.Fatalf("dismissed: %+v", d)
	}
	runReminders(t, a.SnoozedUntil.Add(time.Minute), f.store)
	if got := alertsOf(t, f.store, ada); got[0].State != calendar.AlertDismissed || got[0].Fired != 2 {
		t.Fatalf("a dismissed alert fired: %+v", got[0])
	}
	if _, err := f.store.SnoozeAlert(ada, id, &five, nil); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Errorf("snoozing a dismissed alert: %v, want BAD_USER_INPUT", err)
	}
	open, err := f.store.Alerts(ada, false, calendar.Page{First: 10})
	f.mustDo(err)
	if len(open.Alerts) != 0 {
		t.Errorf("dismissed alerts listed without includeDismissed: %d", len(open.Alerts))
	}
}

// TestLegacyEntriesGoOnTheSchedule: an entry written before reminders fired
// (no wake) is off the schedule, which Check reports;
// ScheduleUnscheduled puts it on, once per table, and its reminder fires.
func TestLegacyEntriesGoOnTheSchedule(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	f.mustDo(dynamo.SetReminderDefaults(ada, f.store, cal.ID, []calendar.Reminder{{Minutes: 5}}))
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Old",
		Timing: timed("2027-06-01T09:00:00Z", "2027-06-01T10:00:00Z", "UTC")})
	f.mustDo(err)
	f.removeAttributes("CAL#"+cal.ID, "ENTRY#"+e.ID, "GSI5PK", "GSI5SK")
	runReminders(t, time.Now(), f.store) // the arm item of the defaults, before the entry lost its wake
	problems, err := f.store.Check(context.Background())
	f.mustDo(err)
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "not on the reminder schedule") }) {
		t.Fatalf("Check does not see the entry off the schedule: %q", problems)
	}
	if n, err := f.store.ScheduleUnscheduled(context.Background()); err != nil || n != 0 {
		t.Fatalf("an unmarked table: scheduled %d, %v; want none (a table made with GSI5 holds no earlier entries)", n, err)
	}
	f.mustDo(dynamo.MarkLegacyWakes(context.Background(), f.store))
	n, err := f.store.ScheduleUnscheduled(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("scheduled %d, %v; want the one entry", n, err)
	}
	if n, err := f.store.ScheduleUnscheduled(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second run scheduled %d, %v; want none (the first unmarked the table)", n, err)
	}
	due := at("2027-06-01T08:55:00Z")
	runReminders(t, due.Add(-29*24*time.Hour), f.store)
	runReminders(t, due, f.store)
	if got := alertsOf(t, f.store, ada); len(got) != 1 || !got[0].DueAt.Equal(due) {
		t.Fatalf("alerts %+v, want the reminder of the old entry", got)
	}
	f.consistentAt(due)
}

// removeAttributes removes attributes of an item, as a write of an earlier
// version would have left it.
func (f *fixture) removeAttributes(pk, sk string, names ...string) {
	f.t.Helper()
	expr := "REMOVE " + strings.Join(names, ", ")
	_, err := f.db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table()),
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
		UpdateExpression: aws.String(expr)})
	f.mustDo(err)
}

// TestWebhookReminderPostedOnce: a reminder with the WEBHOOK method fires
// for its user's apps and is posted, signed, to their reminder webhook, once,
// with the alert's ID as the delivery's: two instances firing it, and
// arming it twice, queue one delivery.
func TestWebhookReminderPostedOnce(t *testing.T) {
	t.Parallel()
	h := newHookFixture(t)
	cal := h.calendarOf(h.user, "Home")
	h.mustDo(dynamo.SetReminderDefaults(h.user, h.store, cal.ID, []calendar.Reminder{{Minutes: 15, Method: calendar.ReminderWebhook}}))
	_, _, err := h.store.CreateEntry(h.user, calendar.NewEntry{CalendarID: cal.ID, Title: "Standup",
		Timing: timed("2027-02-01T09:00:00Z", "2027-02-01T09:15:00Z", "UTC")})
	h.mustDo(err)
	other := dynamo.New(h.db, h.store.Table(), engine)
	due := at("2027-02-01T08:45:00Z")
	runReminders(t, time.Now(), h.store, other)
	h.mustDo(dynamo.SetReminderDefaults(h.user, h.store, cal.ID, []calendar.Reminder{{Minutes: 15, Method: calendar.ReminderWebhook}, {Minutes: 300}}))
	runReminders(t, due.Add(-2*time.Hour), h.store, other) // armed again
	runReminders(t, due, h.store, other, h.hooks)
	alerts := alertsOf(t, h.store, h.user)
	if len(alerts) != 2 {
		t.Fatalf("alerts %+v, want the two reminders", alerts)
	}
	h.clock.now = due.Add(time.Second)
	for range 3 {
		h.pass()
	}
	got := h.recv.accepted()
	want := ""
	for _, a := range alerts {
		if a.Reminder.Method == calendar.ReminderWebhook {
			want = a.ID.String()
		}
	}
	if len(got) != 1 || got[want] != 1 {
		t.Fatalf("the receiver got %v, want the WEBHOOK reminder %s once", got, want)
	}
	h.consistentAt(due)
}

// TestOwnRemindersFire: a member's own reminders on a series (ALL, and one
// occurrence of it set apart with THIS) fire instead of their calendar
// default, an invited user's own (no member) fire too, and an entry's
// shared reminders of before fire for its creator alone.
func TestOwnRemindersFire(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, bob, cat := f.user("ada@example.com"), f.user("bob@example.com"), f.user("cat@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	f.mustDo(dynamo.SetReminderDefaults(bob, f.store, cal.ID, []calendar.Reminder{{Minutes: 60}}))
	series := f.series(ada, cal.ID, "Weekly", timed("2027-04-05T09:00:00Z", "2027-04-05T10:00:00Z", "UTC"), "FREQ=WEEKLY;COUNT=3")
	k := calendar.EntryKey{CalendarID: cal.ID, EntryID: series.ID}
	// Cat is no member: invited to the series, with her own reminder on it.
	_, err := f.store.ChangeAttendees(ada, calendar.AttendeeDelta{Key: k, Add: []calendar.NewAttendee{{Email: "cat@example.com"}}})
	f.mustDo(err)
	_, err = f.store.SetMyReminders(cat, calendar.MyRemindersChange{Key: k, Scope: calendar.ScopeAll, Reminders: []calendar.Reminder{{Minutes: 2}}})
	f.mustDo(err)
	_, err = f.store.SetMyReminders(bob, calendar.MyRemindersChange{Key: k, Scope: calendar.ScopeAll, Reminders: []calendar.Reminder{{Minutes: 5}}})
	f.mustDo(err)
	_, err = f.store.SetMyReminders(bob, calendar.MyRemindersChange{Key: k, Occurrence: at("2027-04-12T09:00:00Z"), Scope: calendar.ScopeThis,
		Reminders: []calendar.Reminder{{Minutes: 30}, {Minutes: 1}}})
	f.mustDo(err)
	// An entry with shared reminders of before: its creator's own.
	old, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Old", Timing: timed("2027-04-06T12:00:00Z", "2027-04-06T13:00:00Z", "UTC")})
	f.mustDo(err)
	f.putAttribute("CAL#"+cal.ID, "ENTRY#"+old.ID, "reminders", []int{20})
	_, _, err = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: calendar.EntryKey{CalendarID: cal.ID, EntryID: old.ID}, ExpectedVersion: old.Version, Title: calendar.Set("Old one")})
	f.mustDo(err)

	runReminders(t, time.Now(), f.store)
	runReminders(t, at("2027-04-20T12:00:00Z"), f.store)
	var got []string
	for _, a := range alertsOf(t, f.store, bob) {
		got = append(got, a.DueAt.Format(time.RFC3339))
	}
	want := []string{"2027-04-05T08:55:00Z", "2027-04-06T11:00:00Z", "2027-04-12T08:30:00Z", "2027-04-12T08:59:00Z", "2027-04-19T08:55:00Z"}
	if !slices.Equal(got, want) {
		t.Errorf("bob's alerts fell due at %v, want %v (his own on the series, his default on the other entry)", got, want)
	}
	got = nil
	for _, a := range alertsOf(t, f.store, ada) {
		got = append(got, a.DueAt.Format(time.RFC3339))
	}
	if want := []string{"2027-04-06T11:40:00Z"}; !slices.Equal(got, want) {
		t.Errorf("ada's alerts fell due at %v, want %v (her shared reminders of before)", got, want)
	}
	got = nil
	for _, a := range alertsOf(t, f.store, cat) {
		got = append(got, a.DueAt.Format(time.RFC3339))
	}
	if want := []string{"2027-04-05T08:58:00Z", "2027-04-12T08:58:00Z", "2027-04-19T08:58:00Z"}; !slices.Equal(got, want) {
		t.Errorf("cat's alerts fell due at %v, want %v (her own, as an invited non-member)", got, want)
	}
	f.consistentAt(at("2027-04-20T12:00:00Z"))
}

// putAttribute sets one attribute of an item, as a write of an earlier
// version would have left it.
func (f *fixture) putAttribute(pk, sk, name string, v any) {
	f.t.Helper()
	av, err := attributevalue.Marshal(v)
	f.mustDo(err)
	if ns, ok := v.([]int); ok {
		var nums []string
		for _, n := range ns {
			nums = append(nums, fmt.Sprint(n))
		}
		av = &types.AttributeValueMemberNS{Value: nums}
	}
	_, err = f.db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table()),
		Key:                      map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
		UpdateExpression:         aws.String("SET #n = :v"),
		ExpressionAttributeNames: map[string]string{"#n": name}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": av}})
	f.mustDo(err)
}

// TestRemindersSetAfterArming: reminders set on an entry already armed
// (within the horizon), and default reminders set on its calendar then,
// are armed by their own writes' arm items; a reminder whose time passed
// before it was set does not fire.
func TestRemindersSetAfterArming(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	start := time.Now().UTC().Add(3 * time.Hour).Truncate(time.Minute)
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "Soon",
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}}})
	f.mustDo(err)
	runReminders(t, time.Now(), f.store) // armed: nobody has reminders yet
	_, err = f.store.SetMyReminders(ada, calendar.MyRemindersChange{Key: calendar.EntryKey{CalendarID: cal.ID, EntryID: e.ID},
		Scope: calendar.ScopeAll, Reminders: []calendar.Reminder{{Minutes: 10}, {Minutes: 600}}})
	f.mustDo(err)
	f.mustDo(dynamo.SetReminderDefaults(bob, f.store, cal.ID, []calendar.Reminder{{Minutes: 20}}))
	runReminders(t, time.Now(), f.store)
	runReminders(t, start, f.store)
	for _, c := range []struct {
		who  context.Context
		want []string
	}{{ada, []string{start.Add(-10 * time.Minute).Format(time.RFC3339)}}, {bob, []string{start.Add(-20 * time.Minute).Format(time.RFC3339)}}} {
		var got []string
		for _, a := range alertsOf(t, f.store, c.who) {
			got = append(got, a.DueAt.Format(time.RFC3339))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s's alerts fell due at %v, want %v (the 600-minute one had passed when set)", viewer(t, c.who), got, c.want)
		}
	}
	f.consistentAt(start)
}

// TestOwnRemindersFollowASplit: a member's own reminders on a series stay
// theirs on the series a THIS_AND_FOLLOWING change splits off it, and fire
// there; before the split, the segment and override they set count.
func TestOwnRemindersFollowASplit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	cal := f.calendarOf(ada, "Team")
	f.share(ada, cal, bob, "bob@example.com", calendar.RoleReader)
	series := f.series(ada, cal.ID, "Daily", timed("2027-05-03T09:00:00Z", "2027-05-03T09:30:00Z", "UTC"), "FREQ=DAILY;COUNT=5")
	k := calendar.EntryKey{CalendarID: cal.ID, EntryID: series.ID}
	_, err := f.store.SetMyReminders(bob, calendar.MyRemindersChange{Key: k, Scope: calendar.ScopeAll, Reminders: []calendar.Reminder{{Minutes: 5}}})
	f.mustDo(err)
	_, err = f.store.SetMyReminders(bob, calendar.MyRemindersChange{Key: k, Occurrence: at("2027-05-06T09:00:00Z"), Scope: calendar.ScopeThis,
		Reminders: []calendar.Reminder{{Minutes: 45}}})
	f.mustDo(err)
	occs := f.occurrences(ada, cal.ID, calendar.RangeSpec{FromDate: day("2027-05-03"), ToDate: day("2027-05-08")}, "UTC", false)
	split := f.edit(ada, find(t, occs, "UTC", "05-05 09:00"), calendar.ScopeThisAndFollowing, title("Daily, renamed"))
	if split.SeriesID == series.ID {
		t.Fatalf("the edit did not split the series: %+v", split)
	}
	runReminders(t, time.Now(), f.store)
	runReminders(t, at("2027-05-08T00:00:00Z"), f.store)
	var got []string
	for _, a := range alertsOf(t, f.store, bob) {
		got = append(got, a.DueAt.Format("01-02T15:04"))
	}
	if want := []string{"05-03T08:55", "05-04T08:55", "05-05T08:55", "05-06T08:15", "05-07T08:55"}; !slices.Equal(got, want) {
		t.Errorf("bob's reminders fell due at %v, want %v (his own on both sides of the split)", got, want)
	}
	f.consistentAt(at("2027-05-08T00:00:00Z"))
}
