package graph_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const createInvitation = `mutation($c: ID!, $r: Role!, $n: Int) { createInvitation(input: {calendarId: $c, role: $r, maxUses: $n}) {
	token invitation { id role uses maxUses validUntil calendar { id } } } }`

const acceptInvitation = `mutation($t: String!) { acceptInvitation(input: {token: $t}) { membership { role calendar { name } } } }`

func TestInvitations(t *testing.T) {
	e := newEnv(t)
	w := e.world("inv")
	for i, a := range actors {
		t.Run("create as "+a.name, func(t *testing.T) {
			r := e.do(a.token(w), createInvitation, map[string]any{"c": w.calendarID, "r": "READER"})
			if want := (want{ok, forbid, forbid, absent, unauth})[i]; r.code() != want {
				t.Fatalf("got %s, want %q", r.Raw, want)
			}
		})
	}
	d := e.must(w.owner, createInvitation, map[string]any{"c": w.calendarID, "r": "WRITER", "n": 2})
	token := str(d, "createInvitation.token")
	if num(d, "createInvitation.invitation.maxUses") != 2 || str(d, "createInvitation.invitation.role") != "WRITER" {
		t.Fatalf("created %v", d)
	}
	first, second, third := e.token("first-inv@example.com"), e.token("second-inv@example.com"), e.token("third-inv@example.com")
	d = e.must(first, acceptInvitation, map[string]any{"t": token})
	if str(d, "acceptInvitation.membership.role") != "WRITER" || str(d, "acceptInvitation.membership.calendar.name") != "Team" {
		t.Fatalf("accepted %v", d)
	}
	if r := e.do(first, acceptInvitation, map[string]any{"t": token}); r.code() != "ALREADY_EXISTS" {
		t.Fatalf("accepting twice: %s", r.Raw)
	}
	e.must(second, acceptInvitation, map[string]any{"t": token})
	used := e.do(third, acceptInvitation, map[string]any{"t": token})
	d = e.must(w.owner, `query($c: ID!) { calendar(id: $c) { invitations { edges { node { id uses maxUses } } } } }`, map[string]any{"c": w.calendarID})
	if num(d, "calendar.invitations.edges.1.node.uses") != 2 || num(d, "calendar.invitations.edges.1.node.maxUses") != 2 {
		t.Fatalf("invitations (oldest first) %v", d)
	}
	if r := e.do(w.writer, `query($c: ID!) { calendar(id: $c) { invitations { edges { node { id } } } } }`, map[string]any{"c": w.calendarID}); r.code() != "FORBIDDEN" {
		t.Fatalf("a writer listing invitations: %s", r.Raw)
	}

	// Revoked, expired, used up, unknown or malformed: one and the same answer.
	d = e.must(w.owner, createInvitation, map[string]any{"c": w.calendarID, "r": "READER"})
	revoked := str(d, "createInvitation.token")
	e.must(w.owner, `mutation($id: ID!) { revokeInvitation(input: {id: $id}) { revokedInvitationId } }`,
		map[string]any{"id": str(d, "createInvitation.invitation.id")})
	d = e.must(w.owner, createInvitation, map[string]any{"c": w.calendarID, "r": "READER"})
	expired := str(d, "createInvitation.token")
	e.expireInvitations(w.calendarID)
	for name, r := range map[string]response{
		"used up":   used,
		"revoked":   e.do(third, acceptInvitation, map[string]any{"t": revoked}),
		"expired":   e.do(third, acceptInvitation, map[string]any{"t": expired}),
		"unknown":   e.do(third, acceptInvitation, map[string]any{"t": "T0tlbm93bl90b2tlbl90aGF0X2lzXzMyX2J5dGVzXyEhISE"}),
		"malformed": e.do(third, acceptInvitation, map[string]any{"t": "<script>"}),
	} {
		if r.code() != "NOT_FOUND" || len(r.Errors) == 0 || r.Errors[0].Message != used.Errors[0].Message {
			t.Errorf("%s token: %s", name, r.Raw)
		}
	}
	if r := e.do(third, `query($c: ID!) { calendar(id: $c) { id } }`, map[string]any{"c": w.calendarID}); r.code() != "NOT_FOUND" {
		t.Fatalf("the third user became a member: %s", r.Raw)
	}
}

// expireInvitations moves the validity of every invitation of a calendar into
// the past, as time would.
func (e *env) expireInvitations(calendarID string) {
	e.t.Helper()
	db := dynamoClient(e)
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(e.store.Table())})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, it := range out.Items {
		if v, ok := it["entityType"].(*types.AttributeValueMemberS); ok && v.Value == "INVITATION" {
			it["validUntil"] = &types.AttributeValueMemberN{Value: fmt.Sprint(time.Now().Add(-time.Minute).UnixMilli())}
			if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.store.Table()), Item: it}); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

// TestSingleUseInvitationAcceptedConcurrently has ten users accept one
// single-use invitation at once: exactly one becomes a member.
func TestSingleUseInvitationAcceptedConcurrently(t *testing.T) {
	e := newEnv(t)
	w := e.world("invc")
	token := str(e.must(w.owner, createInvitation, map[string]any{"c": w.calendarID, "r": "READER"}), "createInvitation.token")
	const n = 10
	codes := make([]string, n)
	tokens := make([]string, n)
	for i := range n {
		tokens[i] = e.token(fmt.Sprintf("racer-%d@example.com", i))
		e.must(tokens[i], provision, nil)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { codes[i] = e.do(tokens[i], acceptInvitation, map[string]any{"t": token}).code() })
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case "":
			won++
		case "NOT_FOUND":
		default:
			t.Errorf("got %s, want success or NOT_FOUND", c)
		}
	}
	d := e.must(w.owner, `query($c: ID!) { calendar(id: $c) { members(first: 100) { edges { node { role } } } } }`, map[string]any{"c": w.calendarID})
	if members := len(get(d, "calendar.members.edges").([]any)); won != 1 || members != 4 {
		t.Fatalf("%d of %d accepted, %d members; want exactly one more than the 3", won, n, members)
	}
}

func TestChangeEmail(t *testing.T) {
	e := newEnv(t)
	old := e.tokenFor("subject-ce", "old@example.com", time.Now().Add(time.Hour))
	d := e.must(old, `{ viewer { user { email version } } }`, nil)
	change := `mutation($e: String!, $v: Int!) { changeEmail(input: {email: $e, expectedVersion: $v}) { user { email version } } }`
	if r := e.do(old, change, map[string]any{"e": "new@example.com", "v": 1}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("an email the token does not carry: %s", r.Raw)
	}
	e.must(e.token("taken@example.com"), provision, nil)
	taken := e.tokenFor("subject-ce", "taken@example.com", time.Now().Add(time.Hour))
	if r := e.do(taken, change, map[string]any{"e": "taken@example.com", "v": 1}); r.code() != "ALREADY_EXISTS" {
		t.Fatalf("an email another account has: %s", r.Raw)
	}
	unverified := e.tokenFor("subject-ce", "new@example.com", time.Now().Add(time.Hour), "email_verified", false)
	if r := e.do(unverified, change, map[string]any{"e": "new@example.com", "v": 1}); r.code() != "BAD_USER_INPUT" {
		t.Fatalf("an unverified email: %s", r.Raw)
	}
	fresh := e.tokenFor("subject-ce", "new@example.com", time.Now().Add(time.Hour))
	d = e.must(fresh, change, map[string]any{"e": "NEW@example.com", "v": num(d, "viewer.user.version")})
	if str(d, "changeEmail.user.email") != "new@example.com" {
		t.Fatalf("changed %v", d)
	}
	// The old address is free for someone else; the new one finds the user.
	e.must(e.token("old@example.com"), provision, nil)
	owner := e.token("owner-ce@example.com")
	cal := str(e.must(owner, `mutation { createCalendar(input: {name: "C"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	e.must(owner, `mutation($c: ID!) { addMember(input: {calendarId: $c, email: "new@example.com", role: READER}) { membership { id } } }`,
		map[string]any{"c": cal})
	if r := e.do(fresh, `query($c: ID!) { calendar(id: $c) { name } }`, map[string]any{"c": cal}); r.code() != "" {
		t.Fatalf("the user under the new email was not added: %s", r.Raw)
	}
}
