package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// fixture is a store on a fresh table with helpers to act as several users.
// When its test ends the table must be consistent (Store.Check), unless the
// test broke it on purpose (messy).
type fixture struct {
	t     testing.TB
	store *dynamo.Store
	db    *dynamodb.Client
	messy bool
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, db := dynamotest.Store(t)
	f := &fixture{t: t, store: s, db: db}
	t.Cleanup(func() {
		if !f.messy && !t.Failed() {
			f.consistent()
		}
	})
	return f
}

// user signs up a user with the email and returns a context acting as them.
func (f *fixture) user(email string) context.Context {
	f.t.Helper()
	id, _, err := f.store.ResolveIdentity(context.Background(), calendar.SignUp{
		Identity: calendar.Identity{Provider: "test", Subject: email}, Email: email,
	})
	if err != nil {
		f.t.Fatalf("sign up %s: %v", email, err)
	}
	return calendar.WithViewer(context.Background(), calendar.Viewer{ID: id})
}

func viewer(t testing.TB, ctx context.Context) string {
	t.Helper()
	id, err := calendar.ViewerID(ctx)
	if err != nil {
		t.Fatalf("viewer: %v", err)
	}
	return id
}

// calendarOf creates a calendar owned by the context's user.
func (f *fixture) calendarOf(ctx context.Context, name string) *calendar.Calendar {
	f.t.Helper()
	c, _, err := f.store.CreateCalendar(ctx, calendar.NewCalendar{Name: name})
	if err != nil {
		f.t.Fatalf("create calendar %s: %v", name, err)
	}
	return c
}

// share adds the user of member to the calendar with a role and returns the membership.
func (f *fixture) share(owner context.Context, cal *calendar.Calendar, member context.Context, email string, role calendar.Role) *calendar.Membership {
	f.t.Helper()
	m, _, err := f.store.AddMember(owner, cal.ID, email, role)
	if err != nil {
		f.t.Fatalf("add %s as %s: %v", email, role, err)
	}
	if m.UserID != viewer(f.t, member) {
		f.t.Fatalf("added user %s, want %s", m.UserID, viewer(f.t, member))
	}
	return m
}

// items returns every item of the table but change records (which stay
// after what they name is gone, and sync_test.go checks) as plain Go values,
// sorted by key, for comparing the whole table after a write.
func (f *fixture) items() []map[string]any {
	f.t.Helper()
	var out []map[string]any
	for _, it := range f.allItems() {
		if it["entityType"] != "CHANGE" {
			out = append(out, it)
		}
	}
	return out
}

// allItems returns every item of the table, sorted by key.
func (f *fixture) allItems() []map[string]any {
	f.t.Helper()
	var all []map[string]any
	in := &dynamodb.ScanInput{TableName: aws.String(f.store.Table()), ConsistentRead: aws.Bool(true)}
	for {
		out, err := f.db.Scan(context.Background(), in)
		if err != nil {
			f.t.Fatalf("scan: %v", err)
		}
		for _, it := range out.Items {
			var m map[string]any
			if err := attributevalue.UnmarshalMap(it, &m); err != nil {
				f.t.Fatalf("unmarshal: %v", err)
			}
			all = append(all, m)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Slice(all, func(i, j int) bool {
		return fmt.Sprint(all[i]["PK"], all[i]["SK"]) < fmt.Sprint(all[j]["PK"], all[j]["SK"])
	})
	return all
}

// deleteRaw deletes an item by its raw key, as a concurrent process would.
func (f *fixture) deleteRaw(pk, sk string) {
	f.t.Helper()
	_, err := f.db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String(f.store.Table()),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk},
		},
	})
	if err != nil {
		f.t.Fatalf("delete %s/%s: %v", pk, sk, err)
	}
}

// countEntities counts the table's items by entityType.
func (f *fixture) countEntities() map[string]int {
	f.t.Helper()
	n := map[string]int{}
	for _, it := range f.items() {
		n[fmt.Sprint(it["entityType"])]++
	}
	return n
}

// wantCode fails unless err carries the code.
func wantCode(t *testing.T, err error, want calendar.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", want)
	}
	var de *calendar.Error
	if got := calendar.ErrorCode(err); got != want || !errors.As(err, &de) && want != calendar.CodeInternal {
		t.Fatalf("got %v (code %s), want code %s", err, got, want)
	}
}

// withClock returns the fixture's store on the same table with a fixed clock.
func withClock(f *fixture, now string) *dynamo.Store {
	f.t.Helper()
	t := at(now)
	return dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return t }))
}

// putItem writes an item given as plain Go values, as another process would.
func (f *fixture) putItem(it map[string]any) {
	f.t.Helper()
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.store.Table()), Item: av}); err != nil {
		f.t.Fatalf("put %v/%v: %v", it["PK"], it["SK"], err)
	}
}

// consistent fails the test when the table breaks an invariant (Store.Check).
func (f *fixture) consistent() {
	f.t.Helper()
	problems, err := f.store.Check(context.Background())
	if err != nil {
		f.t.Fatalf("check: %v", err)
	}
	for _, p := range problems {
		f.t.Errorf("inconsistent: %s", p)
	}
}

// mustDo fails the test on err.
func (f *fixture) mustDo(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// queryScope is the read scope the server gives a query: the default
// request budget (so range pages are bounded, see pageReserve) and the view
// cache.
func queryScope() calendar.ReadScope {
	return calendar.ReadScope{Budget: calendar.NewBudget(10_000, 8<<20), Cached: true}
}
