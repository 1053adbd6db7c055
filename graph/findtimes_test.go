package graph_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const findTimesStates = `query($in: FindTimesInput!) { findTimes(input: $in) { timeZone reason slots { start states } groupReasons { group reason }
	participants { email group } } }`

// TestFindTimes: the viewer's own invitations count for them (accepted as
// busy, not yet answered as tentative, declined not at all), a FREE_BUSY
// member's calendar counts for its owner without a title reaching the
// viewer, a group that cannot meet is named with its reason, and every bad
// input is refused before anything is read: BAD_USER_INPUT, or NOT_FOUND
// alike for an unknown email, a user none of whose calendars the viewer
// reaches, and a calendar the viewer cannot see.
func TestFindTimes(t *testing.T) {
	e := newEnv(t)
	viewer, org, peer := e.token("ftv@example.com"), e.token("fto@example.com"), e.token("ftp@example.com")
	for _, tok := range []string{viewer, org, peer} {
		e.must(tok, provision, nil)
	}
	e.must(viewer, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil)
	events := str(e.must(org, `mutation { createCalendar(input: {name: "Events"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	peerCal := str(e.must(peer, `mutation { createCalendar(input: {name: "Peer"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(peer, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "ftv@example.com", role: FREE_BUSY}) { membership { id } } }`, map[string]any{"c": peerCal})
	e.must(peer, `mutation($c: ID!) { createEntry(input: {calendarId: $c, title: "Secret merger", timing: {timed: {start: "2027-02-01T10:00:00Z", end: "2027-02-01T11:00:00Z"}}}) { entry { id } } }`,
		map[string]any{"c": peerCal})
	for hour, answer := range map[int]string{12: "ACCEPTED", 14: "", 16: "DECLINED"} {
		d := e.must(org, `mutation($c: ID!, $s: DateTime!, $e: DateTime!) { createEntry(input: {calendarId: $c, title: "Secret talk",
			timing: {timed: {start: $s, end: $e}}}) { entry { id } } }`,
			map[string]any{"c": events, "s": fmt.Sprintf("2027-02-01T%d:00:00Z", hour), "e": fmt.Sprintf("2027-02-01T%d:00:00Z", hour+1)})
		id := str(d, "createEntry.entry.id")
		e.must(org, `mutation($id: ID!) { changeAttendees(input: {entryId: $id, add: [{email: "ftv@example.com"}]}) { entry { id } } }`, map[string]any{"id": id})
		if answer != "" {
			v := num(e.must(viewer, `query($id: ID!) { node(id: $id) { ... on Entry { viewerAttendee { version } } } }`, map[string]any{"id": id}), "node.viewerAttendee.version")
			e.must(viewer, respond, map[string]any{"id": id, "v": v, "r": answer})
		}
	}
	in := map[string]any{"groups": []any{map[string]any{"users": []any{"ftv@example.com", "FTP@example.com"}}}, "durationMinutes": 60, "stepMinutes": 60,
		"timeZone": "UTC", "respectWorkingHours": false, "range": map[string]any{"instants": map[string]any{"start": "2027-02-01T09:00:00Z", "end": "2027-02-01T18:00:00Z"}}}
	r := e.do(viewer, findTimesStates, map[string]any{"in": in})
	if len(r.Errors) > 0 || strings.Contains(r.Raw, "Secret") {
		t.Fatalf("findTimes: %s", r.Raw)
	}
	var got []string
	for _, s := range get(r.Data, "findTimes.slots").([]any) {
		got = append(got, fmt.Sprint(str(s, "start")[11:13], get(s, "states")))
	}
	want := []string{"09[FREE FREE]", "11[FREE FREE]", "13[FREE FREE]", "14[TENTATIVE FREE]", "15[FREE FREE]", "16[FREE FREE]", "17[FREE FREE]"}
	if !slices.Equal(got, want) || str(r.Data, "findTimes.participants.1.email") != "ftp@example.com" {
		t.Fatalf("slots %q, want %q (%s)", got, want, r.Raw)
	}

	// An optional participant is reported, never required.
	opt := map[string]any{"groups": []any{map[string]any{"users": []any{"ftv@example.com"}}}, "optional": map[string]any{"users": []any{"ftp@example.com"}},
		"durationMinutes": 60, "timeZone": "UTC", "range": map[string]any{"instants": map[string]any{"start": "2027-02-01T10:00:00Z", "end": "2027-02-01T11:00:00Z"}}}
	d := e.must(viewer, findTimesStates, map[string]any{"in": opt})
	if fmt.Sprint(get(d, "findTimes.slots.0.states")) != "[FREE BUSY]" || get(d, "findTimes.participants.1.group") != nil {
		t.Fatalf("with an optional participant: %v", d)
	}

	// Nothing fits: the reason, and the group that cannot meet even alone.
	alone := map[string]any{"groups": []any{map[string]any{"users": []any{"ftv@example.com"}}, map[string]any{"users": []any{"ftp@example.com"}}},
		"durationMinutes": 60, "timeZone": "UTC", "range": map[string]any{"instants": map[string]any{"start": "2027-02-01T10:00:00Z", "end": "2027-02-01T11:00:00Z"}}}
	d = e.must(viewer, findTimesStates, map[string]any{"in": alone})
	if str(d, "findTimes.reason") != "NEVER_FREE" || len(get(d, "findTimes.groupReasons").([]any)) != 1 || num(d, "findTimes.groupReasons.0.group") != 1 {
		t.Fatalf("no slot: %v", d)
	}

	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for k, v := range in {
			c[k] = v
		}
		c[k] = v
		return c
	}
	var fifty []any
	for i := range 51 {
		fifty = append(fifty, fmt.Sprintf("p%d@example.com", i))
	}
	days := func(s, e string) map[string]any { return map[string]any{"dates": map[string]any{"start": s, "end": e}} }
	for name, c := range map[string]struct {
		in   map[string]any
		code string
	}{
		"no groups":           {with("groups", []any{}), "BAD_USER_INPUT"},
		"an empty group":      {with("groups", []any{map[string]any{}}), "BAD_USER_INPUT"},
		"51 participants":     {with("groups", []any{map[string]any{"users": fifty}}), "BAD_USER_INPUT"},
		"named twice":         {with("groups", []any{map[string]any{"users": []any{"ftv@example.com"}}, map[string]any{"users": []any{"FTV@example.com"}}}), "BAD_USER_INPUT"},
		"atLeast too many":    {with("groups", []any{map[string]any{"users": []any{"ftv@example.com"}, "required": "AT_LEAST", "atLeast": 2}}), "BAD_USER_INPUT"},
		"atLeast on optional": {with("optional", map[string]any{"users": []any{"ftp@example.com"}, "required": "AT_LEAST", "atLeast": 1}), "BAD_USER_INPUT"},
		"atLeast 0":           {with("groups", []any{map[string]any{"users": []any{"ftv@example.com"}, "required": "AT_LEAST", "atLeast": 0}}), "BAD_USER_INPUT"},
		"32 days":             {with("range", days("2027-02-01", "2027-03-05")), "BAD_USER_INPUT"},
		"longer than range":   {with("durationMinutes", 600), "BAD_USER_INPUT"},
		"step 7":              {with("stepMinutes", 7), "BAD_USER_INPUT"},
		"negative buffer":     {with("bufferBeforeMinutes", -5), "BAD_USER_INPUT"},
		"bad zone":            {with("timeZone", "Mars/Olympus"), "BAD_USER_INPUT"},
		"not an email":        {with("groups", []any{map[string]any{"users": []any{"nobody"}}}), "BAD_USER_INPUT"},
		"unknown email":       {with("groups", []any{map[string]any{"users": []any{"nobody@example.com"}}}), "NOT_FOUND"},
		"unreached user":      {with("groups", []any{map[string]any{"users": []any{"fto@example.com"}}}), "NOT_FOUND"},
		"unreached calendar":  {with("groups", []any{map[string]any{"calendars": []any{events}}}), "NOT_FOUND"},
	} {
		e.rec.Reset()
		r := e.do(viewer, findTimesStates, map[string]any{"in": c.in})
		if r.code() != c.code {
			t.Errorf("%s: %s, want %s", name, r.Raw, c.code)
		}
		if calls := e.rec.Calls(); c.code == "BAD_USER_INPUT" && len(calls) > 0 {
			t.Errorf("%s: %d DynamoDB calls for bad input", name, len(calls))
		}
		if c.code == "NOT_FOUND" && !strings.Contains(r.Raw, "was not found") && !strings.Contains(r.Raw, "calendar not found") {
			t.Errorf("%s: %s", name, r.Raw)
		}
	}
	// The unknown email and the unreached user read alike.
	a := e.do(viewer, findTimesStates, map[string]any{"in": with("groups", []any{map[string]any{"users": []any{"nobody@example.com"}}})})
	b := e.do(viewer, findTimesStates, map[string]any{"in": with("groups", []any{map[string]any{"users": []any{"fto@example.com"}}})})
	if a.Errors[0].Message != b.Errors[0].Message {
		t.Errorf("an unknown email %q and an unreached user %q differ", a.Errors[0].Message, b.Errors[0].Message)
	}
}
