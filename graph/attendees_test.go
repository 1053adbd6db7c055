package graph_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// party is a calendar with one entry, a writer-owner, a reader and invited
// users who are not members.
type party struct {
	owner, reader, outsider string
	guests                  []string // tokens
	entryID                 string
}

func (e *env) party(tag string, guests int, capacity int, waitlist bool) party {
	e.t.Helper()
	p := party{owner: e.token("owner-" + tag + "@example.com"), reader: e.token("reader-" + tag + "@example.com"),
		outsider: e.token("outsider-" + tag + "@example.com")}
	for _, tok := range []string{p.owner, p.reader, p.outsider} {
		e.must(tok, provision, nil)
	}
	d := e.must(p.owner, `mutation { createCalendar(input: {name: "Events"}) { calendar { id } } }`, nil)
	cal := str(d, "createCalendar.calendar.id")
	e.must(p.owner, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
		map[string]any{"c": cal, "e": "reader-" + tag + "@example.com"})
	d = e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Talk",
		timing: {timed: {start: "2026-11-24T18:00:00Z", end: "2026-11-24T19:00:00Z", timeZone: "UTC"}}}) { entry { id version } } }`,
		map[string]any{"c": cal})
	p.entryID = str(d, "createEntry.entry.id")
	var c any = capacity
	if capacity == 0 {
		c = nil
	}
	e.must(p.owner, `mutation($id: ID!, $v: Int!, $c: Int, $w: Boolean) { updateEntry(input: {id: $id, expectedVersion: $v, capacity: $c, waitlist: $w}) { entry { version } } }`,
		map[string]any{"id": p.entryID, "v": num(d, "createEntry.entry.version"), "c": c, "w": waitlist})
	var add []map[string]any
	for i := range guests {
		email := fmt.Sprintf("guest%d-%s@example.com", i, tag)
		tok := e.token(email)
		e.must(tok, provision, nil)
		p.guests = append(p.guests, tok)
		add = append(add, map[string]any{"email": email})
	}
	add = append(add, map[string]any{"email": "someone@elsewhere.org", "displayName": "Someone"})
	e.must(p.owner, `mutation($id: ID!, $add: [NewAttendeeInput!]) { changeAttendees(input: {entryId: $id, add: $add}) { entry { id } } }`,
		map[string]any{"id": p.entryID, "add": add})
	return p
}

const respond = `mutation($id: ID!, $v: Int!, $r: AttendeeResponse!) {
	respondToEntry(input: {entryId: $id, expectedVersion: $v, response: $r}) { attendee { response waitlisted waitlistTicket version } } }`

const summaryOf = `query($id: ID!) { node(id: $id) { ... on Entry { organizer { email } createdBy { email } capacity
	attendeeSummary { needsAction accepted tentative declined waitlisted headCount total } } } }`

// TestInvitingPeople drives the slice end to end: invitations, answers
// past the capacity, the summary on the entry, the list and its filter,
// the inbox, and who may do what.
func TestInvitingPeople(t *testing.T) {
	e := newEnv(t)
	p := e.party("inv", 3, 1, true)
	for i, want := range []string{"ACCEPTED false <nil>", "ACCEPTED true 1"} {
		d := e.must(p.guests[i], respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"})
		a := get(d, "respondToEntry.attendee").(map[string]any)
		if got := fmt.Sprint(a["response"], " ", a["waitlisted"], " ", a["waitlistTicket"]); got != want {
			t.Errorf("guest %d: got %s, want %s", i, got, want)
		}
	}
	e.must(p.guests[2], respond, map[string]any{"id": p.entryID, "v": 1, "r": "DECLINED"})

	d := e.must(p.reader, summaryOf, map[string]any{"id": p.entryID})
	got := get(d, "node.attendeeSummary")
	want := map[string]any{"needsAction": 1.0, "accepted": 1.0, "tentative": 0.0, "declined": 1.0, "waitlisted": 1.0, "headCount": 1.0, "total": 4.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary: got %v, want %v", got, want)
	}
	if str(d, "node.organizer.email") != "owner-inv@example.com" || str(d, "node.createdBy.email") != "owner-inv@example.com" || num(d, "node.capacity") != 1 {
		t.Errorf("got %s, want the owner as organizer and creator, capacity 1", d)
	}

	d = e.must(p.reader, `query($id: ID!) { node(id: $id) { ... on Entry { attendees(response: [ACCEPTED]) { edges { node { email waitlisted user { email } } } } } } }`,
		map[string]any{"id": p.entryID})
	if n := len(asList(get(d, "node.attendees.edges"))); n != 2 {
		t.Errorf("got %d accepted attendees, want 2 (one seated, one waiting)", n)
	}

	d = e.must(p.guests[1], `{ viewer { invitations { edges { node { response waitlisted entryId entry { title } } } } } }`, nil)
	if got := fmt.Sprint(get(d, "viewer.invitations.edges.0.node")); got != fmt.Sprintf("map[entry:map[title:Talk] entryId:%s response:ACCEPTED waitlisted:true]", p.entryID) {
		t.Errorf("inbox: got %s", got)
	}

	for _, tc := range []struct {
		name, token, query string
		vars               map[string]any
		want               string
	}{
		{"a reader cannot invite", p.reader, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "x@y.io"}]}) { entry { id } } }`,
			map[string]any{"id": p.entryID}, "FORBIDDEN"},
		{"an outsider cannot invite", p.outsider, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "x@y.io"}]}) { entry { id } } }`,
			map[string]any{"id": p.entryID}, "NOT_FOUND"},
		{"not invited", p.outsider, respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"}, "NOT_FOUND"},
		{"stale version", p.guests[0], respond, map[string]any{"id": p.entryID, "v": 1, "r": "TENTATIVE"}, "VERSION_CONFLICT"},
		{"no answer is not an answer", p.guests[0], respond, map[string]any{"id": p.entryID, "v": 2, "r": "NEEDS_ACTION"}, "BAD_USER_INPUT"},
		{"duplicates", p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "x@y.io"}, {email: "X@y.io"}]}) { entry { id } } }`,
			map[string]any{"id": p.entryID}, "BAD_USER_INPUT"},
		{"capacity 0", p.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, capacity: 0}) { entry { id } } }`,
			map[string]any{"id": p.entryID}, "BAD_USER_INPUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := e.do(tc.token, tc.query, tc.vars); r.code() != tc.want {
				t.Errorf("got %s, want %s", r.Raw, tc.want)
			}
		})
	}
}

// TestCapacityReachedWithoutAWaitlist: past the capacity, an entry with no
// waitlist refuses the acceptance with CAPACITY_REACHED.
func TestCapacityReachedWithoutAWaitlist(t *testing.T) {
	e := newEnv(t)
	p := e.party("full", 2, 1, false)
	e.must(p.guests[0], respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"})
	if r := e.do(p.guests[1], respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"}); r.code() != "CAPACITY_REACHED" {
		t.Errorf("got %s, want CAPACITY_REACHED", r.Raw)
	}
}

// TestCachedViewShowsTheNewSummary: an answer raises the calendar's
// revision, so a week view the cache kept shows the new summary at once.
func TestCachedViewShowsTheNewSummary(t *testing.T) {
	e := newEnv(t)
	p := e.party("cache", 1, 0, false)
	week := `{ viewer { calendars { edges { node { calendar { entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) {
		entries { attendeeSummary { accepted needsAction } } } } } } } } }`
	summary := func() string {
		return fmt.Sprint(get(e.must(p.owner, week, nil), "viewer.calendars.edges.0.node.calendar.entries.entries.0.attendeeSummary"))
	}
	summary()
	time.Sleep(1100 * time.Millisecond) // the cache keeps reads of a revision seen for a second (viewcache.go)
	summary()                           // fills the cache
	e.rec.Reset()
	if got := summary(); got != "map[accepted:0 needsAction:2]" {
		t.Fatalf("before the answer: got %s, want map[accepted:0 needsAction:2]", got)
	}
	if q := rangeQueries(planOf(e.rec.Calls())); q != 0 {
		t.Fatalf("the repeated view read the range again (%d Queries): the cache did not answer it", q)
	}
	e.must(p.guests[0], respond, map[string]any{"id": p.entryID, "v": 1, "r": "ACCEPTED"})
	if got := fmt.Sprint(get(e.must(p.owner, week, nil), "viewer.calendars.edges.0.node.calendar.entries.entries.0.attendeeSummary")); got != "map[accepted:1 needsAction:1]" {
		t.Errorf("after the answer: got %s, want map[accepted:1 needsAction:1]", got)
	}
}

// rangeQueries counts a plan's range Queries (LSI1), in any wave.
func rangeQueries(plan map[string]int) int {
	n := 0
	for k, v := range plan {
		if strings.HasSuffix(k, "Query LSI1") {
			n += v
		}
	}
	return n
}

// TestWeekViewWithAttendeeSummaries: a week view of 100 entries that shows
// each one's attendee summary costs exactly the calls and waves of the same
// view without it: the summary comes with the entry from the range Query.
func TestWeekViewWithAttendeeSummaries(t *testing.T) {
	e := newEnv(t, withWaveGate(), withoutViewCache())
	const owner = "summaries@example.com"
	tok := e.token(owner)
	e.must(tok, provision, nil)
	cals := seedCalendars(t, e, owner, 1, []string{"invitee@example.com"})
	s, as := ownerStore(t, e, owner)
	for i := range 100 {
		start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		en, _, err := s.CreateEntry(as, calendar.NewEntry{CalendarID: cals[0], Title: fmt.Sprint("entry ", i),
			Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour)}}})
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := s.ChangeAttendees(as, calendar.AttendeeDelta{Key: en.Key(), Add: []calendar.NewAttendee{{Email: "invitee@example.com"}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := func(plan map[string]int) (n int) {
		for _, v := range plan {
			n += v
		}
		return n
	}
	steadyPlan(t, e, func(e *env) (int, []string) {
		view := func(fields string) (map[string]int, int, []any) {
			e.rec.Reset()
			d := e.must(tok, `{ viewer { calendars { edges { node { calendar {
				entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { title `+fields+` } } } } } } } }`, nil)
			calls := e.rec.Calls()
			return planOf(calls), dynamo.Waves(calls), asList(get(d, "viewer.calendars.edges.0.node.calendar.entries.entries"))
		}
		var problems []string
		plain, plainWaves, _ := view("")
		with, withWaves, entries := view("attendeeSummary { needsAction total headCount }")
		if len(entries) != 100 {
			t.Fatalf("got %d entries, want 100", len(entries))
		}
		invited := 0
		for _, en := range entries {
			invited += num(en, "attendeeSummary.needsAction")
		}
		if invited != 10 {
			t.Errorf("got %d invitations in the summaries, want 10", invited)
		}
		if !reflect.DeepEqual(with, plain) || withWaves != plainWaves {
			problems = append(problems, fmt.Sprintf("with summaries: %d waves\n%s\nwithout: %d waves\n%s", withWaves, describe(with), plainWaves, describe(plain)))
		}
		// The viewer's own answers are one more batch for all 100 entries.
		own, ownWaves, _ := view("viewerAttendee { response }")
		if calls(own) != calls(plain)+1 || ownWaves != plainWaves+1 {
			problems = append(problems, fmt.Sprintf("with viewerAttendee: %d calls in %d waves, want %d in %d\n%s", calls(own), ownWaves, calls(plain)+1, plainWaves+1, describe(own)))
		}
		return calls(plain) + calls(with) + calls(own), problems
	})
}

// TestHandingOverTheOrganizer: a writer hands the organizer over to another
// user by email, for a series as a whole too; an email no user has, or an
// occurrence of a series, is refused.
func TestHandingOverTheOrganizer(t *testing.T) {
	e := newEnv(t)
	p := e.party("org", 0, 0, false)
	const hand = `mutation($id: ID!, $v: Int!, $o: String) { updateEntry(input: {id: $id, expectedVersion: $v, organizerEmail: $o}) { entry { version organizer { email } createdBy { email } } } }`
	if r := e.do(p.owner, hand, map[string]any{"id": p.entryID, "v": 2, "o": "nobody@example.com"}); r.code() != "NOT_FOUND" {
		t.Errorf("an email of no user: got %s, want NOT_FOUND", r.Raw)
	}
	d := e.must(p.owner, hand, map[string]any{"id": p.entryID, "v": 2, "o": "Reader-org@example.com"})
	if str(d, "updateEntry.entry.organizer.email") != "reader-org@example.com" || str(d, "updateEntry.entry.createdBy.email") != "owner-org@example.com" {
		t.Errorf("got %v, want the reader as organizer and the owner as creator", d)
	}
	d = e.must(p.owner, `{ viewer { calendars { edges { node { calendar { id } } } } } }`, nil)
	cal := str(d, "viewer.calendars.edges.0.node.calendar.id")
	d = e.must(p.owner, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Weekly",
		timing: {timed: {start: "2026-11-24T18:00:00Z", end: "2026-11-24T19:00:00Z"}}, recurrence: {rule: "FREQ=WEEKLY"}}) { entry { id } } }`, map[string]any{"c": cal})
	series := str(d, "createEntry.entry.id")
	// Through one of its occurrences (THIS or THIS_AND_FOLLOWING): refused,
	// an occurrence has no organizer of its own.
	d = e.must(p.owner, `query($c: ID!) { node(id: $c) { ... on Calendar { entries(range: {dates: {start: "2026-12-01", end: "2026-12-02"}}) { entries { id version } } } } }`,
		map[string]any{"c": cal})
	occ := get(d, "node.entries.entries.0")
	for _, scope := range []string{"THIS", "THIS_AND_FOLLOWING"} {
		r := e.do(p.owner, `mutation($id: ID!, $v: Int!, $s: EditScope) { updateEntry(input: {id: $id, expectedVersion: $v, scope: $s, organizerEmail: "reader-org@example.com"}) { entry { id } } }`,
			map[string]any{"id": str(occ, "id"), "v": num(occ, "version"), "s": scope})
		if r.code() != "BAD_USER_INPUT" || !strings.Contains(r.Raw, "organizerEmail") {
			t.Errorf("an occurrence, %s: got %s, want BAD_USER_INPUT on organizerEmail", scope, r.Raw)
		}
	}
	if r := e.do(p.owner, hand, map[string]any{"id": series, "v": 1, "o": "nobody@example.com"}); r.code() != "NOT_FOUND" {
		t.Errorf("a series to an email of no user: got %s, want NOT_FOUND", r.Raw)
	}
	// The whole series: handed over as a single entry is, its version rises,
	// and its occurrences show the new organizer.
	d = e.must(p.owner, hand, map[string]any{"id": series, "v": 1, "o": "reader-org@example.com"})
	if str(d, "updateEntry.entry.organizer.email") != "reader-org@example.com" || num(d, "updateEntry.entry.version") != 2 {
		t.Errorf("a series: got %v, want the reader as organizer at version 2", d)
	}
	d = e.must(p.owner, `query($c: ID!) { node(id: $c) { ... on Calendar { entries(range: {dates: {start: "2026-12-08", end: "2026-12-09"}}) { entries { organizer { email } } } } } }`,
		map[string]any{"c": cal})
	if got := str(d, "node.entries.entries.0.organizer.email"); got != "reader-org@example.com" {
		t.Errorf("an occurrence after the handover: organizer %s", got)
	}
}

// TestInvitedNonMemberReadsTheEntry: an invited user who is not a member
// reads the entry through node(id:), its calendar without what only
// readers see, and the list unless the organizer hides it; anyone else,
// and the same user once removed, gets NOT_FOUND.
func TestInvitedNonMemberReadsTheEntry(t *testing.T) {
	e := newEnv(t)
	p := e.party("guest", 1, 0, false)
	const read = `query($id: ID!) { node(id: $id) { ... on Entry { title calendar { name description }
		viewerAttendee { response version } attendees { edges { node { email } } } } } }`
	d := e.must(p.guests[0], read, map[string]any{"id": p.entryID})
	if str(d, "node.title") != "Talk" || str(d, "node.calendar.name") != "Events" || str(d, "node.viewerAttendee.response") != "NEEDS_ACTION" {
		t.Errorf("invited: got %v", d)
	}
	if n := len(asList(get(d, "node.attendees.edges"))); n != 2 {
		t.Errorf("invited: got %d attendees, want 2", n)
	}
	if r := e.do(p.outsider, read, map[string]any{"id": p.entryID}); r.code() != "NOT_FOUND" {
		t.Errorf("not invited: got %s, want NOT_FOUND", r.Raw)
	}
	e.must(p.owner, `mutation($id: ID!) { updateEntry(input: {id: $id, expectedVersion: 2, hideAttendees: true}) { entry { id } } }`, map[string]any{"id": p.entryID})
	d = e.must(p.guests[0], read, map[string]any{"id": p.entryID})
	if got := fmt.Sprint(get(d, "node.attendees.edges")); got != "[map[node:map[email:guest0-guest@example.com]]]" {
		t.Errorf("list hidden: got %s, want only their own", got)
	}
	e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, remove: ["guest0-guest@example.com"]}) { entry { id } } }`, map[string]any{"id": p.entryID})
	if r := e.do(p.guests[0], read, map[string]any{"id": p.entryID}); r.code() != "NOT_FOUND" {
		t.Errorf("removed: got %s, want NOT_FOUND", r.Raw)
	}
}

// TestAttendeeAuthorization: who sees an entry's attendees, who changes
// them and who answers, role by role.
func TestAttendeeAuthorization(t *testing.T) {
	e := newEnv(t)
	p := e.party("authz", 1, 0, false)
	d := e.must(p.owner, `{ viewer { calendars { edges { node { calendar { id } } } } } }`, nil)
	cal := str(d, "viewer.calendars.edges.0.node.calendar.id")
	who := map[string]string{"owner": p.owner, "reader": p.reader, "outsider": p.outsider, "invited": p.guests[0]}
	for _, m := range []struct{ name, role string }{{"writer", "WRITER"}, {"freebusy", "FREE_BUSY"}} {
		email := m.name + "-authz@example.com"
		who[m.name] = e.token(email)
		e.must(who[m.name], provision, nil)
		e.must(p.owner, `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`,
			map[string]any{"c": cal, "e": email, "r": m.role})
	}
	see := `query($id: ID!) { node(id: $id) { ... on Entry { attendeeSummary { total } attendees { edges { node { email } } } } } }`
	invite := `mutation($id: ID!, $e: String!) { changeAttendees(input: {entryId: $id, add: [{email: $e}]}) { entry { id } } }`
	answer := `mutation($id: ID!, $v: Int!) { respondToEntry(input: {entryId: $id, expectedVersion: $v, response: TENTATIVE}) { attendee { version } } }`
	for _, tc := range []struct {
		who                  string
		see, invite, respond string // the error code, "" for allowed
	}{
		{"owner", "", "", "NOT_FOUND"},
		{"writer", "", "", "NOT_FOUND"},
		{"reader", "", "FORBIDDEN", "NOT_FOUND"},
		{"freebusy", "FORBIDDEN", "FORBIDDEN", "NOT_FOUND"},
		{"invited", "", "NOT_FOUND", ""},
		{"outsider", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND"},
	} {
		t.Run(tc.who, func(t *testing.T) {
			tok := who[tc.who]
			if r := e.do(tok, see, map[string]any{"id": p.entryID}); r.code() != tc.see {
				t.Errorf("see: got %s, want %q", r.Raw, tc.see)
			}
			if r := e.do(tok, invite, map[string]any{"id": p.entryID, "e": "new-" + tc.who + "@example.com"}); r.code() != tc.invite {
				t.Errorf("invite: got %s, want %q", r.Raw, tc.invite)
			}
			if r := e.do(tok, answer, map[string]any{"id": p.entryID, "v": 1}); r.code() != tc.respond {
				t.Errorf("respond: got %s, want %q", r.Raw, tc.respond)
			}
		})
	}
}

// TestInvitationsInARange: the inbox narrowed to a range keeps the
// invitations whose entry overlaps it, reading the page's entries in one
// batch whatever their number.
func TestInvitationsInARange(t *testing.T) {
	e := newEnv(t, withWaveGate())
	p := e.party("range", 1, 0, false)
	d := e.must(p.owner, `{ viewer { calendars { edges { node { calendar { id } } } } } }`, nil)
	cal := str(d, "viewer.calendars.edges.0.node.calendar.id")
	for i := range 5 { // five more, a week later
		d = e.must(p.owner, `mutation($c: ID!, $s: DateTime!) { createEntry(input: {calendarId: $c, title: "Later",
			timing: {timed: {start: $s, timeZone: "UTC"}}}) { entry { id } } }`,
			map[string]any{"c": cal, "s": fmt.Sprintf("2026-12-0%dT18:00:00Z", i+1)})
		e.must(p.owner, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "guest0-range@example.com"}]}) { entry { id } } }`,
			map[string]any{"id": str(d, "createEntry.entry.id")})
	}
	inbox := `query($r: TimeRangeInput) { viewer { invitations(range: $r) { edges { node { entry { title } } } } } }`
	for _, tc := range []struct {
		r    any
		want int
	}{
		{nil, 6},
		{map[string]any{"dates": map[string]any{"start": "2026-11-23", "end": "2026-11-30"}}, 1},
		{map[string]any{"instants": map[string]any{"start": "2026-12-01T00:00:00Z", "end": "2026-12-08T00:00:00Z"}}, 5},
	} {
		e.rec.Reset()
		d := e.must(p.guests[0], inbox, map[string]any{"r": tc.r})
		if n := len(asList(get(d, "viewer.invitations.edges"))); n != tc.want {
			t.Errorf("range %v: got %d invitations, want %d", tc.r, n, tc.want)
		}
		if waves := dynamo.Waves(e.rec.Calls()); waves > 4 {
			t.Errorf("range %v: %d waves, want at most 4 (the inbox, then its entries in batches)", tc.r, waves)
		}
	}
}

// TestRespondingTwiceWithAnIdempotencyKey: an answer sent again with its
// idempotency key is not applied again and answers as the first time.
func TestRespondingTwiceWithAnIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	p := e.party("idem", 1, 0, false)
	const again = `mutation($id: ID!) { respondToEntry(input: {idempotencyKey: "rsvp-1", entryId: $id, expectedVersion: 1, response: ACCEPTED}) {
		attendee { response version } } }`
	first := e.must(p.guests[0], again, map[string]any{"id": p.entryID})
	second := e.must(p.guests[0], again, map[string]any{"id": p.entryID})
	if !reflect.DeepEqual(first, second) || num(first, "respondToEntry.attendee.version") != 2 {
		t.Errorf("got %v then %v, want version 2 both times", first, second)
	}
}

// TestAttendeeFilterAsked500Times: a response filter repeating its values
// reads as the values it names.
func TestAttendeeFilterAsked500Times(t *testing.T) {
	e := newEnv(t)
	p := e.party("filter", 1, 0, false)
	many := make([]any, 500)
	for i := range many {
		many[i] = []string{"NEEDS_ACTION", "DECLINED"}[i%2]
	}
	d := e.must(p.owner, `query($id: ID!, $r: [AttendeeResponse!]) { node(id: $id) { ... on Entry { attendees(response: $r) { edges { node { email } } } } } }`,
		map[string]any{"id": p.entryID, "r": many})
	if n := len(asList(get(d, "node.attendees.edges"))); n != 2 {
		t.Errorf("got %d attendees, want the 2 not answered", n)
	}
}
