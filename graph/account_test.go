package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/recurrence"
)

func TestDeleteAccountThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	tok := e.token("leaving@example.com")
	d := e.must(tok, `{ viewer { user { id } } }`, nil)
	before := str(d, "viewer.user.id")
	cal := str(e.must(tok, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	del := `mutation($e: String!) { deleteAccount(input: {confirmEmail: $e}) { deletedUserId deletedCalendarIds } }`
	if r := e.do(tok, del, map[string]any{"e": "wrong@example.com"}); r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "confirmEmail" {
		t.Fatalf("an unconfirmed deletion: %s", r.Raw)
	}
	keyed := `mutation($e: String!) { deleteAccount(input: {confirmEmail: $e, idempotencyKey: "bye"}) { deletedUserId deletedCalendarIds } }`
	d = e.must(tok, keyed, map[string]any{"e": "leaving@example.com"})
	if str(d, "deleteAccount.deletedUserId") != before || len(get(d, "deleteAccount.deletedCalendarIds").([]any)) != 1 ||
		str(d, "deleteAccount.deletedCalendarIds.0") != cal {
		t.Fatalf("deleted %v", d)
	}
	// A retry of the deletion (its answer was lost) answers as the first
	// time. Its own sign-in made the identity a new account, which goes too:
	// the account stays deleted.
	again := e.must(tok, keyed, map[string]any{"e": "leaving@example.com"})
	if str(again, "deleteAccount.deletedUserId") != before || str(again, "deleteAccount.deletedCalendarIds.0") != cal {
		t.Fatalf("the retried deletion: %v", again)
	}
	if n := e.countEntities("USER"); n != 0 {
		t.Fatalf("%d users after the retried deletion, want none", n)
	}
	// The same token signs in a new account: the old one is forgotten. A
	// retry of the deletion now answers as the first time and does not delete
	// that account, which an earlier request made.
	whoAmI := `{ viewer { user { id } calendars { edges { node { role } } } } }`
	d = e.must(tok, whoAmI, nil)
	renewed := str(d, "viewer.user.id")
	if renewed == before || len(get(d, "viewer.calendars.edges").([]any)) != 0 {
		t.Fatalf("after deleting the account: %v", d)
	}
	again = e.must(tok, keyed, map[string]any{"e": "leaving@example.com"})
	if str(again, "deleteAccount.deletedUserId") != before {
		t.Fatalf("the retried deletion: %v", again)
	}
	if d = e.must(tok, whoAmI, nil); str(d, "viewer.user.id") != renewed {
		t.Fatalf("the retried deletion deleted the new account: %v, was %s", d, renewed)
	}
}

// countEntities counts the table's items of an entity type.
func (e *env) countEntities(entityType string) int {
	e.t.Helper()
	var buf bytes.Buffer
	if _, err := e.store.Export(context.Background(), &buf); err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var it struct {
			Item struct {
				EntityType struct{ S string } `json:"entityType"`
			}
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			e.t.Fatalf("export line %q: %v", line, err)
		}
		if it.Item.EntityType.S == entityType {
			n++
		}
	}
	return n
}

// TestRetriedDeleteAccountKeepsAUsedAccount: the account a retried deletion's
// sign-in made is left alone when a request with the same token has made it a
// member of a calendar meanwhile.
func TestRetriedDeleteAccountKeepsAUsedAccount(t *testing.T) {
	var armed atomic.Int32 // transactions to let pass before meanwhile runs, plus one
	var meanwhile func()
	e := newEnv(t, func(o *envOptions) {
		o.client = append(o.client, beforeOperation("TransactWriteItems", func() {
			if armed.Load() > 0 && armed.Add(-1) == 0 {
				meanwhile()
			}
		}))
	})
	tok := e.token("twice@example.com")
	keyed := `mutation { deleteAccount(input: {confirmEmail: "twice@example.com", idempotencyKey: "bye"}) { deletedUserId } }`
	e.must(tok, keyed, nil)
	// The retry's sign-in makes a new account (its first transaction); before
	// the retry's own deletion (the second) is refused by its marker, another
	// request with the token makes a calendar.
	s := dynamo.New(dynamoClient(e), e.store.Table(), recurrence.Engine{})
	meanwhile = func() {
		id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{Identity: calendar.Identity{Provider: "calgraph-local", Subject: "twice@example.com"}, Email: "twice@example.com"})
		if err == nil {
			_, _, err = s.CreateCalendar(calendar.WithViewer(context.Background(), calendar.Viewer{ID: id}), calendar.NewCalendar{Name: "Made meanwhile"})
		}
		if err != nil {
			t.Errorf("meanwhile: %v", err)
		}
	}
	armed.Store(2)
	e.must(tok, keyed, nil)
	if users, cals := e.countEntities("USER"), e.countEntities("CALENDAR"); users != 1 || cals != 1 {
		t.Fatalf("%d users and %d calendars after the retry, want the account used meanwhile and its calendar", users, cals)
	}
}

// beforeOperation returns a client option that calls fn before every call of
// the DynamoDB operation named (of any, if operation is "").
func beforeOperation(operation string, fn func()) func(*dynamodb.Options) {
	hook := middleware.InitializeMiddlewareFunc("before "+operation, func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if operation == "" || middleware.GetOperationName(ctx) == operation {
			fn()
		}
		return next.HandleInitialize(ctx, in)
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(hook, middleware.Before) })
	}
}
