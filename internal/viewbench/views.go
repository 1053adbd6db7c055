package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// view is one GraphQL document under measurement.
type view struct {
	name string
	// query is the document for a data set of that many calendars.
	query func(calendars int) string
	// returned counts the items an answer's data holds: entries, or members.
	returned func(data any) int
	// vars, when set, gives the i-th request to a server (whose data set
	// has calendars) its variables: each a different request.
	vars func(i int, calendars []string) map[string]any
}

// The documents are graph/bench_test.go's weekViewQuery, agendaQuery and
// membersQuery, except that calendars(first: 20) asks for every calendar of
// the data set.
const (
	weekViewQuery = `{ viewer { calendars(first: %d) { edges { node { role calendar { id name color
	entries(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { timeZone entries {
		__typename id title color tags calendar { id name }
		... on TimedEntry { start end timeZone } ... on AllDayEntry { date }
		... on MultiDayEntry { startDate endDate } ... on Task { dueDate due completed } } } } } } } } }`

	agendaQuery = `{ viewer { agenda(range: {dates: {start: "2026-06-15", end: "2026-06-22"}}) { timeZone entries {
	__typename id title calendar { id name color viewerRole }
	... on TimedEntry { start end } ... on AllDayEntry { date } ... on MultiDayEntry { startDate endDate } ... on Task { dueDate due } } } } }`

	// sweepQuery is the week view over a range of the request's own.
	sweepQuery = `query($start: Date!, $end: Date!) { viewer { calendars(first: %d) { edges { node { role calendar { id name color
	entries(range: {dates: {start: $start, end: $end}}) { timeZone entries {
		__typename id title color tags calendar { id name }
		... on TimedEntry { start end timeZone } ... on AllDayEntry { date }
		... on MultiDayEntry { startDate endDate } ... on Task { dueDate due completed } } } } } } } } }`

	// searchQuery is a search of one calendar of the viewer's.
	searchQuery = `query($q: String!, $cal: ID!) { viewer { search(query: $q, calendarIds: [$cal], first: 20) {
	edges { score node { __typename id title calendar { id name } } } } } }`

	membersQuery = `{ viewer { calendars(first: %d) { edges { node { role calendar { id name
	members(first: 20) { edges { node { role user { name email } } } } } } } } } }`
)

// views are the views -views may name.
var views = []view{
	{name: "week", query: func(n int) string { return fmt.Sprintf(weekViewQuery, n) },
		returned: func(data any) int { return perCalendar(data, "entries", "entries") }},
	{name: "agenda", query: func(int) string { return agendaQuery },
		returned: func(data any) int { return length(field(data, "viewer", "agenda", "entries")) }},
	{name: "members", query: func(n int) string { return fmt.Sprintf(membersQuery, n) },
		returned: func(data any) int { return perCalendar(data, "members", "edges") }},
	// sweep fills the caches: the week view, each request over another range
	// (every start day of 2026, then the same with a day more, up to 11 days),
	// so that each is an answer and ranges of its own until the 1,825th.
	{name: "sweep", query: func(n int) string { return fmt.Sprintf(sweepQuery, n) },
		returned: func(data any) int { return perCalendar(data, "entries", "entries") },
		vars:     sweepRange},
	// search fills the search indexes: each request searches one calendar,
	// each in turn, for the titles beginning "entry <i mod 25>" (the seeded
	// titles are "entry 0" to "entry 249"), so that with more calendars than
	// the indexes hold it keeps them full and rebuilding.
	{name: "search", query: func(int) string { return searchQuery },
		returned: func(data any) int { return length(field(data, "viewer", "search", "edges")) },
		vars:     searchOne},
	// create is a write: createEntry of a timed entry in 2027 (outside the
	// views' ranges), in each calendar in turn.
	{name: "create", query: func(int) string { return createEntryMutation },
		returned: func(data any) int {
			if id, _ := field(data, "createEntry", "entry", "id").(string); id != "" {
				return 1
			}
			return 0
		},
		vars: newEntry},
}

// newEntry is the create view's i-th entry.
func newEntry(i int, calendars []string) map[string]any {
	start := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	return map[string]any{"input": map[string]any{"calendarId": calendars[i%len(calendars)], "title": fmt.Sprint("created ", i),
		"timing": map[string]any{"timed": map[string]any{"start": start.Format(time.RFC3339), "end": start.Add(30 * time.Minute).Format(time.RFC3339), "timeZone": "UTC"}}}}
}

// searchOne is the search view's i-th search.
func searchOne(i int, calendars []string) map[string]any {
	return map[string]any{"q": fmt.Sprint("entry ", i%25), "cal": calendars[i%len(calendars)]}
}

// sweepRange is the sweep view's i-th range.
func sweepRange(i int, _ []string) map[string]any {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%365)
	days := 7 + (i/365)%5
	return map[string]any{"start": start.Format(time.DateOnly), "end": start.AddDate(0, 0, days).Format(time.DateOnly)}
}

// findViews returns the views named in a comma-separated list.
func findViews(names string) ([]view, error) {
	var out []view
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(views, func(v view) bool { return v.name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown view %q: want week, agenda, members, sweep, search or create", name)
		}
		out = append(out, views[i])
	}
	return out, nil
}

// perCalendar sums, over the viewer's calendars in an answer, the length of
// the list at calendar.<keys>.
func perCalendar(data any, keys ...string) int {
	edges, _ := field(data, "viewer", "calendars", "edges").([]any)
	n := 0
	for _, e := range edges {
		n += length(field(e, append([]string{"node", "calendar"}, keys...)...))
	}
	return n
}

// length is the length of a decoded JSON list, 0 for anything else.
func length(v any) int {
	list, _ := v.([]any)
	return len(list)
}
