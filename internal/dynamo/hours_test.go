package dynamo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestWorkingHoursItem: hours round-trip through their own item; a write
// drops dated days before yesterday (so the item does not grow with time);
// Store.Check reads them back and reports hours that are not valid or
// belong to nobody; deleting the account deletes them.
func TestWorkingHoursItem(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	id := viewer(t, ada)
	today := calendar.DateOf(time.Now().UTC())
	h := &calendar.WorkingHours{TimeZone: "UTC", Dated: map[calendar.Date][]calendar.TimeWindow{
		today.AddDays(-10): {{From: 600, To: 660}},
		today.AddDays(3):   {},
		today.AddDays(4):   {{From: 780, To: 1020}, {From: 540, To: 720}},
	}}
	h.Weekly[time.Monday] = []calendar.TimeWindow{{From: 540, To: 1020}}
	if _, err := f.store.UpdatePreferences(ada, calendar.PreferencesUpdate{ExpectedVersion: 1, WorkingHours: calendar.Set(h)}); err != nil {
		t.Fatal(err)
	}
	got, err := f.store.WorkingHours(ada, id)
	f.mustDo(err)
	if len(got.Dated) != 2 || got.Dated[today.AddDays(3)] == nil || len(got.Dated[today.AddDays(3)]) != 0 ||
		got.Dated[today.AddDays(4)][0].From != 540 || got.Weekly[time.Monday][0].To != 1020 || got.TimeZone != "UTC" {
		t.Fatalf("read back: %+v", got)
	}
	f.consistent()

	// A broken item is reported.
	bad := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#" + id}, "SK": &types.AttributeValueMemberS{Value: "HOURS"}}
	_, err = f.db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(f.store.Table()), Key: bad,
		UpdateExpression:          aws.String("SET weekly[1] = :w"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": &types.AttributeValueMemberS{Value: "600-500"}}})
	f.mustDo(err)
	problems, err := f.store.Check(context.Background())
	f.mustDo(err)
	if len(problems) != 1 || !strings.Contains(problems[0], "working hours of "+id) {
		t.Fatalf("check of a broken item: %v", problems)
	}

	if _, _, err := f.store.DeleteAccount(ada, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if n := f.countEntities()["WORKING_HOURS"]; n != 0 {
		t.Fatalf("%d working hours items left after the account's deletion", n)
	}
}
