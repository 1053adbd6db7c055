package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// signUpMany creates n users and returns their IDs.
func signUpMany(t *testing.T, s *dynamo.Store, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		id, _, err := s.ResolveIdentity(context.Background(), calendar.SignUp{
			Identity: calendar.Identity{Provider: "p", Subject: fmt.Sprint(i)}, Email: fmt.Sprintf("u%d@example.com", i),
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

func TestBatchGetChunksAndDeduplicates(t *testing.T) {
	var rec dynamo.Recorder
	db := dynamotest.Client(t, dynamo.WithRecorder(&rec))
	s := dynamo.New(db, dynamotest.Table(t, db), engine)
	ids := signUpMany(t, s, 250)
	keys := append(append([]string{}, ids...), ids[:40]...) // 290 keys, 250 distinct
	keys = append(keys, "00000000-0000-7000-8000-000000000000")

	rec.Reset()
	found, err := s.Read(context.Background(), calendar.Keys{Users: keys})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Users) != 250 {
		t.Fatalf("got %d users, want 250 (missing IDs are left out)", len(found.Users))
	}
	calls := rec.Calls()
	if len(calls) != 3 {
		t.Fatalf("got %d calls, want 3 BatchGetItem calls for 251 distinct keys", len(calls))
	}
	for _, c := range calls {
		if c.Op != "BatchGetItem" {
			t.Errorf("got a %s call, want only BatchGetItem", c.Op)
		}
	}
}

func TestBatchGetResendsUnprocessedKeys(t *testing.T) {
	local := dynamotest.Engine(t)
	if local == nil {
		t.Skip("needs the embedded engine's fault injection")
	}
	var rec dynamo.Recorder
	db := dynamotest.Client(t, dynamo.WithRecorder(&rec))
	table := dynamotest.Table(t, db)
	s := dynamo.New(db, table, engine)
	ids := signUpMany(t, s, 30)

	// Leave every third key unprocessed the first two times it is asked for.
	var mu sync.Mutex
	seen := map[string]int{}
	local.Faults().LeaveUnprocessed(table, func(n int, key map[string]string) bool {
		mu.Lock()
		defer mu.Unlock()
		pk := key["PK"]
		seen[pk]++
		return n%3 == 0 && seen[pk] <= 2
	})
	defer local.Faults().LeaveUnprocessed(table, nil)

	rec.Reset()
	found, err := s.Read(context.Background(), calendar.Keys{Users: ids})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Users) != 30 {
		t.Fatalf("got %d users, want all 30", len(found.Users))
	}
	if n := len(rec.Calls()); n < 2 {
		t.Fatalf("got %d BatchGetItem calls, want the unprocessed keys re-sent", n)
	}
}
