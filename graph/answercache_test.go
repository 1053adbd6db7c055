package graph_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/dynamotest"
)

// The reads the answer-cache test repeats: a calendar's week with its
// entries, their attendees and its members (with their names); the
// viewer's list of calendars with their own settings; one entry by ID.
const (
	cachedWeek = `query($c: ID!) { calendar(id: $c) { name viewerRole
		entries(range: {dates: {start: "2026-11-23", end: "2026-11-30"}}) { entries { id title version visibility redacted myReminders { minutes }
			attendees(first: 10) { edges { node { email response } } } } }
		members(first: 10) { edges { node { role version user { email name } } } } } }`
	cachedList = `{ viewer { user { name } calendars(first: 10) { edges { node { role
		settings { color displayColor version } calendar { id name } } } } } }`
	cachedEntry = `query($id: ID!) { node(id: $id) { ... on Entry { title version visibility redacted myReminders { minutes } myRemindersVersion
		attendees(first: 10) { edges { node { email response version } } } } } }`
)

// TestAnswerCacheIsExactAcrossInstances: two instances with answer caches
// on one table, and a third without one. Writers (through either cached
// instance) and readers (either) take turns at random: entries created,
// retitled, made private, deleted and restored, attendees invited and
// answering, members added, removed and given other roles, their own
// calendar colors, their names, the calendar's name. After every read
// through a cached instance the same read is made through the uncached
// one, with nothing written between: the two must be the same bytes. The
// seed is printed (CALGRAPH_ANSWER_SEED replays one); the test fails if
// the caches never answered, so that it cannot pass by caching nothing.
func TestAnswerCacheIsExactAcrossInstances(t *testing.T) {
	t.Parallel() // seconds of requests on a table of its own
	a := newEnv(t, withAnswerCache(8<<20))
	b := newEnv(t, withAnswerCache(8<<20), func(o *envOptions) { o.table = a.store.Table() })
	fresh := newEnv(t, func(o *envOptions) { o.table = a.store.Table() })
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CALGRAPH_ANSWER_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (CALGRAPH_ANSWER_SEED=%d replays it)", seed, seed)
	rnd := rand.New(rand.NewPCG(seed, 0))
	w := newAnswerWorld(a)
	instances := []*env{a, b}
	rounds, reads := 150, 0
	if testing.Short() || dynamotest.External() {
		rounds = 50 // DynamoDB Local answers slower: about a minute and a half
	}
	// Each round writes once, then reads a few of a small set of reads
	// through both instances: most reads were made before, so the caches
	// hold them, and what a write changed is read again soon.
	for round := range rounds {
		w.write(instances[rnd.IntN(2)], fresh, rnd)
		for range 4 {
			who := w.people[rnd.IntN(len(w.people))]
			query, vars := w.read(rnd)
			for _, at := range instances {
				got := at.do(a.token(who), query, vars).Raw
				want := fresh.do(a.token(who), query, vars).Raw
				reads++
				if got != want {
					t.Fatalf("round %d (seed %d): %s read through a cached instance\n%s\nwith %v\ngot  %s\nwant %s (read uncached just after, nothing written between)",
						round, seed, who, query, vars, got, want)
				}
			}
		}
	}
	sa, sb := a.answers.Stats(), b.answers.Stats()
	t.Logf("%d reads: hits %d+%d; misses %v and %v", reads, sa.Hits, sb.Hits, sa.Misses, sb.Misses)
	if sa.Hits+sb.Hits == 0 {
		t.Fatal("the answer caches answered no read: the test proved nothing")
	}
}

// answerWorld is the people and calendars the test writes and reads.
type answerWorld struct {
	owner, writer, reader, joiner string // emails
	people                        []string
	calendars                     []string // global IDs: the owner's, the writer's
	entries                       []string // global IDs, deleted ones included
}

func newAnswerWorld(e *env) *answerWorld {
	w := &answerWorld{owner: "o@answers.example", writer: "w@answers.example", reader: "r@answers.example", joiner: "j@answers.example"}
	w.people = []string{w.owner, w.writer, w.reader, w.joiner}
	for _, p := range w.people {
		e.must(e.token(p), provision, nil)
	}
	for _, owner := range []string{w.owner, w.writer} {
		d := e.must(e.token(owner), `mutation { createCalendar(input: {name: "Team"}) { calendar { id } } }`, nil)
		w.calendars = append(w.calendars, str(d, "createCalendar.calendar.id"))
	}
	add := `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`
	e.must(e.token(w.owner), add, map[string]any{"c": w.calendars[0], "e": w.writer, "r": "WRITER"})
	e.must(e.token(w.owner), add, map[string]any{"c": w.calendars[0], "e": w.reader, "r": "READER"})
	e.must(e.token(w.writer), add, map[string]any{"c": w.calendars[1], "e": w.reader, "r": "READER"})
	return w
}

// read picks a read and its variables.
func (w *answerWorld) read(rnd *rand.Rand) (string, map[string]any) {
	switch n := rnd.IntN(5); {
	case n < 3:
		return cachedWeek, map[string]any{"c": w.calendars[rnd.IntN(2)]}
	case n == 3 || len(w.entries) == 0:
		return cachedList, nil
	default:
		recent := w.entries[max(0, len(w.entries)-3):]
		return cachedEntry, map[string]any{"id": recent[rnd.IntN(len(recent))]}
	}
}

// write makes one change through at, reading what it needs (versions,
// IDs) through fresh. A write may fail (a reader may not write, a deleted
// entry cannot be retitled): what the reads compare is what the table
// holds, whatever it is.
func (w *answerWorld) write(at, fresh *env, rnd *rand.Rand) {
	tok := at.token
	cal := w.calendars[rnd.IntN(2)]
	calOwner := w.owner
	if cal == w.calendars[1] {
		calOwner = w.writer
	}
	entry := func() (string, map[string]any) {
		if len(w.entries) == 0 {
			return "", nil
		}
		recent := w.entries[max(0, len(w.entries)-3):]
		id := recent[rnd.IntN(len(recent))]
		return id, fresh.do(tok(w.owner), cachedEntry, map[string]any{"id": id}).Data
	}
	switch n := rnd.IntN(12); n {
	case 1: // the viewer's own reminders of an entry
		if id, d := entry(); id != "" {
			at.do(tok(w.owner), `mutation($id: ID!, $v: Int!, $r: [ReminderInput!]!) { setMyReminders(input: {entryId: $id, expectedVersion: $v, reminders: $r}) { myRemindersSet } }`,
				map[string]any{"id": id, "v": num(d, "node.myRemindersVersion"), "r": []map[string]any{{"minutes": 5 * rnd.IntN(10)}}})
		}
	case 0: // a new entry, private one time in three
		start := time.Date(2026, 11, 23+rnd.IntN(7), 8+rnd.IntN(10), 0, 0, 0, time.UTC)
		vis := []string{"DEFAULT", "DEFAULT", "PRIVATE"}[rnd.IntN(3)]
		r := at.do(tok([]string{w.owner, w.writer}[rnd.IntN(2)]), `mutation($c: ID!, $t: String!, $s: DateTime!, $e: DateTime!, $v: Visibility!) {
			createEntry(input: {calendarId: $c, title: $t, visibility: $v, timing: {timed: {start: $s, end: $e}}}) { entry { id } } }`,
			map[string]any{"c": cal, "t": fmt.Sprintf("meeting %d", rnd.IntN(1000)), "s": start, "e": start.Add(time.Hour), "v": vis})
		if id := str(r.Data, "createEntry.entry.id"); id != "" {
			w.entries = append(w.entries, id)
		}
	case 2: // retitled or made (not) private
		if id, d := entry(); id != "" {
			at.do(tok(w.writer), `mutation($id: ID!, $v: Int!, $t: String!, $vis: Visibility!) {
				updateEntry(input: {id: $id, expectedVersion: $v, title: $t, visibility: $vis}) { entry { id } } }`,
				map[string]any{"id": id, "v": num(d, "node.version"), "t": fmt.Sprintf("renamed %d", rnd.IntN(1000)),
					"vis": []string{"DEFAULT", "PRIVATE"}[rnd.IntN(2)]})
		}
	case 3: // deleted, or restored
		if id, d := entry(); id != "" {
			if get(d, "node") != nil {
				at.do(tok(w.owner), `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
					map[string]any{"id": id, "v": num(d, "node.version")})
			} else {
				at.do(tok(w.owner), `mutation($id: ID!) { restoreEntry(input: {id: $id}) { entry { id } } }`, map[string]any{"id": id})
			}
		}
	case 4: // the reader invited, or uninvited
		if id, _ := entry(); id != "" {
			if rnd.IntN(2) == 0 {
				at.do(tok(w.owner), `mutation($id: ID!, $e: String!) { changeAttendees(input: {entryId: $id, add: [{email: $e}]}) { entry { id } } }`,
					map[string]any{"id": id, "e": w.reader})
			} else {
				at.do(tok(w.owner), `mutation($id: ID!, $e: String!) { changeAttendees(input: {entryId: $id, remove: [$e]}) { entry { id } } }`,
					map[string]any{"id": id, "e": w.reader})
			}
		}
	case 5: // the reader answers an invitation
		if id, d := entry(); id != "" {
			for _, edge := range asList(get(d, "node.attendees.edges")) {
				if str(edge, "node.email") == w.reader {
					at.do(tok(w.reader), respond, map[string]any{"id": id, "v": num(edge, "node.version"),
						"r": []string{"ACCEPTED", "DECLINED", "TENTATIVE"}[rnd.IntN(3)]})
				}
			}
		}
	case 6: // the joiner joins or leaves; the reader's role changes
		members := fresh.do(tok(calOwner), cachedWeek, map[string]any{"c": cal}).Data
		var joined bool
		for _, edge := range asList(get(members, "calendar.members.edges")) {
			if str(edge, "node.user.email") == w.joiner {
				joined = true
			}
		}
		if !joined {
			at.do(tok(calOwner), `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
				map[string]any{"c": cal, "e": w.joiner})
			return
		}
		w.changeMembership(at, fresh, cal, calOwner, rnd)
	case 7, 10, 11: // a member's own color of the calendar, and their default reminders on it
		who := w.people[n%len(w.people)]
		list := fresh.do(tok(who), cachedList, nil).Data
		for _, edge := range asList(get(list, "viewer.calendars.edges")) {
			if str(edge, "node.calendar.id") == cal {
				at.do(tok(who), `mutation($c: ID!, $v: Int!, $color: String, $r: [ReminderInput!]) {
					updateCalendarSettings(input: {calendarId: $c, expectedVersion: $v, color: $color, defaultReminders: $r}) { membership { id } } }`,
					map[string]any{"c": cal, "v": num(edge, "node.settings.version"), "color": fmt.Sprintf("#%06x", rnd.IntN(1<<24)),
						"r": []map[string]any{{"minutes": 5 * rnd.IntN(10)}}})
			}
		}
	case 8: // someone's name
		who := w.people[rnd.IntN(len(w.people))]
		d := fresh.do(tok(who), `{ viewer { user { version } } }`, nil).Data
		at.do(tok(who), `mutation($v: Int!, $n: String!) { updateProfile(input: {expectedVersion: $v, name: $n}) { user { id } } }`,
			map[string]any{"v": num(d, "viewer.user.version"), "n": fmt.Sprintf("Person %d", rnd.IntN(1000))})
	case 9: // the calendar's name
		d := fresh.do(tok(calOwner), `query($c: ID!) { calendar(id: $c) { version } }`, map[string]any{"c": cal}).Data
		at.do(tok(calOwner), `mutation($c: ID!, $v: Int!, $n: String!) { updateCalendar(input: {id: $c, expectedVersion: $v, name: $n}) { calendar { id } } }`,
			map[string]any{"c": cal, "v": num(d, "calendar.version"), "n": fmt.Sprintf("Team %d", rnd.IntN(1000))})
	}
}

// changeMembership removes the joiner from cal, or changes the reader's role.
func (w *answerWorld) changeMembership(at, fresh *env, cal, calOwner string, rnd *rand.Rand) {
	d := fresh.do(at.token(calOwner), `query($c: ID!) { calendar(id: $c) { members(first: 10) { edges { node { id version role user { email } } } } } }`,
		map[string]any{"c": cal}).Data
	for _, edge := range asList(get(d, "calendar.members.edges")) {
		switch email := str(edge, "node.user.email"); {
		case email == w.joiner && rnd.IntN(2) == 0:
			at.do(at.token(calOwner), `mutation($m: ID!, $v: Int!) { removeMember(input: {membershipId: $m, expectedVersion: $v}) { removedMembershipId } }`,
				map[string]any{"m": str(edge, "node.id"), "v": num(edge, "node.version")})
		case email == w.reader:
			role := map[string]string{"READER": "WRITER", "WRITER": "READER"}[str(edge, "node.role")]
			at.do(at.token(calOwner), `mutation($m: ID!, $v: Int!, $r: Role!) { changeMemberRole(input: {membershipId: $m, expectedVersion: $v, role: $r}) { membership { id } } }`,
				map[string]any{"m": str(edge, "node.id"), "v": num(edge, "node.version"), "r": role})
		}
	}
}

// withAnswerCache gives the instance an answer cache of that many bytes.
func withAnswerCache(bytes int64) func(*envOptions) { return func(o *envOptions) { o.answers = bytes } }

// TestAnswerCacheKeepsCleanQueriesOnly: a repeated query is answered from the
// cache after one wave that checks its reads (no range read, no second
// wave); a query answered with an error, a mutation and a query that reads
// the clock (findTimes) run every time.
func TestAnswerCacheKeepsCleanQueriesOnly(t *testing.T) {
	e := newEnv(t, withAnswerCache(1<<20), withWaveGate())
	tok := e.token("clean@example.com")
	e.must(tok, provision, nil)
	cal := str(e.must(tok, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	const list = `{ viewer { calendars(first: 10) { edges { node { role calendar { id name } } } } } }`
	e.must(tok, list, nil)
	e.rec.Reset()
	e.must(tok, list, nil)
	if s := e.answers.Stats(); s.Hits != 1 {
		t.Fatalf("repeated query: got %+v, want a hit", s)
	}
	for step, n := range planOf(e.rec.Calls()) {
		if !strings.HasPrefix(step, "wave 1 ") {
			t.Errorf("a hit's calls: %s ×%d, want every call in one wave", step, n)
		}
	}
	for _, q := range []struct{ query, why string }{
		{`{ calendar(id: "Q2FsZW5kYXI6bm9uZQ") { name } }`, "not_a_clean_query"},
		{`mutation($c: ID!) { updateCalendar(input: {id: $c, expectedVersion: 99, name: "x"}) { calendar { id } } }`, "not_a_clean_query"},
		{`{ findTimes(input: {groups: [{users: ["clean@example.com"]}], durationMinutes: 60, timeZone: "UTC",
			range: {instants: {start: "2027-02-01T09:00:00Z", end: "2027-02-01T18:00:00Z"}}}) { slots { start } } }`, "clock"},
	} {
		before := e.answers.Stats().Misses[q.why]
		e.do(tok, q.query, map[string]any{"c": cal})
		e.do(tok, q.query, map[string]any{"c": cal})
		if got := e.answers.Stats().Misses[q.why] - before; got != 2 {
			t.Errorf("%s: %d misses for %q, want 2 (never kept)", q.query, got, q.why)
		}
	}
	if s := e.answers.Stats(); s.Hits != 1 {
		t.Errorf("got %d hits, want only the clean query's", s.Hits)
	}
}
