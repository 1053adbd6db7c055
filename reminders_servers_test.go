package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/calgraph/calgraph/internal/auth"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestRemindersAcrossServers: two server processes on one DynamoDB Local
// table, their clocks run ahead to the night Paris changes to summer time
// (01:00 UTC on 28 March 2027, wall clocks jump from 02:00 to 03:00), fire
// 200 reminders (four members' default reminders, at the start and a minute
// before, on five minutely series, two with exceptions, and sixteen single
// entries) that fall due over two minutes around the change, while each
// server is killed in turn and started again. Every member follows their
// reminders over graphql-transport-ws, going to the other server when
// theirs dies and resuming from their last token. Every reminder reaches
// its member once, none before its time, none lost; the lateness is
// reported (the README's figure). Then a dismissal on one device reaches
// the member's other device.
func TestRemindersAcrossServers(t *testing.T) {
	if os.Getenv(dynamotest.EnvEndpoint) == "" {
		t.Skip("two processes share a table on DynamoDB Local only (set " + dynamotest.EnvEndpoint + ")")
	}
	dst := time.Date(2027, 3, 28, 1, 0, 0, 0, time.UTC)
	ahead := time.Until(dst.Add(-150 * time.Second)).Round(time.Second)
	clock := func() time.Time { return time.Now().Add(ahead) }
	dir := t.TempDir()
	env := map[string]string{"CALGRAPH_DATA_DIR": dir, "CALGRAPH_ADDR": "127.0.0.1:0", "CALGRAPH_LOG_LEVEL": "warn",
		"AWS_ENDPOINT_URL_DYNAMODB": os.Getenv(dynamotest.EnvEndpoint), "CALGRAPH_DEV_TOKENS": "true",
		"CALGRAPH_TABLE": fmt.Sprintf("rem%d", time.Now().UnixNano()), "CALGRAPH_TEST_CLOCK_AHEAD": ahead.String()}
	servers := &serverSet{}
	servers.start(t, 0, env)
	servers.start(t, 1, env)
	a := servers.get(0)

	secret, err := auth.LoadOrCreateSecret(filepath.Join(dir, "dev-signing-key"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"ada", "bob", "cat", "dan"}
	tokens := map[string]string{}
	for _, n := range names {
		if tokens[n], err = auth.Mint(secret, n+"@example.com", n, time.Now(), time.Hour); err != nil {
			t.Fatal(err)
		}
		a.as(tokens[n]).mustGQL(t, `{ viewer { user { id } } }`, nil)
	}
	d := a.as(tokens["ada"]).mustGQL(t, `mutation { createCalendar(input: {name: "Night shift", timeZone: "Europe/Paris"}) { calendar { id } } }`, nil)
	cal := field(d, "createCalendar", "calendar", "id").(string)
	for _, n := range names[1:] {
		a.as(tokens["ada"]).mustGQL(t, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
			map[string]any{"c": cal, "e": n + "@example.com"})
	}
	for _, n := range names {
		a.as(tokens[n]).mustGQL(t, `mutation($c: ID!) { updateCalendarSettings(input: {calendarId: $c, expectedVersion: 0,
			defaultReminders: [{minutes: 0}, {minutes: 1}]}) { membership { id } } }`, map[string]any{"c": cal})
	}
	// Every member follows their reminders from the start of their log.
	subs := map[string]*reminderFollower{}
	for i, n := range names {
		d := a.as(tokens[n]).mustGQL(t, `{ viewer { calendarListChanges { syncToken } } }`, nil)
		subs[n] = followReminders(t, servers, i%2, tokens[n], field(d, "viewer", "calendarListChanges", "syncToken").(string), clock)
	}
	second := followReminders(t, servers, 1, tokens["ada"], subs["ada"].startToken, clock)

	at := func(s int) string { return dst.Add(time.Duration(s) * time.Second).Format(time.RFC3339) }
	create := func(title string, start int, rule string) string {
		in := map[string]any{"calendarId": cal, "title": title,
			"timing": map[string]any{"timed": map[string]any{"start": at(start), "end": at(start + 30), "timeZone": "Europe/Paris"}}}
		if rule != "" {
			in["recurrence"] = map[string]any{"rule": rule}
		}
		d := a.as(tokens["ada"]).mustGQL(t, `mutation($in: CreateEntryInput!) { createEntry(input: $in) { entry { id } } }`, map[string]any{"in": in})
		return field(d, "createEntry", "entry", "id").(string)
	}
	// Five series of two minutely occurrences, from 20 s before the change
	// (the first three straddle it), and sixteen single entries.
	for k := range 5 {
		create(fmt.Sprintf("series %d", k), -20+7*k, "FREQ=MINUTELY;COUNT=2")
	}
	for k := range 16 {
		create(fmt.Sprintf("single %d", k), -45+7*k, "")
	}
	occurrences := func() []map[string]any {
		d := a.as(tokens["ada"]).mustGQL(t, `query($c: ID!, $from: DateTime!, $to: DateTime!) { calendar(id: $c) {
			entries(range: {instants: {start: $from, end: $to}}) { entries { id ... on TimedEntry { start version } } } } }`,
			map[string]any{"c": cal, "from": at(-300), "to": at(300)})
		var out []map[string]any
		for _, e := range field(d, "calendar", "entries", "entries").([]any) {
			out = append(out, e.(map[string]any))
		}
		return out
	}
	// Exceptions: series 0's second occurrence moved 20 s later, series 1's
	// cancelled.
	for _, e := range occurrences() {
		switch e["start"] {
		case at(40):
			a.as(tokens["ada"]).mustGQL(t, `mutation($id: ID!, $v: Int!, $s: DateTime!, $e: DateTime!) { updateEntry(input: {id: $id, expectedVersion: $v,
				timing: {timed: {start: $s, end: $e, timeZone: "Europe/Paris"}}}) { entry { id } } }`,
				map[string]any{"id": e["id"], "v": e["version"], "s": at(60), "e": at(90)})
		case at(47):
			a.as(tokens["ada"]).mustGQL(t, `mutation($id: ID!, $v: Int!) { deleteEntry(input: {id: $id, expectedVersion: $v}) { deletedEntryId } }`,
				map[string]any{"id": e["id"], "v": e["version"]})
		}
	}
	// What must fire: every occurrence's two reminders, for every member.
	var want []string
	for _, e := range occurrences() {
		start, _ := time.Parse(time.RFC3339, e["start"].(string))
		for _, m := range []int{0, 1} {
			want = append(want, start.Add(-time.Duration(m)*time.Minute).UTC().Format(time.RFC3339))
		}
	}
	sort.Strings(want)
	if len(want)*len(names) != 200 {
		t.Fatalf("%d reminders to fire, want 200", len(want)*len(names))
	}
	first, _ := time.Parse(time.RFC3339, want[0])
	if lead := first.Sub(clock()); lead < 5*time.Second {
		t.Fatalf("setting up took too long: the first reminder is due %s from now", lead)
	}

	// Kill each server in turn, while reminders fall due, and start it again.
	for _, step := range []struct {
		at      int
		n       int
		restart bool
	}{{-40, 0, false}, {-10, 0, true}, {15, 1, false}, {35, 1, true}} {
		time.Sleep(time.Until(dst.Add(time.Duration(step.at) * time.Second).Add(-ahead)))
		if step.restart {
			servers.start(t, step.n, env)
		} else {
			servers.kill(step.n)
		}
	}
	last, _ := time.Parse(time.RFC3339, want[len(want)-1])
	time.Sleep(time.Until(last.Add(-ahead).Add(10 * time.Second)))

	var lateness []time.Duration
	for _, n := range names {
		got := subs[n].fired()
		var dues []string
		for id, deliveries := range got {
			if len(deliveries) != 1 {
				t.Errorf("%s: reminder %s delivered %d times, want once", n, id, len(deliveries))
			}
			r := deliveries[0]
			if r.received.Before(r.due) || r.firedAt.Before(r.due) {
				t.Errorf("%s: reminder due at %s fired at %s, received at %s: early", n, r.due, r.firedAt, r.received)
			}
			dues = append(dues, r.due.UTC().Format(time.RFC3339))
			lateness = append(lateness, r.received.Sub(r.due))
		}
		sort.Strings(dues)
		if !slices.Equal(dues, want) {
			t.Errorf("%s received reminders due at\n%v\nwant\n%v", n, dues, want)
		}
	}
	slices.Sort(lateness)
	pct := func(p float64) time.Duration { return lateness[int(p*float64(len(lateness)-1))] }
	t.Logf("reminder lateness (due to received by the subscriber), %d reminders, each server killed and restarted once: p50 %s, p90 %s, p99 %s, max %s",
		len(lateness), pct(0.5), pct(0.9), pct(0.99), lateness[len(lateness)-1])

	// A dismissal on one device reaches the member's other device.
	var id string
	for k := range subs["ada"].fired() {
		id = k
		break
	}
	sent := time.Now()
	servers.get(0).as(tokens["ada"]).mustGQL(t, `mutation($id: ID!) { dismissReminder(input: {id: $id}) { alert { state } } }`, map[string]any{"id": id})
	if !second.waitFor(id, "DISMISSED", 5*time.Second) {
		t.Fatalf("the dismissal on one device did not reach the other")
	}
	t.Logf("a dismissal reached the member's other device in %s", time.Since(sent).Round(time.Millisecond))
}

// serverSet is the test's servers by slot, started and killed in turn.
type serverSet struct {
	mu    sync.Mutex
	slots [2]*runningServer
}

type runningServer struct {
	server
	pid int
}

func (s *serverSet) start(t *testing.T, n int, env map[string]string) {
	srv, pid := startServerPID(t, env)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots[n] = &runningServer{srv, pid}
}

func (s *serverSet) kill(n int) {
	s.mu.Lock()
	r := s.slots[n]
	s.slots[n] = nil
	s.mu.Unlock()
	_ = syscall.Kill(r.pid, syscall.SIGKILL)
}

// get returns the server in slot n, or nil while it is down.
func (s *serverSet) get(n int) *server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots[n] == nil {
		return nil
	}
	return &s.slots[n].server
}

func (s server) as(token string) server { s.token = token; return s }

func (s server) mustGQL(t *testing.T, q string, vars map[string]any) map[string]any {
	t.Helper()
	d, code := s.gql(t, q, vars)
	if code != "" {
		t.Fatalf("%s: %s", q, code)
	}
	return d
}

// receipt is one delivery of a reminder to a follower.
type receipt struct {
	due, firedAt, received time.Time
	state                  string
}

// reminderFollower follows one member's reminders on one device, moving to
// the other server when its own goes, resuming from its last token.
type reminderFollower struct {
	startToken string
	mu         sync.Mutex
	got        map[string][]receipt
}

func followReminders(t *testing.T, servers *serverSet, prefer int, token, resume string, clock func() time.Time) *reminderFollower {
	f := &reminderFollower{startToken: resume, got: map[string][]receipt{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for n := prefer; ctx.Err() == nil; n = 1 - n {
			s := servers.get(n)
			if s == nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			resume = f.follow(ctx, *s, token, resume, clock)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return f
}

// follow subscribes on s until the connection ends, and returns the last token.
func (f *reminderFollower) follow(ctx context.Context, s server, token, resume string, clock func() time.Time) string {
	conn, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(s.url, "http")+"/query",
		&coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return resume
	}
	defer conn.CloseNow()
	write := func(msg map[string]any) error {
		m, _ := json.Marshal(msg)
		return conn.Write(ctx, coderws.MessageText, m)
	}
	if write(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + token}}) != nil ||
		write(map[string]any{"type": "subscribe", "id": "r", "payload": map[string]any{
			"query":     `subscription($r: String) { reminders(resume: $r) { syncToken alerts { id state dueAt firedAt } } }`,
			"variables": map[string]any{"r": resume}}}) != nil {
		return resume
	}
	for {
		_, m, err := conn.Read(ctx)
		if err != nil {
			return resume
		}
		received := clock()
		var msg struct {
			Type    string
			Payload struct {
				Data struct {
					Reminders struct {
						SyncToken string
						Alerts    []struct{ ID, State, DueAt, FiredAt string }
					}
				}
			}
		}
		_ = json.Unmarshal(m, &msg)
		switch msg.Type {
		case "ping":
			_ = conn.Write(ctx, coderws.MessageText, []byte(`{"type":"pong"}`))
		case "next":
			r := msg.Payload.Data.Reminders
			f.mu.Lock()
			for _, a := range r.Alerts {
				due, _ := time.Parse(time.RFC3339Nano, a.DueAt)
				fired, _ := time.Parse(time.RFC3339Nano, a.FiredAt)
				f.got[a.ID] = append(f.got[a.ID], receipt{due: due, firedAt: fired, received: received, state: a.State})
			}
			f.mu.Unlock()
			resume = r.SyncToken
		case "error", "complete":
			return resume
		}
	}
}

// fired returns each reminder's FIRED deliveries.
func (f *reminderFollower) fired() map[string][]receipt {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]receipt{}
	for id, rs := range f.got {
		for _, r := range rs {
			if r.state == "FIRED" {
				out[id] = append(out[id], r)
			}
		}
	}
	return out
}

// waitFor waits until the reminder id was delivered in state.
func (f *reminderFollower) waitFor(id, state string, within time.Duration) bool {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		f.mu.Lock()
		rs := f.got[id]
		f.mu.Unlock()
		if len(rs) > 0 && rs[len(rs)-1].state == state {
			return true
		}
	}
	return false
}
