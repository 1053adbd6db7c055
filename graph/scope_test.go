package graph_test

import (
	"slices"
	"testing"
	"time"
)

// TestMemberMutationRequestPlan: a membership mutation's payload shows the
// membership's calendar as the write's permission check read it (the store
// returns it with the write): the check and the transaction, no read after.
func TestMemberMutationRequestPlan(t *testing.T) {
	e := newEnv(t)
	w := e.world("members-plan")
	e.must(e.token("extra-members-plan@example.com"), provision, nil)
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
	}{
		{"add", `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "extra-members-plan@example.com", role: READER}) {
			membership { id calendar { id name } } } }`, map[string]any{"c": w.calendarID}},
		{"change role", `mutation($m: ID!, $v: Int!) { changeMemberRole(input: {membershipId: $m, role: WRITER, expectedVersion: $v}) {
			membership { id calendar { id name } } } }`, map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.rec.Reset()
			d := e.must(w.owner, tc.query, tc.vars)
			var ops []string
			for _, c := range e.rec.Calls() {
				ops = append(ops, c.Op)
			}
			if want := []string{"BatchGetItem", "TransactWriteItems"}; !slices.Equal(ops, want) {
				t.Fatalf("calls %v, want %v (%v)", ops, want, d)
			}
		})
	}
}

// TestEachDeliveryReadsAfresh: each delivery of a subscription reads with
// loaders of its own (requestScope): a user renamed between two deliveries
// shows under the new name in the second, which the subscription's loaders,
// holding what the first read, would not show.
func TestEachDeliveryReadsAfresh(t *testing.T) {
	e := newEnv(t)
	w := e.world("fresh")
	c := e.dial(w.owner)
	c.subscribe("1", `subscription($ids: [ID!]) { calendarChanges(calendarIds: $ids) {
		changes { node { ... on Membership { role version user { name } } } } } }`, map[string]any{"ids": []string{w.calendarID}})
	time.Sleep(100 * time.Millisecond) // the subscription is registered before the change
	const changeRole = `mutation($m: ID!, $v: Int!, $r: Role!) {
		changeMemberRole(input: {membershipId: $m, role: $r, expectedVersion: $v}) { membership { version } } }`
	member := func(d map[string]any) (name string, version int) {
		t.Helper()
		changes, _ := d["changes"].([]any)
		if len(changes) != 1 {
			t.Fatalf("delivery: %v, want one change", d)
		}
		return str(changes[0], "node.user.name"), num(changes[0], "node.version")
	}

	e.must(w.owner, changeRole, map[string]any{"m": w.readerMembershipID, "v": w.readerMembershipVersion, "r": "WRITER"})
	first, version := member(c.delivery("1", 2*time.Second))
	e.must(w.reader, `mutation { updateProfile(input: {expectedVersion: 1, name: "Renamed"}) { user { name } } }`, nil)
	e.must(w.owner, changeRole, map[string]any{"m": w.readerMembershipID, "v": version, "r": "READER"})
	second, _ := member(c.delivery("1", 2*time.Second))
	if first == "Renamed" || second != "Renamed" {
		t.Fatalf("the member's name in two deliveries around their renaming: %q then %q, want the new name in the second only", first, second)
	}
}
