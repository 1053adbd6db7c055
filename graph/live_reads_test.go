package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// withPoll sets the live hub's poll interval: an hour leaves only this
// instance's commits to wake it, so that a test counts the DynamoDB calls of
// one write's delivery and nothing else.
func withPoll(d time.Duration) func(*envOptions) { return func(o *envOptions) { o.poll = d } }

// fullSubscription selects everything a change holds that reads something
// besides the changed object: the entry's calendar with the viewer's role
// and the description (which needs the role), a member's user and calendar.
const fullSubscription = `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) {
  kind calendarId syncToken
  changes { type id deleted
    node { id
      ... on Task { title version calendar { id name description viewerRole } }
      ... on Membership { role version user { email } calendar { name viewerRole } }
      ... on Calendar { name viewerRole } }
    exceptions { id } } } }`

// subscribers starts n subscriptions of query to the calendar in e, spread
// over users readers (ten subscriptions a connection), and waits until the hub
// runs them all.
func (e *env) subscribers(n int, readers []string, query, calendarID string) []*wsClient {
	e.t.Helper()
	var conns []*wsClient
	for i := range n {
		if i%10 == 0 {
			conns = append(conns, e.dial(readers[(i/10)%len(readers)]))
		}
		conns[len(conns)-1].subscribe(fmt.Sprint("s", i%10), query, map[string]any{"ids": []string{calendarID}})
	}
	deadline := time.Now().Add(20 * time.Second)
	for e.hub.Subscriptions() < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d of %d subscriptions running", e.hub.Subscriptions(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return conns
}

// deliveriesOf reads one delivery of every subscription of conns (ten a
// connection) and returns them.
func deliveriesOf(t *testing.T, conns []*wsClient, n int) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, c := range conns {
		for range min(10, n-10*i) {
			m, err := c.next(10 * time.Second)
			if err != nil || m.Type != "next" {
				t.Fatalf("connection %d: %s %s %v, want a delivery", i, m.Type, m.Payload, err)
			}
			if strings.Contains(string(m.Payload), `"errors"`) {
				t.Fatalf("connection %d: a delivery with errors: %s", i, m.Payload)
			}
			var d map[string]any
			if err := json.Unmarshal(m.Payload, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, get(d, "data.calendarChanges").(map[string]any))
		}
	}
	return out
}

// callsOf counts calls by operation, in a stable order.
func callsOf(calls []dynamo.Call) string {
	by := map[string]int{}
	for _, c := range calls {
		by[c.Op]++
	}
	var out []string
	for op, n := range by {
		out = append(out, fmt.Sprintf("%s %d", op, n))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// TestLiveReadsDoNotGrowWithSubscribers pins the DynamoDB calls of one
// write and its delivery to 1, 10 and 100 subscribers who select the entry
// with its calendar and their role on it, and of a member's role change
// (whose user they select): the same calls whatever the number of
// subscribers, each subscriber getting the objects whole and without error.
// With -short, 1 and 100 subscribers (planSizes).
func TestLiveReadsDoNotGrowWithSubscribers(t *testing.T) {
	var got []string
	sizes := planSizes(1, 10, 100)
	for _, n := range sizes {
		e := newEnv(t, withPoll(time.Hour))
		w := e.world(fmt.Sprint("reads", n))
		var readers []string
		for i := range 10 {
			email := fmt.Sprintf("sub%d-%d@example.com", i, n)
			readers = append(readers, e.token(email))
			e.must(readers[i], provision, nil)
			e.must(w.owner, `mutation($c: ID!, $e: String!) { addMember(input: {calendarId: $c, email: $e, role: READER}) { membership { id } } }`,
				map[string]any{"c": w.calendarID, "e": email})
		}
		conns := e.subscribers(n, readers, fullSubscription, w.calendarID)
		time.Sleep(200 * time.Millisecond) // whatever the setup left comes first
		e.rec.Reset()
		e.must(w.writer, createTask, map[string]any{"c": w.calendarID, "t": "shared"})
		for _, d := range deliveriesOf(t, conns, n) {
			if str(d, "changes.0.node.title") != "shared" || str(d, "changes.0.node.calendar.name") != "Team" || str(d, "changes.0.node.calendar.viewerRole") != "READER" {
				t.Fatalf("%d subscribers: a delivery %v", n, d)
			}
		}
		time.Sleep(200 * time.Millisecond) // nothing more is read
		entry := callsOf(e.rec.Calls())

		e.rec.Reset()
		e.must(w.owner, `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, expectedVersion: $v, role: WRITER}) { membership { id } } }`,
			map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion})
		for _, d := range deliveriesOf(t, conns, n) {
			if str(d, "changes.0.node.role") != "WRITER" || str(d, "changes.0.node.user.email") != "reader-reads"+fmt.Sprint(n)+"@example.com" {
				t.Fatalf("%d subscribers: a delivery %v", n, d)
			}
		}
		time.Sleep(200 * time.Millisecond)
		got = append(got, fmt.Sprintf("entry: %s; member: %s", entry, callsOf(e.rec.Calls())))
		t.Logf("%d subscribers: %s", n, got[len(got)-1])
	}
	if n := graph.EncodedWrites(); n != 0 {
		t.Errorf("%d messages of gqlgen's were decoded and encoded again to rewrite their ids, want none", n)
	}
	if slices.ContainsFunc(got, func(g string) bool { return g != got[0] }) {
		t.Fatalf("DynamoDB calls of a write and its delivery to %v subscribers:\n%s", sizes, strings.Join(got, "\n"))
	}
}
