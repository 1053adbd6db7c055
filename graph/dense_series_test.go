package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// setRuleOf rewrites the rule of the series titled title in the table,
// bypassing validation, as a series stored before rules were bounded has it.
func (e *env) setRuleOf(title, rule string) {
	e.t.Helper()
	db := dynamoClient(e)
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(e.store.Table()), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("title = :t AND attribute_exists(rrule)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: title}}})
	if err != nil || len(out.Items) == 0 {
		e.t.Fatalf("series %q: %d items, %v", title, len(out.Items), err)
	}
	for _, it := range out.Items {
		_, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(e.store.Table()),
			Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}, UpdateExpression: aws.String("SET rrule = :r"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: rule}}})
		if err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestDenseLegacySeriesFailsOnlyItsCalendar: a series stored before rules
// were bounded (every minute, for ever) takes down only the views of its own
// calendar that hold more of its occurrences than a view shows. The week view
// of every calendar answers the other calendar's entries, with an error at
// the dense calendar's entries; the agenda and freeBusy answer what they can
// and name the calendar they left out; one day of the dense calendar, 200
// days on, shows its 1,440 occurrences.
func TestDenseLegacySeriesFailsOnlyItsCalendar(t *testing.T) {
	e := newEnv(t)
	ada := e.token("ada@example.com")
	e.must(ada, provision, nil)
	ids := map[string]string{}
	for _, name := range []string{"Dense", "Normal"} {
		d := e.must(ada, `mutation($n: String!) { createCalendar(input: {name: $n, timeZone: "UTC"}) { calendar { id } } }`, map[string]any{"n": name})
		ids[name] = str(d, "createCalendar.calendar.id")
	}
	series := `mutation($c: ID!, $t: String!, $end: DateTime!) { createEntry(input: {calendarId: $c, title: $t,
		timing: {timed: {start: "2026-01-05T09:00:00Z", end: $end, timeZone: "UTC"}}, recurrence: {rule: "FREQ=DAILY"}}) { entry { id } } }`
	e.must(ada, series, map[string]any{"c": ids["Dense"], "t": "Every minute", "end": "2026-01-05T09:01:00Z"})
	e.must(ada, series, map[string]any{"c": ids["Normal"], "t": "Standup", "end": "2026-01-05T09:15:00Z"})
	e.setRuleOf("Every minute", "FREQ=MINUTELY")

	r := e.do(ada, `{ viewer { calendars { edges { node { calendar { id name
		entries(range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) { entries { title } } } } } } } }`, nil)
	shown := map[string]any{}
	for _, edge := range asList(get(r.Data, "viewer.calendars.edges")) {
		shown[str(edge, "node.calendar.name")] = get(edge, "node.calendar.entries")
	}
	if n := len(asList(get(shown["Normal"], "entries"))); n != 7 || shown["Dense"] != nil {
		t.Fatalf("week view: got %d standups and the dense calendar's entries %v; want 7 and null: %s", n, shown["Dense"], r.Raw)
	}
	if len(r.Errors) != 1 || r.code() != "TOO_MANY_OCCURRENCES" || r.Errors[0].Extensions.CalendarID != ids["Dense"] || !pathEndsIn(r.Errors[0].Path, "calendar", "entries") {
		t.Fatalf("week view: got errors %s, want TOO_MANY_OCCURRENCES at the dense calendar's entries", r.Raw)
	}

	r = e.do(ada, `{ viewer { agenda(range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) { entries { title } } } }`, nil)
	if n := len(asList(get(r.Data, "viewer.agenda.entries"))); n != 7 || len(r.Errors) != 1 || r.code() != "TOO_MANY_OCCURRENCES" || r.Errors[0].Extensions.CalendarID != ids["Dense"] {
		t.Fatalf("agenda: got %d entries, errors %s; want the 7 standups and one error naming the dense calendar", n, r.Raw)
	}

	r = e.do(ada, `query($c: [ID!]!) { freeBusy(calendarIds: $c, range: {dates: {start: "2026-03-02", end: "2026-03-09"}}) {
		calendars { calendar { name } busy { start } } } }`, map[string]any{"c": []string{ids["Dense"], ids["Normal"]}})
	busy := 0
	for _, c := range asList(get(r.Data, "freeBusy.calendars")) {
		if str(c, "calendar.name") == "Normal" {
			busy = len(asList(get(c, "busy")))
		}
	}
	if busy != 7 || len(r.Errors) != 1 || r.code() != "TOO_MANY_OCCURRENCES" || r.Errors[0].Extensions.CalendarID != ids["Dense"] {
		t.Fatalf("freeBusy: got %d busy intervals of the normal calendar, errors %s; want 7 and one error naming the dense calendar", busy, r.Raw)
	}

	d := e.must(ada, `query($c: ID!) { calendar(id: $c) { entries(range: {dates: {start: "2026-07-24", end: "2026-07-25"}}) { entries { title } } } }`,
		map[string]any{"c": ids["Dense"]})
	if n := len(asList(get(d, "calendar.entries.entries"))); n != 1440 {
		t.Fatalf("one day, 200 days on: got %d occurrences, want 1440", n)
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// pathEndsIn reports whether an error's path ends with the given names.
func pathEndsIn(path []any, names ...string) bool {
	if len(path) < len(names) {
		return false
	}
	var tail []string
	for _, p := range path[len(path)-len(names):] {
		s, _ := p.(string)
		tail = append(tail, s)
	}
	return strings.Join(tail, ".") == strings.Join(names, ".")
}
