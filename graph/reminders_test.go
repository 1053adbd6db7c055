package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/remind"
)

// reminderSubscription is the reminders subscription the tests read.
const reminderSubscription = `subscription($r: String) { reminders(resume: $r) { syncToken
  alerts { id state timesFired reminder { minutes method } entry { title } } } }`

// reminderDelivery reads the next message, which must be a `next` of id,
// and returns its data.reminders.
func (c *wsClient) reminderDelivery(id string, within time.Duration) map[string]any {
	c.t.Helper()
	m, err := c.next(within)
	if err != nil {
		c.t.Fatalf("waiting for a reminder delivery: %v", err)
	}
	var r struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if m.Type != "next" || m.ID != id || json.Unmarshal(m.Payload, &r) != nil || len(r.Errors) > 0 {
		c.t.Fatalf("got %s %s (%s), want next %s", m.Type, m.ID, m.Payload, id)
	}
	d, _ := r.Data["reminders"].(map[string]any)
	return d
}

// TestRemindersOverTheSubscription: a member's default reminder fires on
// both of their devices within about a second of its time, with the entry
// it reminds of; a snooze and a dismissal on one device reach the other;
// bad input and another user's reminder change nothing.
func TestRemindersOverTheSubscription(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go remind.New(e.store, 100*time.Millisecond, nil, nil).Run(ctx)
	ada, eve := e.token("ada@example.com"), e.token("eve@example.com")
	cal := str(e.must(ada, `mutation { createCalendar(input: {name: "Home"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(ada, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: 0, defaultReminders: [{minutes: 0}]}) { membership { id } } }`,
		map[string]any{"c": cal})
	before := str(e.must(ada, `{ viewer { calendarListChanges { syncToken } } }`, nil), "viewer.calendarListChanges.syncToken")
	phone, laptop := e.dial(ada), e.dial(ada)
	phone.subscribe("r", reminderSubscription, nil)
	laptop.subscribe("r", reminderSubscription, nil)
	// The subscriptions are registered before the reminder fires, and its
	// time is still ahead when createEntry commits, even on a loaded -race
	// machine (CI saw nothing come with 200 ms and 2 s).
	time.Sleep(time.Second)
	start := time.Now().Add(5 * time.Second).UTC().Truncate(time.Second)
	e.must(ada, `mutation($c: ID!, $s: DateTime!) { createEntry(input: {calendarId: $c, title: "Call mum",
		timing: {timed: {start: $s, timeZone: "UTC"}}}) { entry { id } } }`, map[string]any{"c": cal, "s": start.Format(time.RFC3339)})
	var id string
	for _, c := range []*wsClient{phone, laptop} {
		d := c.reminderDelivery("r", 20*time.Second)
		if late := time.Since(start); late < 0 {
			t.Fatalf("delivered %s before its time", -late)
		}
		if str(d, "alerts.0.state") != "FIRED" || str(d, "alerts.0.entry.title") != "Call mum" || str(d, "alerts.0.reminder.method") != "IN_APP" {
			t.Fatalf("fired: %v", d)
		}
		id = str(d, "alerts.0.id")
	}
	t.Logf("fired %s after its time", time.Since(start).Round(time.Millisecond))

	for _, c := range []struct {
		name, token, query string
		vars               map[string]any
		code               string
	}{
		{"snooze into the past", ada, `mutation($id: ID!, $u: DateTime) { snoozeReminder(input: {id: $id, until: $u}) { alert { state } } }`,
			map[string]any{"id": id, "u": time.Now().Add(-time.Minute).Format(time.RFC3339)}, "BAD_USER_INPUT"},
		{"snooze for too long", ada, `mutation($id: ID!) { snoozeReminder(input: {id: $id, minutes: 20000}) { alert { state } } }`,
			map[string]any{"id": id}, "BAD_USER_INPUT"},
		{"a malformed ID", ada, `mutation { dismissReminder(input: {id: "nope"}) { alert { state } } }`, nil, "BAD_USER_INPUT"},
		{"someone else's", eve, `mutation($id: ID!) { dismissReminder(input: {id: $id}) { alert { state } } }`,
			map[string]any{"id": id}, "NOT_FOUND"},
		{"someone else's snooze", eve, `mutation($id: ID!) { snoozeReminder(input: {id: $id, minutes: 5}) { alert { state } } }`,
			map[string]any{"id": id}, "NOT_FOUND"},
	} {
		if r := e.do(c.token, c.query, c.vars); r.code() != c.code {
			t.Errorf("%s: %v, want %s", c.name, r, c.code)
		}
	}
	if got := e.must(eve, `{ viewer { reminderAlerts(includeDismissed: true) { edges { node { id } } } } }`, nil); len(get(got, "viewer.reminderAlerts.edges").([]any)) != 0 {
		t.Errorf("eve lists ada's reminders: %v", got)
	}
	phone.quiet(300 * time.Millisecond)

	e.must(ada, `mutation($id: ID!) { snoozeReminder(input: {id: $id, minutes: 10}) { alert { state snoozedUntil } } }`, map[string]any{"id": id})
	for _, c := range []*wsClient{phone, laptop} {
		if d := c.reminderDelivery("r", 2*time.Second); str(d, "alerts.0.state") != "SNOOZED" {
			t.Fatalf("snoozed: %v", d)
		}
	}
	sent := time.Now()
	d := e.must(ada, `mutation($id: ID!) { dismissReminder(input: {id: $id}) { alert { state version } } }`, map[string]any{"id": id})
	if str(d, "dismissReminder.alert.state") != "DISMISSED" {
		t.Fatalf("dismissed: %v", d)
	}
	for _, c := range []*wsClient{phone, laptop} {
		if d := c.reminderDelivery("r", time.Second); str(d, "alerts.0.state") != "DISMISSED" {
			t.Fatalf("dismissed: %v", d)
		}
	}
	t.Logf("the dismissal reached both devices in %s", time.Since(sent).Round(time.Millisecond))
	list := e.must(ada, `{ viewer { open: reminderAlerts { edges { node { id } } } all: reminderAlerts(includeDismissed: true) { edges { node { id state timesFired } } } } }`, nil)
	if len(get(list, "viewer.open.edges").([]any)) != 0 || str(list, "viewer.all.edges.0.node.state") != "DISMISSED" {
		t.Errorf("listed: %v", list)
	}

	// Resuming: a token of another user's is refused before anything is
	// delivered; one's own brings back what changed since.
	evesToken := str(e.must(eve, `{ viewer { calendarListChanges { syncToken } } }`, nil), "viewer.calendarListChanges.syncToken")
	other := e.dial(ada)
	for _, resume := range []string{evesToken, "garbage"} {
		other.subscribe("x", reminderSubscription, map[string]any{"r": resume})
		m, err := other.next(5 * time.Second)
		var r struct {
			Errors []struct{ Extensions map[string]any } `json:"errors"`
		}
		if err != nil || json.Unmarshal(m.Payload, &r) != nil || len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Fatalf("resuming from %.20s: %v %s, want BAD_USER_INPUT", resume, err, m.Payload)
		}
		if m, err := other.next(5 * time.Second); err != nil || m.Type != "complete" {
			t.Fatalf("after the error: %v %v, want complete", m, err)
		}
	}
	// Resumed from a token of before it fired: the reminder as it is now,
	// once.
	resumed := e.dial(ada)
	resumed.subscribe("z", reminderSubscription, map[string]any{"r": before})
	d = resumed.reminderDelivery("z", 5*time.Second)
	if alerts := get(d, "alerts").([]any); len(alerts) != 1 || str(d, "alerts.0.id") != id || str(d, "alerts.0.state") != "DISMISSED" || num(d, "alerts.0.timesFired") != 1 {
		t.Fatalf("resumed: %v, want the one reminder, dismissed", d)
	}
	resumed.quiet(300 * time.Millisecond)
}

// TestMyRemindersFallBackToTheCalendarDefault: a member's own reminders on
// an entry they set none on are their default reminders on its calendar,
// nobody else's; setting their own replaces them for that entry alone.
func TestMyRemindersFallBackToTheCalendarDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ada, bob := e.token("ada@example.com"), e.token("bob@example.com")
	e.must(bob, `{ viewer { user { id } } }`, nil)
	cal := str(e.must(ada, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(ada, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "bob@example.com", role: READER}) { membership { id } } }`, map[string]any{"c": cal})
	e.must(bob, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: 0, defaultReminders: [{minutes: 15}, {minutes: 60, method: WEBHOOK}]}) { membership { id } } }`,
		map[string]any{"c": cal})
	var ids []string
	for _, title := range []string{"one", "two"} {
		ids = append(ids, str(e.must(ada, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
			timing: {timed: {start: "2027-01-04T09:00:00Z", timeZone: "UTC"}}, reminders: []}) { entry { id } } }`,
			map[string]any{"c": cal, "t": title}), "createEntry.entry.id"))
	}
	e.must(bob, `mutation($id: ID!) { setMyReminders(input: {entryId: $id, reminders: [{minutes: 5}]}) { version } }`, map[string]any{"id": ids[1]})
	view := `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2027-01-04", end: "2027-01-05"}}) {
		entries { title myRemindersSet myReminders { minutes method } } } } }`
	got := map[string]string{}
	for who, tok := range map[string]string{"ada": ada, "bob": bob} {
		d := e.must(tok, view, map[string]any{"c": cal})
		for _, en := range get(d, "calendar.entries.entries").([]any) {
			got[who+" "+str(en, "title")] = fmt.Sprint(get(en, "myRemindersSet"), get(en, "myReminders"))
		}
	}
	want := map[string]string{
		"ada one": "false []", "ada two": "false []",
		"bob one": "false [map[method:WEBHOOK minutes:60] map[method:IN_APP minutes:15]]",
		"bob two": "true [map[method:IN_APP minutes:5]]",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: myRemindersSet, myReminders = %s, want %s", k, got[k], w)
		}
	}
}
