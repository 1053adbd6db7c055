package graph_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveReplica is a client's copy of its calendars' entries, kept from
// deliveries alone, with the sync token of each calendar to resume from. It
// notes every delivery that takes an entry back: a lower version than one
// delivered before, or the entry again after its tombstone at a version no
// higher than the last one delivered before the tombstone. (A task moved to
// the other calendar and back returns to its first ID, with a higher
// version: each move raises it.)
type liveReplica struct {
	tokens    map[string]string // calendar ID -> the last token delivered
	versions  map[string]int    // entry ID -> the last version delivered
	deleted   map[string]bool   // entry ID -> whether its last delivery was its tombstone
	backwards []string
	ended     []string // calendars that ended
}

func newLiveReplica() *liveReplica {
	return &liveReplica{tokens: map[string]string{}, versions: map[string]int{}, deleted: map[string]bool{}}
}

// apply takes one delivery of calendarChanges.
func (r *liveReplica) apply(where string, d map[string]any) {
	cal := str(d, "calendarId")
	switch str(d, "kind") {
	case "ENDED":
		r.ended = append(r.ended, cal)
		delete(r.tokens, cal)
		return
	case "CHANGES":
		r.tokens[cal] = str(d, "syncToken")
	}
	for _, c := range get(d, "changes").([]any) {
		if str(c, "type") != "ENTRY" {
			continue
		}
		id := str(c, "id")
		old, seen := r.versions[id]
		if get(c, "deleted") == true {
			r.deleted[id] = true
			continue
		}
		v := num(c, "node.version")
		if seen && (v < old || v == old && r.deleted[id]) {
			r.backwards = append(r.backwards, fmt.Sprintf("%s: entry %s went from version %d (deleted: %v) to %d", where, id, old, r.deleted[id], v))
		}
		r.versions[id], r.deleted[id] = v, false
	}
}

// live returns the entries the replica holds, by ID, with their versions.
func (r *liveReplica) live() map[string]int {
	out := map[string]int{}
	for id, v := range r.versions {
		if !r.deleted[id] {
			out[id] = v
		}
	}
	return out
}

const versionsSubscription = `subscription($ids: [ID!], $resume: [CalendarSyncTokenInput!]) {
  calendarChanges(calendarIds: $ids, resume: $resume) {
    kind calendarId syncToken changes { type id deleted node { ... on Task { version } } } } }`

// fullRead reads calendars whole into r (their entries and tokens).
func (e *env) fullRead(token string, r *liveReplica, calendars ...string) {
	e.t.Helper()
	for _, cal := range calendars {
		var t any
		for {
			d := e.must(token, `query($c: ID!, $t: String) { calendar(id: $c) { changes(syncToken: $t) {
				changes { type id deleted node { ... on Task { version } } } hasMore syncToken } } }`, map[string]any{"c": cal, "t": t})
			page := get(d, "calendar.changes").(map[string]any)
			r.apply("full read", map[string]any{"kind": "CHANGES", "calendarId": cal, "syncToken": page["syncToken"], "changes": page["changes"]})
			t = page["syncToken"]
			if page["hasMore"] != true {
				break
			}
		}
	}
}

// resumeArgs are a subscription's variables that resume every calendar of r.
func (r *liveReplica) resumeArgs(calendars []string) map[string]any {
	var resume []map[string]any
	for _, cal := range slices.Sorted(maps.Keys(r.tokens)) {
		resume = append(resume, map[string]any{"calendarId": cal, "syncToken": r.tokens[cal]})
	}
	return map[string]any{"ids": calendars, "resume": resume}
}

// entryWriter writes to calendars until stop: it creates tasks, renames
// them, moves them from one calendar to the other and deletes them, each
// writer its own, so that no write fails on a version.
func (e *env) entryWriter(token string, calendars []string, seed uint64, stop <-chan struct{}, wg *sync.WaitGroup, failures *[]string, mu *sync.Mutex) {
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(seed, 7))
		type held struct {
			cal     int
			version int
		}
		mine := map[string]held{}
		fail := func(op string, r response) bool {
			if len(r.Errors) == 0 {
				return false
			}
			mu.Lock()
			*failures = append(*failures, op+": "+r.Raw)
			mu.Unlock()
			return true
		}
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			ids := slices.Sorted(maps.Keys(mine))
			op := rng.IntN(10)
			if len(ids) < 4 {
				op = 0
			}
			switch {
			case op == 0 || len(ids) == 0:
				cal := rng.IntN(len(calendars))
				r := e.do(token, `mutation($c: ID!, $t: String!) { createEntry(input: {calendarId: $c, title: $t,
					timing: {task: {dueDate: "2026-12-01"}}}) { entry { id version } } }`, map[string]any{"c": calendars[cal], "t": fmt.Sprint("w", seed, "-", n)})
				if !fail("create", r) {
					mine[str(r.Data, "createEntry.entry.id")] = held{cal, num(r.Data, "createEntry.entry.version")}
				}
			case op < 6:
				id := ids[rng.IntN(len(ids))]
				r := e.do(token, `mutation($id: ID!, $v: Int!, $t: String!) { updateEntry(input: {id: $id, expectedVersion: $v, title: $t}) { entry { version } } }`,
					map[string]any{"id": id, "v": mine[id].version, "t": fmt.Sprint("renamed ", n)})
				if !fail("rename", r) {
					mine[id] = held{mine[id].cal, num(r.Data, "updateEntry.entry.version")}
				}
			case op < 9:
				id := ids[rng.IntN(len(ids))]
				to := 1 - mine[id].cal
				r := e.do(token, `mutation($id: ID!, $v: Int!, $to: ID!) { moveEntry(input: {id: $id, expectedVersion: $v, toCalendarId: $to}) { entry { id version } } }`,
					map[string]any{"id": id, "v": mine[id].version, "to": calendars[to]})
				if !fail("move", r) {
					delete(mine, id)
					mine[str(r.Data, "moveEntry.entry.id")] = held{to, num(r.Data, "moveEntry.entry.version")}
				}
			default:
				id := ids[rng.IntN(len(ids))]
				r := e.do(token, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
					map[string]any{"id": id, "v": mine[id].version})
				if !fail("delete", r) {
					delete(mine, id)
				}
			}
		}
	})
}

// resumingClient is a subscriber that goes away and comes back with its
// tokens.
type resumingClient struct {
	replica *liveReplica
	conn    *wsClient
	back    time.Time // when to resume, while away
	leave   time.Time // when to go away, while connected
	rounds  int
}

// TestResumeNeverGoesBackwards: writers create, rename, move (between two
// calendars) and delete tasks without pause, while three clients follow
// both calendars, each dropping its connection at random moments and
// resuming with its tokens a moment later. No delivery may take an entry
// back to an older version, or bring it back after its tombstone; once the
// writes stop, every client's copy equals a full read. (8 s of writes; 3 s
// with -short.)
func TestResumeNeverGoesBackwards(t *testing.T) {
	t.Parallel() // seconds of writes and reconnections, each on its own hub and table
	e := newEnv(t)
	w := e.world("back")
	d := e.must(w.owner, `mutation { createCalendar(input: {name: "Other"}) { calendar { id } } }`, nil)
	other := str(d, "createCalendar.calendar.id")
	for _, who := range []string{"writer", "reader"} {
		role := map[string]string{"writer": "WRITER", "reader": "READER"}[who]
		e.must(w.owner, `mutation($c: ID!, $e: String!, $r: Role!) { addMember(input: {calendarId: $c, email: $e, role: $r}) { membership { id } } }`,
			map[string]any{"c": other, "e": who + "-back@example.com", "r": role})
	}
	calendars := []string{w.calendarID, other}
	clients := make([]*resumingClient, 3)
	for i := range clients {
		clients[i] = &resumingClient{replica: newLiveReplica()}
		e.fullRead(w.reader, clients[i].replica, calendars...)
	}

	stop := make(chan struct{})
	var writers sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for seed := range uint64(2) {
		e.entryWriter(w.writer, calendars, seed, stop, &writers, &failures, &mu)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	run := 8 * time.Second
	if testing.Short() {
		run = 3 * time.Second
	}
	for end := time.Now().Add(run); time.Now().Before(end); {
		for i, c := range clients {
			switch {
			case c.conn == nil && time.Now().After(c.back):
				c.conn = e.dial(w.reader)
				c.conn.subscribe("1", versionsSubscription, c.replica.resumeArgs(calendars))
				c.rounds++
				c.leave = time.Now().Add(time.Duration(200+rng.IntN(400)) * time.Millisecond)
			case c.conn != nil:
				c.drain(t, fmt.Sprintf("client %d, round %d", i, c.rounds), 5*time.Millisecond)
				if time.Now().After(c.leave) {
					_ = c.conn.conn.CloseNow()
					c.conn, c.back = nil, time.Now().Add(time.Duration(50+rng.IntN(400))*time.Millisecond)
				}
			}
		}
	}
	close(stop)
	writers.Wait()
	if len(failures) > 0 {
		t.Fatalf("writes failed:\n%s", strings.Join(failures, "\n"))
	}
	full := newLiveReplica()
	e.fullRead(w.reader, full, calendars...)
	for i, c := range clients {
		if c.conn == nil {
			c.conn = e.dial(w.reader)
			c.conn.subscribe("1", versionsSubscription, c.replica.resumeArgs(calendars))
		}
		// The clients wait out their quiet spells side by side.
		t.Run(fmt.Sprint("client ", i), func(t *testing.T) {
			t.Parallel()
			c.drain(t, fmt.Sprintf("client %d, at the end", i), 2*time.Second) // past a poll
			if len(c.replica.backwards) > 0 {
				t.Errorf("client %d (%d resumptions): deliveries went backwards:\n%s", i, c.rounds, strings.Join(c.replica.backwards, "\n"))
			}
			if got, want := c.replica.live(), full.live(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("client %d: its copy has %d entries, a full read %d:\n%v\n%v", i, len(got), len(want), got, want)
			}
			if c.rounds < 3 {
				t.Errorf("client %d resumed only %d times", i, c.rounds)
			}
		})
	}
}

// drain applies every delivery that comes until none has come for quiet.
func (c *resumingClient) drain(t *testing.T, where string, quiet time.Duration) {
	t.Helper()
	for {
		m, err := c.conn.next(quiet)
		if err == errNothing {
			return
		}
		if err != nil || m.Type != "next" {
			t.Fatalf("%s: %s %s %v, want deliveries", where, m.Type, m.Payload, err)
		}
		var r struct {
			Data   map[string]map[string]any `json:"data"`
			Errors []any                     `json:"errors"`
		}
		if err := json.Unmarshal(m.Payload, &r); err != nil || len(r.Errors) > 0 {
			t.Fatalf("%s: delivery %s", where, m.Payload)
		}
		c.replica.apply(where, r.Data["calendarChanges"])
	}
}
