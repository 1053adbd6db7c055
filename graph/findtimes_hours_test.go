package graph_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const setOpening = `mutation($c: ID!, $h: WorkingHoursInput) { setOpeningHours(input: {calendarId: $c, openingHours: $h}) {
	calendar { id } openingHours { timeZone days { day windows { start end } } } } }`

// TestOpeningHours: only an owner sets a resource calendar's opening hours
// (a writer is FORBIDDEN, a non-member NOT_FOUND, a calendar that is no
// resource and bad hours BAD_USER_INPUT, each changing nothing); findTimes
// then finds the room OUTSIDE_WORKING_HOURS outside them; null removes them;
// freeBusy's closed gives the stretches outside them (for a resource only);
// they go with the calendar, and Store.Check finds the table sound
// throughout.
func TestOpeningHours(t *testing.T) {
	e := newEnv(t)
	owner, writer, outsider := e.token("oh-owner@example.com"), e.token("oh-writer@example.com"), e.token("oh-out@example.com")
	for _, tok := range []string{owner, writer, outsider} {
		e.must(tok, provision, nil)
	}
	room := str(e.must(owner, `mutation { createCalendar(input: {name: "Room", isResource: true}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	plain := str(e.must(owner, `mutation { createCalendar(input: {name: "Plain"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "oh-writer@example.com", role: WRITER}) { membership { id } } }`, map[string]any{"c": room})
	hours := map[string]any{"timeZone": "UTC", "days": []any{map[string]any{"day": "MONDAY", "windows": []any{map[string]any{"start": "09:00", "end": "12:00"}}}}}
	for name, c := range map[string]struct {
		tok, cal string
		h        any
		code     string
	}{
		"a writer":       {writer, room, hours, "FORBIDDEN"},
		"a non-member":   {outsider, room, hours, "NOT_FOUND"},
		"no resource":    {owner, plain, hours, "BAD_USER_INPUT"},
		"a bad window":   {owner, room, map[string]any{"timeZone": "UTC", "days": []any{map[string]any{"day": "MONDAY", "windows": []any{map[string]any{"start": "12:00", "end": "09:00"}}}}}, "BAD_USER_INPUT"},
		"a bad timezone": {owner, room, map[string]any{"timeZone": "Nowhere/Else", "days": []any{}}, "BAD_USER_INPUT"},
	} {
		if r := e.do(c.tok, setOpening, map[string]any{"c": c.cal, "h": c.h}); r.code() != c.code {
			t.Errorf("%s: %s, want %s", name, r.Raw, c.code)
		}
	}
	find := func() []any {
		in := map[string]any{"groups": []any{map[string]any{"calendars": []any{room}}}, "durationMinutes": 60, "stepMinutes": 60, "timeZone": "UTC",
			"respectWorkingHours": false, "range": map[string]any{"instants": map[string]any{"start": "2027-02-01T10:00:00Z", "end": "2027-02-01T13:00:00Z"}}}
		return get(e.must(writer, findTimesStates, map[string]any{"in": in}), "findTimes.slots").([]any)
	}
	if s := find(); len(s) != 3 || str(s, "2.states.0") != "FREE" {
		t.Fatalf("without opening hours: %v", s)
	}
	d := e.must(owner, setOpening, map[string]any{"c": room, "h": hours})
	if str(d, "setOpeningHours.openingHours.days.0.windows.0.start") != "09:00" {
		t.Fatalf("set: %v", d)
	}
	e.consistent()
	if s := find(); len(s) != 3 || str(s, "0.states.0") != "FREE" || str(s, "1.states.0") != "FREE" || str(s, "2.states.0") != "OUTSIDE_WORKING_HOURS" {
		t.Fatalf("with opening hours: %v", s)
	}
	e.must(owner, setOpening, map[string]any{"c": room, "h": nil})
	if s := find(); str(s, "2.states.0") != "FREE" {
		t.Fatalf("removed: %v", s)
	}
	e.must(owner, setOpening, map[string]any{"c": room, "h": hours})
	// freeBusy shows when the room is closed, and nothing of the sort for a
	// calendar that is no resource.
	d = e.must(owner, `query($ids: [ID!]!) { freeBusy(calendarIds: $ids, range: {instants: {start: "2027-02-01T08:00:00Z", end: "2027-02-01T13:00:00Z"}}) {
		calendars { calendar { id } closed { start end } } } }`, map[string]any{"ids": []any{room, plain}})
	for _, c := range get(d, "freeBusy.calendars").([]any) {
		got := fmt.Sprint(get(c, "closed"))
		want := "[]"
		if str(c, "calendar.id") == room {
			want = "[map[end:2027-02-01T09:00:00Z start:2027-02-01T08:00:00Z] map[end:2027-02-01T13:00:00Z start:2027-02-01T12:00:00Z]]"
		}
		if got != want {
			t.Errorf("closed %s, want %s", got, want)
		}
	}
	hoursKey := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "CAL#" + decodeCalendarID(t, room)}, "SK": &types.AttributeValueMemberS{Value: "HOURS"}}
	held := func() bool {
		out, err := dynamoClient(e).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(e.store.Table()), Key: hoursKey, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	if !held() {
		t.Fatal("the opening hours are not at CAL#<id>/HOURS")
	}
	v := num(e.must(owner, `query($c: ID!) { calendar(id: $c) { version } }`, map[string]any{"c": room}), "calendar.version")
	e.must(owner, `mutation($c: ID!, $v: Int!) { deleteCalendar(input: {id: $c, expectedVersion: $v}) { deletedCalendarId } }`, map[string]any{"c": room, "v": v})
	if held() {
		t.Error("the opening hours outlive their calendar")
	}
	e.consistent()
}

// decodeCalendarID turns a Calendar's global ID back into its ID.
func decodeCalendarID(t *testing.T, gid string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(gid)
	if err != nil || !strings.HasPrefix(string(raw), "Calendar:") {
		t.Fatalf("%q is not a Calendar ID", gid)
	}
	return strings.TrimPrefix(string(raw), "Calendar:")
}

// TestOpeningHoursAndHoldsRead: a resource calendar's opening hours are
// read on the calendar by any member who sees when it is busy (null on a
// calendar that is no resource; an outsider reads no calendar), and an
// entry's mustNotOverlap by those who read it, not on a redacted entry.
func TestOpeningHoursAndHoldsRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, fb, reader := e.token("ohr-owner@example.com"), e.token("ohr-fb@example.com"), e.token("ohr-reader@example.com")
	for _, tok := range []string{owner, fb, reader} {
		e.must(tok, provision, nil)
	}
	room := str(e.must(owner, `mutation { createCalendar(input: {name: "Room", isResource: true}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	plain := str(e.must(owner, `mutation { createCalendar(input: {name: "Plain"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	for _, m := range []struct{ c, email, role string }{{room, "ohr-fb@example.com", "FREE_BUSY"}, {plain, "ohr-reader@example.com", "READER"}} {
		e.must(owner, `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`,
			map[string]any{"c": m.c, "e": m.email, "r": m.role})
	}
	hours := map[string]any{"timeZone": "UTC", "days": []any{map[string]any{"day": "MONDAY", "windows": []any{map[string]any{"start": "09:00", "end": "12:00"}}}}}
	e.must(owner, setOpening, map[string]any{"c": room, "h": hours})
	read := `query($c: ID!) { calendar(id: $c) { openingHours { timeZone days { day windows { start end } } } } }`
	if d := e.must(fb, read, map[string]any{"c": room}); str(d, "calendar.openingHours.days.0.windows.0.end") != "12:00" {
		t.Errorf("a FREE_BUSY member reads %v, want the hours", d)
	}
	if d := e.must(owner, read, map[string]any{"c": plain}); get(d, "calendar.openingHours") != nil {
		t.Errorf("no resource: %v, want null", d)
	}
	if r := e.do(reader, read, map[string]any{"c": room}); r.code() != "NOT_FOUND" {
		t.Errorf("an outsider: %s, want NOT_FOUND", r.Raw)
	}
	entry := `mutation($c: ID!, $n: [ID!], $v: Visibility, $s: DateTime!) { createEntry(input: {calendarId: $c, title: "Meeting", visibility: $v,
		timing: {timed: {start: $s}}, mustNotOverlap: $n}) { entry { id mustNotOverlap } } }`
	open := e.must(owner, entry, map[string]any{"c": plain, "n": []string{room}, "s": "2027-02-01T10:00:00Z"})
	if got := fmt.Sprint(get(open, "createEntry.entry.mustNotOverlap")); got != fmt.Sprint([]any{room}) {
		t.Errorf("mustNotOverlap: %s, want [%s]", got, room)
	}
	private := str(e.must(owner, entry, map[string]any{"c": plain, "n": []string{room}, "v": "PRIVATE", "s": "2027-02-02T10:00:00Z"}), "createEntry.entry.id")
	byReader := e.must(reader, `query($id: ID!) { node(id: $id) { ... on TimedEntry { redacted mustNotOverlap } } }`, map[string]any{"id": private})
	if get(byReader, "node.redacted") != true || len(get(byReader, "node.mustNotOverlap").([]any)) != 0 {
		t.Errorf("a reader of a private entry: %v, want it redacted, without mustNotOverlap", byReader)
	}
}
