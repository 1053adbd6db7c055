package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// actingAs returns e's store and a context acting as the user of email (one
// of e's tokens), for seeding many objects quickly, with e's commit hook.
func (e *env) actingAs(email string) context.Context {
	e.t.Helper()
	id, _, err := e.store.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: email}, Email: email})
	if err != nil {
		e.t.Fatal(err)
	}
	return calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
}

// seedTasks creates n tasks in a calendar, eight at a time.
func (e *env) seedTasks(as context.Context, calendarID string, n int) {
	e.t.Helper()
	g, ctx := errgroup.WithContext(as)
	g.SetLimit(8)
	for i := range n {
		g.Go(func() error {
			_, _, err := e.store.CreateEntry(ctx, taskIn(calendarID, fmt.Sprint("backlog ", i)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		e.t.Fatal(err)
	}
}

func taskIn(calendarID, title string) calendar.NewEntry {
	due := calendar.Date{Year: 2026, Month: 12, Day: 1}
	return calendar.NewEntry{CalendarID: calendarID, Title: title, Timing: calendar.Timing{Task: &calendar.TaskDue{Date: &due}}}
}

// TestResumeWithALargeBacklog: a client resumes a calendar 3,000 changes
// behind (500 with -short: seeding them is most of the test's time), and as it subscribes, ten other calendars it follows take 400
// writes as fast as four writers go (hundreds of the Hub's reads, while the
// backlog is read and sent). It reads as fast as deliveries come, so it is
// not cut off as too slow while it catches up: it gets the whole backlog,
// and every write made to the others once it subscribed.
func TestResumeWithALargeBacklog(t *testing.T) {
	t.Parallel() // seconds of seeding and polls, on its own table and hub
	e := newEnv(t)
	w := e.world("backlog")
	calendars := []string{w.calendarID}
	for i := range 10 {
		d := e.must(w.owner, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": fmt.Sprint("busy ", i)})
		calendars = append(calendars, str(d, "createCalendar.calendar.id"))
		e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "reader-backlog@example.com", role: READER}) { membership { id } } }`,
			map[string]any{"c": calendars[i+1]})
	}
	replica := newLiveReplica()
	e.fullRead(w.reader, replica, w.calendarID)
	owner := e.actingAs("owner-backlog@example.com")
	size := 3000
	if testing.Short() {
		size = 500
	}
	e.seedTasks(owner, mustCalendarID(t, w.calendarID), size)

	c := e.dial(w.reader)
	c.subscribe("1", `subscription($ids: [ID!], $resume: [CalendarSyncTokenInput!]) {
		calendarChanges(calendarIds: $ids, resume: $resume) {
		kind calendarId syncToken changes { type id deleted node { ... on Task { title version } } } } }`, replica.resumeArgs(calendars))
	for e.hub.Subscriptions() == 0 {
		time.Sleep(time.Millisecond)
	}
	var writers errgroup.Group
	defer func() { _ = writers.Wait() }() // before the table goes, even when the test fails
	var written []string
	for n := range 400 {
		written = append(written, fmt.Sprint("busy write ", n))
	}
	for i := range 4 {
		writers.Go(func() error {
			for n := i; n < len(written); n += 4 {
				if _, _, err := e.store.CreateEntry(owner, taskIn(mustCalendarID(t, calendars[1+n%10]), written[n])); err != nil {
					return err
				}
			}
			return nil
		})
	}
	titles := map[string]bool{}
	backlog := func() int {
		n := 0
		for title := range titles {
			if strings.HasPrefix(title, "backlog ") {
				n++
			}
		}
		return n
	}
	begin := time.Now()
	for backlog() < size && time.Since(begin) < time.Minute {
		c.drainTitles(t, replica, titles, 100*time.Millisecond)
	}
	caughtUp := time.Since(begin)
	if err := writers.Wait(); err != nil {
		t.Fatal(err)
	}
	missing := func() []string {
		var m []string
		for _, title := range written {
			if !titles[title] {
				m = append(m, title)
			}
		}
		return m
	}
	// Until every write has come (a poll or more after the last), or for
	// half a minute.
	for end := time.Now().Add(30 * time.Second); len(missing()) > 0 && time.Now().Before(end); {
		c.drainTitles(t, replica, titles, 100*time.Millisecond)
	}
	if n := backlog(); n < size {
		t.Fatalf("the backlog: %d tasks delivered, want %d", n, size)
	}
	if missing := missing(); len(missing) > 0 {
		t.Fatalf("%d of the writes to the busy calendars not delivered: %v", len(missing), missing)
	}
	t.Logf("the backlog came in %v", caughtUp)
}

// drainTitles applies every delivery that comes until none has come for
// quiet, noting the titles of the tasks delivered; the connection must stay
// open.
func (c *wsClient) drainTitles(t *testing.T, r *liveReplica, titles map[string]bool, quiet time.Duration) {
	t.Helper()
	for {
		m, err := c.next(quiet)
		if err == errNothing {
			return
		}
		if err != nil || m.Type != "next" {
			t.Fatalf("while catching up: %s %s %v, want deliveries", m.Type, m.Payload, err)
		}
		var d struct {
			Data struct {
				CalendarChanges map[string]any `json:"calendarChanges"`
			} `json:"data"`
		}
		if err := json.Unmarshal(m.Payload, &d); err != nil {
			t.Fatal(err)
		}
		for _, ch := range get(d.Data.CalendarChanges, "changes").([]any) {
			titles[str(ch, "node.title")] = true
		}
		r.apply("catching up", d.Data.CalendarChanges)
	}
}

// TestResumeAfterLosingCalendars: a client follows four calendars, goes
// away, and meanwhile is removed from one, demoted to FREE_BUSY on
// another, and a third is deleted. Resuming with its four tokens, with the
// calendars named or following all, it gets ENDED for those three and the
// changes it missed of the fourth, then its live changes.
func TestResumeAfterLosingCalendars(t *testing.T) {
	t.Parallel() // its own server and table; it mostly waits for deliveries and quiet spells
	for _, named := range []bool{true, false} {
		t.Run(map[bool]string{true: "named", false: "all"}[named], func(t *testing.T) {
			e := newEnv(t)
			w := e.world("lose")
			kept := w.calendarID
			var lost []string
			memberships := map[string]string{}
			for _, name := range []string{"removed", "demoted", "deleted"} {
				d := e.must(w.owner, `mutation($n: String!) { createCalendar(input: {name: $n}) { calendar { id } } }`, map[string]any{"n": name})
				cal := str(d, "createCalendar.calendar.id")
				d = e.must(w.owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "reader-lose@example.com", role: READER}) { membership { id } } }`,
					map[string]any{"c": cal})
				lost, memberships[name] = append(lost, cal), str(d, "addMember.membership.id")
			}
			calendars := append([]string{kept}, lost...)
			replica := newLiveReplica()
			e.fullRead(w.reader, replica, calendars...)

			e.must(w.writer, createTask, map[string]any{"c": kept, "t": "missed"})
			e.must(w.owner, `mutation($m: ID!) { removeMember(input: {membershipId: $m, expectedVersion: 1}) { removedMembershipId } }`,
				map[string]any{"m": memberships["removed"]})
			e.must(w.owner, `mutation($m: ID!) { changeMemberRole(input: {membershipId: $m, expectedVersion: 1, role: FREE_BUSY}) { membership { id } } }`,
				map[string]any{"m": memberships["demoted"]})
			e.must(w.owner, `mutation($c: ID!) { deleteCalendar(input: {id: $c, expectedVersion: 1}) { deletedCalendarId } }`, map[string]any{"c": lost[2]})

			args := replica.resumeArgs(calendars)
			if !named {
				delete(args, "ids")
			}
			c := e.dial(w.reader)
			c.subscribe("1", changesSubscription, args)
			var ended []string
			for len(ended) < 3 {
				d := c.delivery("1", 3*time.Second)
				if str(d, "kind") != "ENDED" {
					t.Fatalf("before the ENDED of the calendars lost: %v", d)
				}
				ended = append(ended, str(d, "calendarId"))
			}
			if slices.Sort(ended); fmt.Sprint(ended) != fmt.Sprint(slices.Sorted(slices.Values(lost))) {
				t.Fatalf("ENDED %v, want the three lost %v", ended, lost)
			}
			d := c.delivery("1", 3*time.Second)
			if str(d, "kind") != "CHANGES" || str(d, "calendarId") != kept || !strings.HasSuffix(fmt.Sprint(changed(d)), "missed]") {
				t.Fatalf("the catch-up of the calendar kept: %v", d)
			}
			e.must(w.writer, createTask, map[string]any{"c": kept, "t": "live"})
			d = c.delivery("1", 3*time.Second)
			if str(d, "calendarId") != kept || fmt.Sprint(changed(d)) != "[live]" {
				t.Fatalf("live, after the resumption: %v", d)
			}
			c.quiet(700 * time.Millisecond)
		})
	}
}

// TestSubscriptionBounds: a subscription names at most 500 calendars, and
// resumes at most 500; past that it fails with BAD_USER_INPUT naming the
// argument, before anything is read.
func TestSubscriptionBounds(t *testing.T) {
	e := newEnv(t)
	w := e.world("bounds")
	var ids []string
	var resume []map[string]any
	for range 501 {
		id := model.CalendarGID(uuid.Must(uuid.NewV7()).String())
		ids = append(ids, id)
		resume = append(resume, map[string]any{"calendarId": id, "syncToken": "x"})
	}
	c := e.dial(w.reader)
	for _, tt := range []struct {
		vars  map[string]any
		field string
	}{{map[string]any{"ids": ids}, "calendarIds"}, {map[string]any{"resume": resume}, "resume"}} {
		c.subscribe(tt.field, changesSubscription, tt.vars)
		m, err := c.next(3 * time.Second)
		if err != nil || m.Type != "next" || !strings.Contains(string(m.Payload), `"code":"BAD_USER_INPUT","field":"`+tt.field+`"`) {
			t.Fatalf("501 %s: %s %s %v, want BAD_USER_INPUT", tt.field, m.Type, m.Payload, err)
		}
		if m, err := c.next(3 * time.Second); err != nil || m.Type != "complete" {
			t.Fatalf("after the refusal: %s %v, want complete", m.Type, err)
		}
	}
}
