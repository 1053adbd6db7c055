package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
	"github.com/calgraph/calgraph/internal/recurrence"
)

// written reads w until it has named every log of want (the index is
// eventually consistent), and returns all it named.
func written(t *testing.T, w calendar.WriteWatch, want ...calendar.LogRef) []calendar.LogRef {
	t.Helper()
	var got []calendar.LogRef
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		logs, everything, err := w.Written(context.Background())
		if err != nil || everything {
			t.Fatalf("Written: %v, everything %v", err, everything)
		}
		got = append(got, logs...)
		if !slices.ContainsFunc(want, func(l calendar.LogRef) bool { return !slices.Contains(got, l) }) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recent writes named %v, want %v", got, want)
		}
	}
}

// hintCount counts the items of the recent-writes index.
func hintCount(t *testing.T, f *fixture) int {
	t.Helper()
	n := 0
	in := &dynamodb.ScanInput{TableName: aws.String(f.store.Table()), IndexName: aws.String("GSI4")}
	for {
		out, err := f.db.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		n += len(out.Items)
		if len(out.LastEvaluatedKey) == 0 {
			return n
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// TestRecentWritesNameWrittenLogs: the recent writes name the logs that
// writes added records to, with one hint per log and transaction however
// many records, and each once.
func TestRecentWritesNameWrittenLogs(t *testing.T) {
	f := newFixture(t)
	owner, member := f.user("owner@example.com"), f.user("member@example.com")
	w := f.store.WatchWrites()
	written(t, w)
	cal := f.calendarOf(owner, "Team") // the calendar and its owner's membership; the owner's list
	f.share(owner, cal, member, "member@example.com", calendar.RoleReader)
	if _, _, err := f.store.CreateEntry(owner, calendar.NewEntry{CalendarID: cal.ID, Title: "Kick-off", Timing: dueOn("2026-12-01")}); err != nil {
		t.Fatal(err)
	}
	want := []calendar.LogRef{{ID: cal.ID}, {ID: viewer(t, owner), User: true}, {ID: viewer(t, member), User: true}}
	got := written(t, w, want...)
	for _, l := range got {
		if !slices.Contains(want, l) {
			t.Errorf("named %v, which no write changed", l)
		}
	}
	if n := hintCount(t, f); n != 5 {
		t.Errorf("%d hints, want 5: the calendar's creation 2 (its log, the owner's), the share 2, the entry 1", n)
	}
	dynamo.SetDeepReadDue(w, true)
	if got := written(t, w); len(got) > 0 {
		t.Errorf("named %v again", got)
	}
}

// TestRecentWritesFindALateHint: a hint that shows up in the index after
// reads that were past its position (its transaction took long to commit,
// or the index lagged) is missed by the next read, which goes back only a
// few seconds, and named by the next deep read, once.
func TestRecentWritesFindALateHint(t *testing.T) {
	f := newFixture(t)
	cal := f.calendarOf(f.user("owner@example.com"), "Team")
	w := f.store.WatchWrites()
	written(t, w, calendar.LogRef{ID: cal.ID}) // the first read goes back the whole window
	if err := dynamo.PutLateHint(context.Background(), f.store, w, cal.ID); err != nil {
		t.Fatal(err)
	}
	dynamo.SetDeepReadDue(w, false)
	if got := written(t, w); len(got) > 0 {
		t.Fatalf("a read of the last seconds named %v", got)
	}
	dynamo.SetDeepReadDue(w, true)
	written(t, w, calendar.LogRef{ID: cal.ID})
	dynamo.SetDeepReadDue(w, true)
	if got := written(t, w); len(got) > 0 {
		t.Fatalf("the late hint came again: %v", got)
	}
}

// TestRecentWritesTooManyToTell: past the hints a read goes through, the
// watch says it cannot tell, and live delivery reads every log.
func TestRecentWritesTooManyToTell(t *testing.T) {
	f := newFixture(t)
	owner := f.user("owner@example.com")
	w := f.store.WatchWrites()
	dynamo.SetMaxHints(w, 2)
	written(t, w)
	for i := range 3 {
		f.calendarOf(owner, fmt.Sprint("Room ", i))
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		logs, everything, err := w.Written(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if everything {
			return
		}
		if len(logs) > 0 || time.Now().After(deadline) {
			t.Fatalf("named %v of 6 hints, each read going through 2 at most; want to be told it cannot tell", logs)
		}
	}
}

// TestEnsureTableAddsTheRecentWritesIndex: on a table of a version before
// the recent-writes index, a watch fails (live delivery then reads every
// log); EnsureTable (init-table, or -create-table at start-up) adds the
// index, keys only, filled with the hints written before it, and the
// watch names the writes after. (DynamoDB Local takes about 100 s to
// create an index, whatever the table holds.)
func TestEnsureTableAddsTheRecentWritesIndex(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.Client(t)
	table := fmt.Sprintf("upgrade%d", time.Now().UnixNano())
	if err := dynamo.CreateTableWithout(ctx, db, table, "GSI4"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dynamo.DeleteTable(context.Background(), db, table); err != nil {
			t.Error(err)
		}
	})
	f := &fixture{t: t, store: dynamo.New(db, table, recurrence.Engine{}), db: db}
	w := f.store.WatchWrites()
	if _, _, err := w.Written(ctx); err == nil {
		t.Fatal("a watch of a table without GSI4 read it")
	}
	owner := f.user("owner@example.com")
	f.calendarOf(owner, "Before") // 2 hints: its log and the owner's
	if err := dynamo.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); hintCount(t, f) != 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d hints in the added index, want the 2 written before it", hintCount(t, f))
		}
	}
	written(t, w)
	after := f.calendarOf(owner, "After")
	written(t, w, calendar.LogRef{ID: after.ID})
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(out.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool { return aws.ToString(g.IndexName) == "GSI4" })
	if i < 0 || out.Table.GlobalSecondaryIndexes[i].Projection.ProjectionType != types.ProjectionTypeKeysOnly {
		t.Fatalf("after EnsureTable: %+v, want GSI4 with keys only", out.Table.GlobalSecondaryIndexes)
	}
	f.consistent()
}
