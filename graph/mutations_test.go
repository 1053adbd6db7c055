package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph/model"
)

func TestVersionConflicts(t *testing.T) {
	e := newEnv(t)
	w := e.world("v")
	e.must(w.owner, `mutation($id: ID!) { updateCalendar(input: {id: $id, expectedVersion: 1, color: "#000000"}) { calendar { version } } }`,
		map[string]any{"id": w.calendarID})
	tests := []struct {
		name, query string
		vars        map[string]any
	}{
		{"update calendar", `mutation($id: ID!) { updateCalendar(input: {id: $id, expectedVersion: 1, name: "Stale"}) { calendar { name } } }`,
			map[string]any{"id": w.calendarID}},
		{"delete calendar", `mutation($id: ID!) { deleteCalendar(input: {id: $id, expectedVersion: 1}) { deletedCalendarId } }`,
			map[string]any{"id": w.calendarID}},
		{"change role", `mutation($m: ID!) { changeMemberRole(input: {membershipId: $m, role: OWNER, expectedVersion: 9}) { membership { role } } }`,
			map[string]any{"m": w.readerMembershipID}},
		{"remove member", `mutation($m: ID!) { removeMember(input: {membershipId: $m, expectedVersion: 9}) { removedMembershipId } }`,
			map[string]any{"m": w.readerMembershipID}},
		{"update profile", `mutation { updateProfile(input: {expectedVersion: 7, name: "X"}) { user { name } } }`, nil},
		{"leave calendar", `mutation($id: ID!) { leaveCalendar(input: {calendarId: $id, expectedVersion: 4}) { removedMembershipId } }`,
			map[string]any{"id": w.calendarID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(w.owner, tt.query, tt.vars)
			if r.code() != "VERSION_CONFLICT" {
				t.Fatalf("got %s, want VERSION_CONFLICT", r.Raw)
			}
		})
	}
	d := e.must(w.owner, `query($id: ID!) { calendar(id: $id) { name version } }`, map[string]any{"id": w.calendarID})
	if str(d, "calendar.name") != "Team" || num(d, "calendar.version") != 2 {
		t.Errorf("got %v after conflicting writes, want Team at version 2 unchanged", d)
	}
}

func TestConcurrentUpdatesOfOneCalendar(t *testing.T) {
	e := newEnv(t)
	w := e.world("c")
	const n = 10
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			codes[i] = e.do(w.owner, `mutation($id: ID!, $n: String!) { updateCalendar(input: {id: $id, expectedVersion: 1, name: $n}) { calendar { version } } }`,
				map[string]any{"id": w.calendarID, "n": fmt.Sprint("name ", i)}).code()
		})
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case ok:
			won++
		case "VERSION_CONFLICT":
		default:
			t.Errorf("got code %q, want success or VERSION_CONFLICT", c)
		}
	}
	if won != 1 {
		t.Fatalf("got %d successful updates with the same version, want exactly 1 (codes %v)", won, codes)
	}
}

func TestLastOwnerProtection(t *testing.T) {
	e := newEnv(t)
	w := e.world("lo")
	d := e.must(w.owner, `query($id: ID!) { calendar(id: $id) { members { edges { node { id role version } } } } }`,
		map[string]any{"id": w.calendarID})
	var ownerMembership string
	for _, edge := range get(d, "calendar.members.edges").([]any) {
		if str(edge, "node.role") == "OWNER" {
			ownerMembership = str(edge, "node.id")
		}
	}
	for _, q := range []string{
		`mutation($m: ID!) { changeMemberRole(input: {membershipId: $m, role: READER, expectedVersion: 1}) { membership { role } } }`,
		`mutation($m: ID!) { removeMember(input: {membershipId: $m, expectedVersion: 1}) { removedMembershipId } }`,
	} {
		if r := e.do(w.owner, q, map[string]any{"m": ownerMembership}); r.code() != "LAST_OWNER" {
			t.Errorf("got %s, want LAST_OWNER", r.Raw)
		}
	}
	// With a second owner, the first may step down.
	e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, role: OWNER, expectedVersion: $v}) { membership { role } } }`,
		map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
	e.must(w.owner, `mutation($m: ID!) { changeMemberRole(input: {membershipId: $m, role: READER, expectedVersion: 1}) { membership { role } } }`,
		map[string]any{"m": ownerMembership})
}

func TestInputValidation(t *testing.T) {
	e := newEnv(t)
	w := e.world("in")
	tests := []struct {
		name, query string
		vars        map[string]any
		field       string
	}{
		{"bad color", `mutation { createCalendar(input: {name: "x", color: "red"}) { calendar { id } } }`, nil, "color"},
		{"unknown time zone", `mutation { createCalendar(input: {name: "x", timeZone: "Moon/Base"}) { calendar { id } } }`, nil, "timeZone"},
		{"empty name", `mutation { createCalendar(input: {name: "   "}) { calendar { id } } }`, nil, "name"},
		{"long name", `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`,
			map[string]any{"n": strings.Repeat("x", 201)}, "name"},
		{"null name", `mutation($id: ID!) { updateCalendar(input: {id: $id, expectedVersion: 1, name: null}) { calendar { id } } }`,
			map[string]any{"id": w.calendarID}, "name"},
		{"null time zone", `mutation($id: ID!) { updateCalendar(input: {id: $id, expectedVersion: 1, timeZone: null}) { calendar { id } } }`,
			map[string]any{"id": w.calendarID}, "timeZone"},
		{"calendar ID of the wrong type", `mutation($id: ID!) { deleteCalendar(input: {id: $id, expectedVersion: 1}) { deletedCalendarId } }`,
			map[string]any{"id": w.readerMembershipID}, "id"},
		{"garbage ID", `query { calendar(id: "%%%") { id } }`, nil, "id"},
		{"bad email", `mutation($id: ID!) { addMember(input: {calendarId: $id, email: "not-an-email", role: READER}) { membership { id } } }`,
			map[string]any{"id": w.calendarID}, "email"},
		{"page too large", `{ viewer { calendars(first: 500) { edges { cursor } } } }`, nil, "first"},
		{"forged cursor", `{ viewer { calendars(first: 5, after: "eyJQSyI6IngifQ") { edges { cursor } } } }`, nil, "after"},
		{"profile name null", `mutation { updateProfile(input: {expectedVersion: 1, name: null}) { user { id } } }`, nil, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(w.owner, tt.query, tt.vars)
			if r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != tt.field {
				t.Fatalf("got %s, want BAD_USER_INPUT about %q", r.Raw, tt.field)
			}
		})
	}
	// Nothing above changed anything.
	d := e.must(w.owner, `{ viewer { calendars { edges { node { calendar { name version } } } } } }`, nil)
	if edges := get(d, "viewer.calendars.edges").([]any); len(edges) != 1 || num(edges[0], "node.calendar.version") != 1 {
		t.Fatalf("got %v, want the one calendar at version 1", d)
	}
}

func TestPartialUpdateOmittedVersusNull(t *testing.T) {
	e := newEnv(t)
	tok := e.token("p@example.com")
	d := e.must(tok, `mutation { createCalendar(input: {name: "Home", description: "Family", color: "#123456"}) { calendar { id } } }`, nil)
	id := str(d, "createCalendar.calendar.id")
	update := `mutation($in: UpdateCalendarInput!) { updateCalendar(input: $in) { calendar { name description color version } } }`
	d = e.must(tok, update, map[string]any{"in": map[string]any{"id": id, "expectedVersion": 1, "name": "House"}})
	if str(d, "updateCalendar.calendar.description") != "Family" || str(d, "updateCalendar.calendar.color") != "#123456" {
		t.Fatalf("omitted fields changed: %v", d)
	}
	d = e.must(tok, update, map[string]any{"in": map[string]any{"id": id, "expectedVersion": 2, "description": nil}})
	if get(d, "updateCalendar.calendar.description") != nil || str(d, "updateCalendar.calendar.name") != "House" {
		t.Fatalf("description null should clear it and keep the name: %v", d)
	}
}

func TestPagingThroughViewerCalendars(t *testing.T) {
	e := newEnv(t)
	tok := e.token("pager@example.com")
	for i := range 7 {
		e.must(tok, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": fmt.Sprint("c", i)})
	}
	var names []string
	var after any
	for page := 0; page < 10; page++ {
		d := e.must(tok, `query($a: String) { viewer { calendars(first: 3, after: $a) {
			edges { cursor node { calendar { name } } } pageInfo { hasNextPage endCursor startCursor hasPreviousPage } } } }`,
			map[string]any{"a": after})
		for _, edge := range get(d, "viewer.calendars.edges").([]any) {
			names = append(names, str(edge, "node.calendar.name"))
		}
		if get(d, "viewer.calendars.pageInfo.hasNextPage") != true {
			break
		}
		after = get(d, "viewer.calendars.pageInfo.endCursor")
	}
	if got := strings.Join(names, ","); got != "c0,c1,c2,c3,c4,c5,c6" {
		t.Fatalf("got %s, want all seven calendars in creation order", got)
	}
}

func TestConcurrentSignUpsWithOneEmail(t *testing.T) {
	e := newEnv(t)
	const n = 20
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok := e.tokenFor(fmt.Sprint("subject-", i), "same@example.com", time.Now().Add(time.Hour))
			codes[i] = e.do(tok, provision, nil).code()
		})
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		switch c {
		case ok:
			created++
		case "ALREADY_EXISTS":
		default:
			t.Errorf("got code %q, want success or ALREADY_EXISTS", c)
		}
	}
	if created != 1 {
		t.Fatalf("got %d sign-ups, want exactly 1 (codes %v)", created, codes)
	}
	if n := countUsers(t, e); n != 1 {
		t.Fatalf("got %d users in the table, want 1", n)
	}
}

// TestPagingPastLeftovers pages through the viewer's calendars when some of
// their memberships outlived their calendar (a deletion's clean-up that
// stopped halfway): the leftovers are skipped and paging never gets stuck.
func TestPagingPastLeftovers(t *testing.T) {
	e := newEnv(t)
	e.messy = true // leftovers of deleted calendars, on purpose
	tok := e.token("left@example.com")
	userID := decodeUserID(t, str(e.must(tok, provision, nil), "viewer.user.id"))
	var want []string
	for i := range 3 {
		name := fmt.Sprint("kept ", i)
		e.must(tok, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": name})
		want = append(want, name)
	}
	// Leftover memberships of calendars that no longer exist, sorting first.
	for i := range 5 {
		e.putRaw(map[string]string{
			"PK": fmt.Sprintf("CAL#00000000-0000-7000-8000-00000000000%d", i), "SK": "MEMBER#" + userID,
			"GSI1PK": "USER#" + userID, "GSI1SK": fmt.Sprintf("CAL#00000000-0000-7000-8000-00000000000%d", i),
			"entityType": "MEMBERSHIP", "role": "OWNER",
		})
	}
	var got []string
	var after any
	for page := 0; ; page++ {
		if page == 10 {
			t.Fatalf("still paging after 10 pages: stuck")
		}
		d := e.must(tok, `query($a: String) { viewer { calendars(first: 2, after: $a) {
			edges { node { calendar { name } } } pageInfo { hasNextPage endCursor } } } }`, map[string]any{"a": after})
		for _, edge := range get(d, "viewer.calendars.edges").([]any) {
			got = append(got, str(edge, "node.calendar.name"))
		}
		if get(d, "viewer.calendars.pageInfo.hasNextPage") != true {
			break
		}
		after = get(d, "viewer.calendars.pageInfo.endCursor")
		if after == nil {
			t.Fatalf("hasNextPage without an endCursor: %v", d)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The agenda skips the leftovers too; asked for by ID, one is not found.
	const agenda = `query($ids: [ID!]) { viewer { agenda(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}, calendarIds: $ids) {
		entries { title } } } }`
	if d := e.must(tok, agenda, nil); len(get(d, "viewer.agenda.entries").([]any)) != 0 {
		t.Fatalf("agenda: %v, want no entries", d)
	}
	leftover := model.CalendarGID("00000000-0000-7000-8000-000000000001")
	if r := e.do(tok, agenda, map[string]any{"ids": []string{leftover}}); r.code() != "NOT_FOUND" {
		t.Fatalf("agenda of a leftover: %s, want NOT_FOUND", r.Raw)
	}
	if r := e.do(tok, freeBusyQuery, map[string]any{"ids": []string{leftover}}); r.code() != "NOT_FOUND" {
		t.Fatalf("freeBusy of a leftover: %s, want NOT_FOUND", r.Raw)
	}
}
