package graph_test

import (
	"testing"
)

// world is a calendar with an owner, a writer and a reader, and an outsider who
// is signed up but not a member.
type world struct {
	owner, writer, reader, outsider, newcomer string // tokens
	calendarID                                string
	readerMembershipID                        string
	readerMembershipVersion                   int
}

const provision = `{ viewer { user { id } } }`

func (e *env) world(tag string) world {
	e.t.Helper()
	w := world{
		owner: e.token("owner-" + tag + "@example.com"), writer: e.token("writer-" + tag + "@example.com"),
		reader: e.token("reader-" + tag + "@example.com"), outsider: e.token("outsider-" + tag + "@example.com"),
		newcomer: e.token("newcomer-" + tag + "@example.com"),
	}
	for _, tok := range []string{w.owner, w.writer, w.reader, w.outsider, w.newcomer} {
		e.must(tok, provision, nil)
	}
	d := e.must(w.owner, `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil)
	w.calendarID = str(d, "createCalendar.calendar.id")
	for _, m := range []struct{ who, role string }{{"writer", "WRITER"}, {"reader", "READER"}} {
		d := e.must(w.owner, `mutation($c: ID!, $e: String!, $r: Role!) {
			addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id version } } }`,
			map[string]any{"c": w.calendarID, "e": m.who + "-" + tag + "@example.com", "r": m.role})
		if m.who == "reader" {
			w.readerMembershipID = str(d, "addMember.membership.id")
			w.readerMembershipVersion = num(d, "addMember.membership.version")
		}
	}
	return w
}

// actor picks a token out of a world.
type actor struct {
	name  string
	token func(world) string
}

var actors = []actor{
	{"owner", func(w world) string { return w.owner }},
	{"writer", func(w world) string { return w.writer }},
	{"reader", func(w world) string { return w.reader }},
	{"non-member", func(w world) string { return w.outsider }},
	{"anonymous", func(world) string { return "" }},
}

// want is the expected outcome per actor, in the order of actors: "" = success.
type want [5]string

const (
	ok     = ""
	unauth = "UNAUTHENTICATED"
	forbid = "FORBIDDEN"
	absent = "NOT_FOUND"
)

func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel() // seconds of requests on a table of its own, beside the tests that wait
	ops := []struct {
		name  string
		query string
		vars  func(world) map[string]any
		want  want
	}{
		{"read calendar", `query($id: ID!) { calendar(id: $id) { id name viewerRole } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"node(calendar)", `query($id: ID!) { node(id: $id) { id ... on Calendar { name } } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"list members", `query($id: ID!) { calendar(id: $id) { members { edges { node { role user { email } } } } } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{ok, ok, ok, absent, unauth}},
		{"node(membership)", `query($id: ID!) { node(id: $id) { ... on Membership { role user { email } } } }`,
			func(w world) map[string]any { return map[string]any{"id": w.readerMembershipID} },
			want{ok, ok, ok, absent, unauth}},
		{"viewer calendars", `{ viewer { calendars { edges { node { role calendar { name } } } } } }`,
			func(world) map[string]any { return nil },
			want{ok, ok, ok, ok, unauth}},
		{"update profile", `mutation { updateProfile(input: {expectedVersion: 1, name: "New Name"}) { user { name } } }`,
			func(world) map[string]any { return nil },
			want{ok, ok, ok, ok, unauth}},
		{"create calendar", `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } membership { role } } }`,
			func(world) map[string]any { return nil },
			want{ok, ok, ok, ok, unauth}},
		{"update calendar", `mutation($id: ID!) { updateCalendar(input: {id: $id, expectedVersion: 1, name: "Renamed"}) { calendar { name version } } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{ok, forbid, forbid, absent, unauth}},
		{"delete calendar", `mutation($id: ID!) { deleteCalendar(input: {id: $id, expectedVersion: 1}) { deletedCalendarId } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{ok, forbid, forbid, absent, unauth}},
		{"add member", `mutation($id: ID!, $e: String!) { addMember(input: {calendarId: $id, email: $e, role: READER}) { membership { role } } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID, "e": emailOf(w.newcomer)} },
			want{ok, forbid, forbid, absent, unauth}},
		{"change member role", `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, role: WRITER, expectedVersion: $v}) { membership { role } } }`,
			func(w world) map[string]any {
				return map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion}
			},
			want{ok, forbid, forbid, absent, unauth}},
		{"remove member", `mutation($m: ID!, $v: Int!) { removeMember(input: {membershipId: $m, expectedVersion: $v}) { removedMembershipId } }`,
			func(w world) map[string]any {
				return map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion}
			},
			want{ok, forbid, forbid, absent, unauth}},
		{"leave calendar", `mutation($id: ID!) { leaveCalendar(input: {calendarId: $id, expectedVersion: 1}) { removedMembershipId } }`,
			func(w world) map[string]any { return map[string]any{"id": w.calendarID} },
			want{"LAST_OWNER", ok, ok, absent, unauth}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			e := newEnv(t)
			for i, a := range actors {
				t.Run(a.name, func(t *testing.T) {
					w := e.world(a.name)
					r := e.do(a.token(w), op.query, op.vars(w))
					if got := r.code(); got != op.want[i] {
						t.Fatalf("got code %q, want %q\n%s", got, op.want[i], r.Raw)
					}
					if op.want[i] == ok && r.Data == nil {
						t.Fatalf("got no data: %s", r.Raw)
					}
				})
			}
		})
	}
}
