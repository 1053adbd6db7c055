package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamo"
)

const setMine = `mutation($id: ID!, $s: EditScope, $at: DateTime, $r: [ReminderInput!], $v: Int) {
	setMyReminders(input: {entryId: $id, scope: $s, occurrenceStart: $at, reminders: $r, expectedVersion: $v}) { myReminders { minutes method } myRemindersSet version } }`

const mineOf = `query($id: ID!) { node(id: $id) { ... on Entry { version sequence updatedAt reminders myReminders { minutes method } myRemindersSet myRemindersVersion } } }`

// reminders renders a myReminders list as "60W,10" (W for WEBHOOK).
func reminders(v any) string {
	var parts []string
	list, _ := v.([]any)
	for _, r := range list {
		m := r.(map[string]any)
		s := fmt.Sprint(m["minutes"])
		if m["method"] == "WEBHOOK" {
			s += "W"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

// TestMyReminders: a reader sets their own reminders on a single entry;
// they read back on node, and nobody else's read changes; the entry's
// version, sequence and updatedAt stay as they were (that the write holds
// no change record and raises no revision is pinned by dynamo's
// TestWritePlans); bad input is refused with nothing written; a stale version is
// VERSION_CONFLICT.
func TestMyReminders(t *testing.T) {
	e := newEnv(t)
	w := e.world("myrem")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Review",
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	before := e.must(w.owner, mineOf, map[string]any{"id": id})
	gone := str(e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Gone",
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID}), "createEntry.entry.id")
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": gone})

	d = e.must(w.reader, setMine, map[string]any{"id": id, "r": []any{map[string]any{"minutes": 10}, map[string]any{"minutes": 60, "method": "WEBHOOK"}}})
	if got := reminders(get(d, "setMyReminders.myReminders")); got != "60W,10" || get(d, "setMyReminders.myRemindersSet") != true || num(d, "setMyReminders.version") != 1 {
		t.Fatalf("set: got %v", d)
	}
	mine := e.must(w.reader, mineOf, map[string]any{"id": id})
	if got := reminders(get(mine, "node.myReminders")); got != "60W,10" || get(mine, "node.myRemindersSet") != true || num(mine, "node.myRemindersVersion") != 1 {
		t.Errorf("the reader's own: got %v", mine)
	}
	for who, tok := range map[string]string{"owner": w.owner, "writer": w.writer} {
		got := e.must(tok, mineOf, map[string]any{"id": id})
		if fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("%s after the reader set theirs: got %v, want %v", who, got, before)
		}
	}

	bad := []struct {
		name string
		vars map[string]any
		code string
	}{
		{"negative", map[string]any{"r": []any{map[string]any{"minutes": -1}}}, "BAD_USER_INPUT"},
		{"past four weeks", map[string]any{"r": []any{map[string]any{"minutes": 40321}}}, "BAD_USER_INPUT"},
		{"six", map[string]any{"r": []any{map[string]any{"minutes": 1}, map[string]any{"minutes": 2}, map[string]any{"minutes": 3},
			map[string]any{"minutes": 4}, map[string]any{"minutes": 5}, map[string]any{"minutes": 6}}}, "BAD_USER_INPUT"},
		{"bad method", map[string]any{"r": []any{map[string]any{"minutes": 5, "method": "SMS"}}}, "GRAPHQL_VALIDATION_FAILED"},
		{"THIS with an occurrence on a single entry", map[string]any{"s": "THIS", "at": "2026-12-01T10:00:00Z", "r": []any{}}, "BAD_USER_INPUT"},
		{"THIS_AND_FOLLOWING on a single entry", map[string]any{"s": "THIS_AND_FOLLOWING", "r": []any{}}, "BAD_USER_INPUT"},
		{"stale version", map[string]any{"v": 0, "r": []any{}}, "VERSION_CONFLICT"},
		{"no such entry", map[string]any{"id": gone, "r": []any{}}, "NOT_FOUND"},
	}
	for _, c := range bad {
		vars := map[string]any{"id": id}
		for k, v := range c.vars {
			vars[k] = v
		}
		if r := e.do(w.reader, setMine, vars); r.code() != c.code {
			t.Errorf("%s: got %s, want %s", c.name, r.Raw, c.code)
		}
	}
	if got := e.must(w.reader, mineOf, map[string]any{"id": id}); fmt.Sprint(got) != fmt.Sprint(mine) {
		t.Errorf("after the refused changes: got %v, want %v", got, mine)
	}
	d = e.must(w.reader, setMine, map[string]any{"id": id, "v": 1, "r": nil})
	if got := reminders(get(d, "setMyReminders.myReminders")); got != "" || get(d, "setMyReminders.myRemindersSet") != false || num(d, "setMyReminders.version") != 2 {
		t.Errorf("back to the default: got %v", d)
	}
	if got := e.must(w.owner, mineOf, map[string]any{"id": id}); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("the entry after everything: got %v, want %v", got, before)
	}
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": id})
	e.consistent() // the reader's setting went with the entry
}

// TestMyRemindersWho: members who read and people invited set their own;
// a FREE_BUSY member, a non-member and a reader of a PRIVATE entry they see
// redacted are told there is no such entry; nobody sees another's.
func TestMyRemindersWho(t *testing.T) {
	e := newEnv(t)
	w := e.world("myremwho")
	guest, busy := e.token("guest-myremwho@example.com"), e.token("busy-myremwho@example.com")
	for _, tok := range []string{guest, busy} {
		e.must(tok, provision, nil)
	}
	e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "busy-myremwho@example.com", role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"c": w.calendarID})
	entry := func(vis string) string {
		d := e.must(w.writer, `mutation($c: ID!, $v: Visibility) { createEntry(input: {calendarId: $c, title: "Talk", visibility: $v,
			timing: {timed: {start: "2026-12-03T10:00:00Z", end: "2026-12-03T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID, "v": vis})
		return str(d, "createEntry.entry.id")
	}
	open, private := entry("DEFAULT"), entry("PRIVATE")
	for _, id := range []string{open, private} {
		e.must(w.writer, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest-myremwho@example.com"}]}) { entry { id } } }`,
			map[string]any{"id": id})
	}
	one := []any{map[string]any{"minutes": 5}}
	for _, c := range []struct {
		who, tok, id, code string
	}{
		{"owner", w.owner, open, ""}, {"writer", w.writer, private, ""}, {"reader", w.reader, open, ""}, {"invited non-member", guest, private, ""},
		{"free/busy member", busy, open, "NOT_FOUND"}, {"non-member", w.outsider, open, "NOT_FOUND"},
		{"reader of a private entry", w.reader, private, "NOT_FOUND"}, {"anonymous", "", open, "UNAUTHENTICATED"},
	} {
		r := e.do(c.tok, setMine, map[string]any{"id": c.id, "r": one})
		if r.code() != c.code {
			t.Errorf("%s: got %s, want %q", c.who, r.Raw, c.code)
		}
	}
	for who, tok := range map[string]string{"owner": w.owner, "reader": w.reader} {
		got := e.must(tok, mineOf, map[string]any{"id": open})
		if reminders(get(got, "node.myReminders")) != "5" {
			t.Errorf("%s reads their own: got %v", who, got)
		}
	}
	if got := e.must(w.writer, mineOf, map[string]any{"id": open}); get(got, "node.myRemindersSet") != false {
		t.Errorf("the writer, who set none on it, sees another's: %v", got)
	}
	if got := e.must(w.reader, mineOf, map[string]any{"id": private}); reminders(get(got, "node.myReminders")) != "" || get(got, "node.myRemindersSet") != false {
		t.Errorf("a redacted entry's: got %v, want none", got)
	}
}

// TestMyRemindersOnSeries: ALL, THIS and THIS_AND_FOLLOWING choices on a
// weekly series resolve per occurrence in a view, by original start (a
// moved occurrence keeps its own); an occurrence the series does not have
// is NOT_FOUND.
func TestMyRemindersOnSeries(t *testing.T) {
	e := newEnv(t)
	w := e.world("myremser")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Weekly",
		timing: {timed: {start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z", timeZone: "Europe/Berlin"}}, recurrence: {rule: "FREQ=WEEKLY;COUNT=5"}}) { entry { id } } }`,
		map[string]any{"c": w.calendarID})
	series := str(d, "createEntry.entry.id")
	set := func(vars map[string]any) {
		t.Helper()
		vars["id"] = series
		e.must(w.reader, setMine, vars)
	}
	set(map[string]any{"r": []any{map[string]any{"minutes": 30}}})
	set(map[string]any{"s": "THIS", "at": "2026-12-08T09:00:00Z", "r": []any{map[string]any{"minutes": 5}}})
	set(map[string]any{"s": "THIS_AND_FOLLOWING", "at": "2026-12-22T09:00:00Z", "r": nil})
	// The writer moves the second occurrence: the reader's own follow it.
	view := `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-30", end: "2027-01-05"}}) { entries { id originalStart version myReminders { minutes } myRemindersSet } } } }`
	v := e.must(w.reader, view, map[string]any{"c": w.calendarID})
	occ := get(v, "calendar.entries.entries").([]any)
	e.must(w.writer, `mutation($id: ID!, $v: Int!) { updateEntry(input: {id: $id, expectedVersion: $v, scope: THIS,
		timing: {timed: {start: "2026-12-09T15:00:00Z", end: "2026-12-09T16:00:00Z"}}}) { entry { id } } }`,
		map[string]any{"id": occ[1].(map[string]any)["id"], "v": occ[1].(map[string]any)["version"]})
	v = e.must(w.reader, view, map[string]any{"c": w.calendarID})
	var got []string
	for _, o := range get(v, "calendar.entries.entries").([]any) {
		m := o.(map[string]any)
		got = append(got, fmt.Sprintf("%s:%s:%v", m["originalStart"], reminders(m["myReminders"]), m["myRemindersSet"]))
	}
	want := []string{"2026-12-01T09:00:00Z:30:true", "2026-12-08T09:00:00Z:5:true", "2026-12-15T09:00:00Z:30:true",
		"2026-12-22T09:00:00Z::false", "2026-12-29T09:00:00Z::false"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the reader's view:\ngot  %v\nwant %v", got, want)
	}
	if r := e.do(w.reader, setMine, map[string]any{"id": series, "at": "2026-12-08T10:00:00Z", "r": []any{}}); r.code() != "NOT_FOUND" {
		t.Errorf("an occurrence the series does not have: got %s", r.Raw)
	}
	if r := e.do(w.reader, setMine, map[string]any{"id": series, "s": "THIS", "r": []any{}}); r.code() != "BAD_USER_INPUT" {
		t.Errorf("THIS without an occurrence: got %s", r.Raw)
	}
	e.must(w.writer, `mutation($id: ID!) { deleteEntry(input: {id: $id, expectedVersion: 1}) { deletedEntryId } }`, map[string]any{"id": series})
	e.consistent()
}

// TestMyRemindersLegacy: an entry's shared reminders (createEntry's, or the
// creator's default) are its creator's own until the creator sets theirs,
// and nobody else's.
func TestMyRemindersLegacy(t *testing.T) {
	e := newEnv(t)
	w := e.world("myremleg")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Old style", reminders: [15],
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id myReminders { minutes } myRemindersSet } } }`,
		map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	if reminders(get(d, "createEntry.entry.myReminders")) != "15" || get(d, "createEntry.entry.myRemindersSet") != true {
		t.Errorf("the creator's: got %v", d)
	}
	if got := e.must(w.reader, mineOf, map[string]any{"id": id}); reminders(get(got, "node.myReminders")) != "" {
		t.Errorf("the reader's: got %v, want none", got)
	}
	e.must(w.writer, setMine, map[string]any{"id": id, "r": nil})
	if got := e.must(w.writer, mineOf, map[string]any{"id": id}); reminders(get(got, "node.myReminders")) != "" || get(got, "node.myRemindersSet") != false {
		t.Errorf("the creator back to their default: got %v", got)
	}
}

// TestMyRemindersConcurrently: two devices of one user set reminders on
// one series at once (both land, on top of each other), and a member edits
// the entry meanwhile (the edit succeeds, the version rises once).
func TestMyRemindersConcurrently(t *testing.T) {
	e := newEnv(t)
	w := e.world("myremcc")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Weekly",
		timing: {timed: {start: "2026-12-01T09:00:00Z", end: "2026-12-01T10:00:00Z"}}, recurrence: {rule: "FREQ=WEEKLY;COUNT=4"}}) { entry { id } } }`,
		map[string]any{"c": w.calendarID})
	series := str(d, "createEntry.entry.id")
	var wg sync.WaitGroup
	wg.Go(func() {
		e.must(w.reader, setMine, map[string]any{"id": series, "s": "THIS", "at": "2026-12-08T09:00:00Z", "r": []any{map[string]any{"minutes": 1}}})
	})
	wg.Go(func() {
		e.must(w.reader, setMine, map[string]any{"id": series, "s": "THIS", "at": "2026-12-15T09:00:00Z", "r": []any{map[string]any{"minutes": 2}}})
	})
	wg.Go(func() {
		e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Weekly sync"}) { entry { id } } }`, map[string]any{"id": series})
	})
	wg.Wait()
	got := e.must(w.reader, mineOf, map[string]any{"id": series})
	if num(got, "node.version") != 2 || num(got, "node.myRemindersVersion") != 2 {
		t.Errorf("got entry version %d and setting version %d, want 2 and 2: %v", num(got, "node.version"), num(got, "node.myRemindersVersion"), got)
	}
	v := e.must(w.reader, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-11-30", end: "2026-12-31"}}) { entries { myReminders { minutes } myRemindersSet } } } }`,
		map[string]any{"c": w.calendarID})
	var all []string
	for _, o := range get(v, "calendar.entries.entries").([]any) {
		all = append(all, reminders(o.(map[string]any)["myReminders"])+fmt.Sprint(o.(map[string]any)["myRemindersSet"]))
	}
	if strings.Join(all, "|") != "false|1true|2true|false" {
		t.Errorf("the occurrences' reminders: got %q, want both devices' changes", strings.Join(all, "|"))
	}
}

// TestMyRemindersCostOneWave pins the request plan: the viewer's reminders
// on every entry and occurrence of a week view of 6 calendars are one more
// wave of one BatchGetItem (24 settings: 6 calendars' 3 entries and a
// series), and nothing at all when the view does not ask for them.
func TestMyRemindersCostOneWave(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache()) // each view reads afresh
	tok := e.token("remplan@example.com")
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, "remplan@example.com", 6, nil)
	seedEntries(t, e, "remplan@example.com", cals, 3)
	week := func(fields string) string {
		return `{ viewer { calendars(first: 10) { edges { node { calendar {
			entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title ` + fields + ` } } } } } } } }`
	}
	var base map[string]int
	var baseCalls, baseWaves int
	steadyPlan(t, e, func(e *env) (int, []string) {
		e.rec.Reset()
		e.must(tok, week(""), nil)
		calls := e.rec.Calls()
		base, baseCalls, baseWaves = planOf(calls), len(calls), dynamo.Waves(calls)
		return len(calls), nil
	})
	steadyPlan(t, e, func(e *env) (int, []string) {
		e.rec.Reset()
		d := e.must(tok, week("myReminders { minutes } myRemindersSet myRemindersVersion"), nil)
		calls := e.rec.Calls()
		plan := planOf(calls)
		var problems []string
		if w := dynamo.Waves(calls); w != baseWaves+1 || len(calls) != baseCalls+1 || plan[fmt.Sprintf("wave %d BatchGetItem ", baseWaves+1)] != 1 {
			problems = append(problems, fmt.Sprintf("got %d calls in %d waves, want %d in %d (one BatchGetItem more); plan:\n%s\nwithout the field:\n%s",
				len(calls), w, baseCalls+1, baseWaves+1, describe(plan), describe(base)))
		}
		if n := len(get(d, "viewer.calendars.edges.0.node.calendar.entries.entries").([]any)); n != 4 {
			problems = append(problems, fmt.Sprintf("got %d entries in the first calendar, want 4", n))
		}
		return len(calls), problems
	})
}

// TestMyRemindersStayTheirs: setting one's reminders delivers nothing to
// other members' subscriptions; a later change of the entry delivers to each
// subscriber their own reminders; the same idempotencyKey applies once.
func TestMyRemindersStayTheirs(t *testing.T) {
	e := newEnv(t)
	w := e.world("myremsub")
	d := e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Sync",
		timing: {timed: {start: "2026-12-01T10:00:00Z", end: "2026-12-01T11:00:00Z"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	id := str(d, "createEntry.entry.id")
	const live = `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) { changes { node { ... on Entry { title myReminders { minutes } } } } } }`
	sub, wsub := e.dial(w.reader), e.dial(w.writer)
	sub.subscribe("1", live, map[string]any{"ids": []string{w.calendarID}})
	wsub.subscribe("1", live, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond)
	const keyed = `mutation($id: ID!) { setMyReminders(input: {idempotencyKey: "rem-1", entryId: $id, reminders: [{minutes: 7}]}) { version } }`
	first := e.must(w.reader, keyed, map[string]any{"id": id})
	if again := e.must(w.reader, keyed, map[string]any{"id": id}); fmt.Sprint(again) != fmt.Sprint(first) || num(first, "setMyReminders.version") != 1 {
		t.Errorf("sent twice with one key: got %v then %v, want version 1 both times", first, again)
	}
	wsub.quiet(time.Second) // nothing for the writer to learn
	sub.quiet(100 * time.Millisecond)
	e.must(w.writer, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 1, title: "Sync 2"}) { entry { id } } }`, map[string]any{"id": id})
	if got := fmt.Sprint(sub.delivery("1", 5*time.Second)); !strings.Contains(got, "minutes:7") {
		t.Errorf("the reader's delivery: got %s, want their own 7 minutes", got)
	}
	if got := fmt.Sprint(wsub.delivery("1", 5*time.Second)); strings.Contains(got, "minutes:7") || !strings.Contains(got, "Sync 2") {
		t.Errorf("the writer's delivery: got %s, want the change without the reader's reminders", got)
	}
}
