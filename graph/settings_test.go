package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

const settingsFields = `settings { color displayColor textColor name displayName hidden selected sortKey
	defaultReminders { minutes method } version }`

const updateSettings = `mutation($c: ID!, $v: Int!, $k: String) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: $v,
	color: "#FFEB3B", name: "Mine", hidden: true, sortKey: "a0", defaultReminders: [{minutes: 10}], idempotencyKey: $k}) {
	membership { role version ` + settingsFields + ` } } }`

const settingsSubscription = `subscription { calendarChanges { kind calendarId syncToken
	changes { type id deleted node { ... on Membership { role ` + settingsFields + ` } ... on TimedEntry { title } ... on Task { title } } } } }`

// TestCalendarSettingsStayTheMembers: a reader recolors, renames, hides and
// reorders a shared calendar. The owner's views (their cached members and
// entries, read again with no Query), their Calendar.changes sync and their
// subscription see nothing, and the reader's settings show nowhere to them
// (members, node(id:)); the reader's calendarListChanges and both of their
// devices' subscriptions get the settings, within a second; their list
// leaves the calendar out until asked to include hidden ones.
func TestCalendarSettingsStayTheMembers(t *testing.T) {
	e := newEnv(t, withWaveGate())
	w := e.world("mine")
	cal := map[string]any{"c": w.calendarID}
	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "standup",
		timing: {timed: {start: "2026-11-25T09:00:00Z", end: "2026-11-25T09:15:00Z", timeZone: "UTC"}}}) { entry { id } } }`, cal)

	ownerSub := e.dial(w.owner)
	ownerSub.subscribe("o", settingsSubscription, nil)
	deviceA, deviceB := e.dial(w.reader), e.dial(w.reader)
	deviceA.subscribe("a", settingsSubscription, nil)
	deviceB.subscribe("b", settingsSubscription, nil)
	time.Sleep(200 * time.Millisecond) // the subscriptions are registered before the change

	const ownerView = `query($c: ID!) { calendar(id: $c) { name color
		entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title } }
		members(first: 10) { edges { node { id role user { email } ` + settingsFields + ` } } } } }`
	const ownerSync = `query($t: String, $c: ID!) { calendar(id: $c) { changes(syncToken: $t) { changes { type id } syncToken } } }`
	ownerToken := str(e.must(w.owner, ownerSync, cal), "calendar.changes.syncToken")
	// A token repeats the changes of the last moments before it (the overlap
	// window); a sync from it knows them, and the one after starts clean.
	ownerToken = str(e.must(w.owner, ownerSync, map[string]any{"c": w.calendarID, "t": ownerToken}), "calendar.changes.syncToken")
	readerList := str(e.must(w.reader, `{ viewer { calendarListChanges { syncToken } } }`, nil), "viewer.calendarListChanges.syncToken")
	// The view cache keeps what a calendar held once it has seen it for a
	// second: view until a view is answered from it (hits, no miss).
	cachedView := func() (string, bool) {
		was := e.store.ViewCacheStats()
		v := fmt.Sprint(e.must(w.owner, ownerView, cal))
		now := e.store.ViewCacheStats()
		return v, now.Misses == was.Misses && now.Hits > was.Hits
	}
	var before string
	for try := 0; ; try++ {
		var cached bool
		if before, cached = cachedView(); cached {
			break
		}
		if try == 5 {
			t.Fatalf("the owner's view never came from the cache")
		}
		time.Sleep(600 * time.Millisecond)
	}

	start := time.Now()
	d := e.must(w.reader, updateSettings, map[string]any{"c": w.calendarID, "v": 0})
	if got := fmt.Sprint(get(d, "updateCalendarSettings.membership.settings")); got != "map[color:#FFEB3B defaultReminders:[map[method:IN_APP minutes:10]] displayColor:#FFEB3B displayName:Mine hidden:true name:Mine selected:true sortKey:a0 textColor:#000000 version:1]" {
		t.Fatalf("payload: %s", got)
	}
	if v := num(d, "updateCalendarSettings.membership.version"); v != 1 {
		t.Errorf("the role's version: got %d, want 1 (settings have their own)", v)
	}
	for _, device := range []struct {
		c  *wsClient
		id string
	}{{deviceA, "a"}, {deviceB, "b"}} {
		got := device.c.delivery(device.id, 2*time.Second)
		if str(got, "kind") != "SETTINGS" || str(got, "calendarId") != w.calendarID || get(got, "syncToken") != nil ||
			str(get(got, "changes").([]any)[0], "node.settings.displayName") != "Mine" {
			t.Errorf("device %s: got %v, want SETTINGS with the new settings", device.id, got)
		}
	}
	if late := time.Since(start); late > time.Second+500*time.Millisecond { // the mutation's own round trip included
		t.Errorf("the devices heard of it after %v", late)
	}

	after, cached := cachedView()
	if after != before {
		t.Errorf("the owner's view changed:\n%s\n%s", before, after)
	}
	if !cached {
		t.Errorf("the owner's view was read again, not from the cache: the calendar's revision moved")
	}
	if strings.Contains(after, "Mine") || strings.Contains(after, "FFEB3B") {
		t.Errorf("the owner sees the reader's settings: %s", after)
	}
	d = e.must(w.owner, ownerSync, map[string]any{"c": w.calendarID, "t": ownerToken})
	if got := get(d, "calendar.changes.changes").([]any); len(got) != 0 {
		t.Errorf("the owner's sync found changes %v, want none", got)
	}
	d = e.must(w.owner, `query($id: ID!) { node(id: $id) { ... on Membership { role settings { name } } } }`, map[string]any{"id": w.readerMembershipID})
	if get(d, "node.settings") != nil || str(d, "node.role") != "READER" {
		t.Errorf("the owner reads the reader's membership as %v, want its role and no settings", d)
	}
	ownerSub.quiet(700 * time.Millisecond)
	// A role change is the calendar's: the owner hears of it, without the settings.
	e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, expectedVersion: $v, role: WRITER}) { membership { role } } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	if got := ownerSub.delivery("o", 2*time.Second); str(got, "kind") != "CHANGES" || str(get(got, "changes").([]any)[0], "node.role") != "WRITER" ||
		get(get(got, "changes").([]any)[0], "node.settings") != nil {
		t.Errorf("the owner's delivery of the role change: %v, want WRITER without settings", got)
	}
	// The reader's device hears of it as the calendar's change (with their
	// settings, as they are theirs), and gets no SETTINGS: those did not move.
	if got := deviceA.delivery("a", 2*time.Second); str(got, "kind") != "CHANGES" ||
		str(get(got, "changes").([]any)[0], "node.settings.displayName") != "Mine" {
		t.Errorf("the reader's delivery of the role change: %v, want CHANGES with their settings", got)
	}
	deviceA.quiet(700 * time.Millisecond)

	d = e.must(w.reader, `query($t: String) { viewer { calendarListChanges(syncToken: $t) { changes { calendarId membership { `+settingsFields+` } } } } }`, map[string]any{"t": readerList})
	if got := fmt.Sprint(get(d, "viewer.calendarListChanges.changes")); !strings.Contains(got, "displayName:Mine") || !strings.Contains(got, w.calendarID) {
		t.Errorf("the reader's list changes: %s", got)
	}
	d = e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Membership { settings { name } } } }`, map[string]any{"id": w.readerMembershipID})
	if str(d, "node.settings.name") != "Mine" {
		t.Errorf("the reader reads their own membership as %v", d)
	}
	listed := func(includeHidden bool) string {
		d := e.must(w.reader, `query($h: Boolean) { viewer { calendars(includeHidden: $h) { edges { node { calendar { id } settings { hidden } } } } } }`, map[string]any{"h": includeHidden})
		return fmt.Sprint(get(d, "viewer.calendars.edges"))
	}
	if got := listed(false); strings.Contains(got, w.calendarID) {
		t.Errorf("the hidden calendar is listed: %s", got)
	}
	if got := listed(true); !strings.Contains(got, w.calendarID) || !strings.Contains(got, "hidden:true") {
		t.Errorf("with includeHidden: %s", got)
	}
}

// TestCalendarSettingsInput: bad input is BAD_USER_INPUT naming the field,
// with nothing written; a non-member is NOT_FOUND; a FREE_BUSY member sets
// their own; a stale version conflicts; a replay with the same key writes
// once; null clears an override; concurrent updates from one version leave
// one winner and report the others' conflicts, beside a role change that
// keeps both; the agenda without calendarIds reads only selected calendars.
func TestCalendarSettingsInput(t *testing.T) {
	e := newEnv(t)
	w := e.world("input")
	set := func(tok, input string) response {
		return e.do(tok, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, `+input+`}) {
			membership { role `+settingsFields+` } } }`, map[string]any{"c": w.calendarID})
	}
	version := func() int {
		d := e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Membership { settings { version } } } }`, map[string]any{"id": w.readerMembershipID})
		return num(d, "node.settings.version")
	}
	for _, bad := range []struct{ input, field string }{
		{`expectedVersion: 0, color: "#abc"`, "color"},
		{`expectedVersion: 0, color: "red"`, "color"},
		{`expectedVersion: 0, name: ""`, "name"},
		{`expectedVersion: 0, name: "` + strings.Repeat("n", 201) + `"`, "name"},
		{`expectedVersion: 0, sortKey: "a b"`, "sortKey"},
		{`expectedVersion: 0, sortKey: "` + strings.Repeat("a", 129) + `"`, "sortKey"},
		{`expectedVersion: 0, defaultReminders: [{minutes: -1}]`, "defaultReminders"},
		{`expectedVersion: 0, defaultReminders: [{minutes: 40321}]`, "defaultReminders"},
		{`expectedVersion: 0, defaultReminders: [{minutes: 1}, {minutes: 2}, {minutes: 3}, {minutes: 4}, {minutes: 5}, {minutes: 6}]`, "defaultReminders"},
	} {
		if r := set(w.reader, bad.input); r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != bad.field {
			t.Errorf("%s: %s, want BAD_USER_INPUT on %s", bad.input, r.Raw, bad.field)
		}
	}
	if r := e.do(w.reader, `mutation { updateCalendarSettings(input: {calendarId: "nonsense", expectedVersion: 0, hidden: true}) { membership { id } } }`, nil); r.code() != "BAD_USER_INPUT" {
		t.Errorf("a bad calendar ID: %s", r.Raw)
	}
	if v := version(); v != 0 {
		t.Fatalf("after refused input the settings are at version %d, want 0", v)
	}
	if r := set(w.outsider, `expectedVersion: 0, hidden: true`); r.code() != "NOT_FOUND" {
		t.Errorf("a non-member: %s, want NOT_FOUND", r.Raw)
	}
	e.must(w.owner, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: FREE_BUSY}) { membership { id } } }`,
		map[string]any{"c": w.calendarID, "e": "newcomer-input@example.com"})
	d := e.must(w.outsider, `mutation { createCalendar(input: {name: "Own"}) { membership { settings { version selected displayName } } } }`, nil)
	if got := fmt.Sprint(get(d, "createCalendar.membership.settings")); got != "map[displayName:Own selected:true version:0]" {
		t.Errorf("a new calendar's membership: settings %s", got)
	}
	if r := set(w.newcomer, `expectedVersion: 0, color: "#000000"`); r.code() != "" || str(r.Data, "updateCalendarSettings.membership.settings.textColor") != "#FFFFFF" {
		t.Errorf("a FREE_BUSY member: %s", r.Raw)
	}

	replay := map[string]any{"c": w.calendarID, "v": 0, "k": "settings-1"}
	first := e.must(w.reader, updateSettings, replay)
	if again := e.must(w.reader, updateSettings, replay); fmt.Sprint(again) != fmt.Sprint(first) || version() != 1 {
		t.Errorf("a replay: got %v (version %d), want %v at version 1", again, version(), first)
	}
	if r := set(w.reader, `expectedVersion: 0, hidden: false`); r.code() != "VERSION_CONFLICT" {
		t.Errorf("a stale version: %s, want VERSION_CONFLICT", r.Raw)
	}
	r := set(w.reader, `expectedVersion: 1, color: null, name: null, sortKey: null, hidden: false, selected: false, defaultReminders: null`)
	if got := fmt.Sprint(get(r.Data, "updateCalendarSettings.membership.settings")); r.code() != "" ||
		got != "map[color:<nil> defaultReminders:[] displayColor:#3B82F6 displayName:Team hidden:false name:<nil> selected:false sortKey:<nil> textColor:#000000 version:2]" {
		t.Errorf("clearing: %s %s", got, r.Raw)
	}

	e.must(w.writer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "standup",
		timing: {timed: {start: "2026-11-25T09:00:00Z", end: "2026-11-25T09:15:00Z", timeZone: "UTC"}}}) { entry { id } } }`, map[string]any{"c": w.calendarID})
	agenda := func(ids []string) string {
		d := e.must(w.reader, `query($ids: [ID!]) { viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, calendarIds: $ids) { entries { title } } } }`,
			map[string]any{"ids": ids})
		return fmt.Sprint(get(d, "viewer.agenda.entries"))
	}
	if got := agenda(nil); strings.Contains(got, "standup") {
		t.Errorf("the agenda reads an unselected calendar: %s", got)
	}
	if got := agenda([]string{w.calendarID}); !strings.Contains(got, "standup") {
		t.Errorf("the agenda of the calendar named: %s", got)
	}
	set(w.reader, `expectedVersion: 2, selected: true`)
	if got := agenda(nil); !strings.Contains(got, "standup") {
		t.Errorf("the agenda of selected calendars: %s", got)
	}

	// Eight devices write from version 3 while the owner makes the reader a writer.
	var wg sync.WaitGroup
	codes := make([]string, 8)
	for i := range codes {
		wg.Go(func() { codes[i] = set(w.reader, fmt.Sprintf(`expectedVersion: 3, sortKey: "k%d"`, i)).code() })
	}
	var roleErr string
	wg.Go(func() {
		roleErr = e.do(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, expectedVersion: $v, role: WRITER}) { membership { role } } }`,
			map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion}).code()
	})
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case "":
			won++
		case "VERSION_CONFLICT":
		default:
			t.Errorf("a concurrent update: %s", c)
		}
	}
	d = e.must(w.reader, `query($id: ID!) { node(id: $id) { ... on Membership { role settings { version sortKey selected } } } }`, map[string]any{"id": w.readerMembershipID})
	if won != 1 || roleErr != "" || str(d, "node.role") != "WRITER" || num(d, "node.settings.version") != 4 ||
		!strings.HasPrefix(str(d, "node.settings.sortKey"), "k") || get(d, "node.settings.selected") != true {
		t.Errorf("concurrent: %d won (%v), role change %q, membership %v; want one, no error, WRITER at settings version 4", won, codes, roleErr, d)
	}
}
