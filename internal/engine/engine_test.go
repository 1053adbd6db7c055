package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/engine"
)

// The tests here hold the engine to the DynamoDB behaviours minidyn, the
// engine before it, got wrong; the differential test (internal/ddbdiff)
// compares it with DynamoDB Local on random operations.

const table = "cal"

func start(t *testing.T) *dynamodb.Client {
	t.Helper()
	db, err := engine.Open(filepath.Join(t.TempDir(), "e.db"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.Serve(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Setenv("AWS_CA_BUNDLE", "")
	c, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: srv.URL(), Local: true, Credentials: credentialsOf(srv)})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.EnsureTable(context.Background(), c, table); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCloseRefusesLateCalls: Close waits for the calls under way and lets
// none begin after it. A connection that read its request just before the
// listener closed still runs the handler afterwards: that call is refused
// with a 503, not counted in behind Close's wait (which -race reported as a
// race, and which would let a write reach a DB its owner is closing).
func TestCloseRefusesLateCalls(t *testing.T) {
	srv, c, _ := serveSigned(t)
	ctx, stop := context.WithCancel(context.Background()) // no retries once closed
	var writers sync.WaitGroup
	for w := range 4 { // calls racing the Close, each failing or succeeding whole
		writers.Go(func() {
			for i := range 50 {
				_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key("p", fmt.Sprint(w, i))})
			}
		})
	}
	time.Sleep(5 * time.Millisecond)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	stop()
	writers.Wait()
	late := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"cal"}`))
	late.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	answer := httptest.NewRecorder()
	srv.ServeHTTP(answer, late)
	if answer.Code != http.StatusServiceUnavailable || !strings.Contains(answer.Body.String(), "shutting down") {
		t.Errorf("a call after Close got %d %s, want 503 saying the engine is shutting down", answer.Code, answer.Body)
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(pk), "SK": s(sk)}
}

func get(t *testing.T, c *dynamodb.Client, k map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func TestTopLevelRemoveRemoves(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	item := key("p", "s")
	item["a"], item["b"] = s("x"), s("y")
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("p", "s"),
		UpdateExpression: aws.String("REMOVE a")}); err != nil {
		t.Fatal(err)
	}
	got := get(t, c, key("p", "s"))
	if _, ok := got["a"]; ok || got["b"] == nil {
		t.Fatalf("after REMOVE a: %v, want b without a", got)
	}
}

func TestUpdateThatAddsIndexKeysIndexesTheItem(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key("p", "s")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("p", "s"),
		UpdateExpression:          aws.String("SET GSI1PK = :pk, GSI1SK = :sk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("USER#1"), ":sk": s("CAL#1")}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("USER#1")}})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("GSI1 after the update: %v, %v; want the item", out, err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("p", "s"),
		UpdateExpression: aws.String("REMOVE GSI1SK")}); err != nil {
		t.Fatal(err)
	}
	out, _ = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("USER#1")}})
	if len(out.Items) != 0 {
		t.Fatalf("GSI1 after its sort key went: %d items, want none", len(out.Items))
	}
}

func TestEmptyListsAndMapsComeBackEmpty(t *testing.T) {
	c := start(t)
	item := key("p", "s")
	item["l"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	item["m"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	item["n"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"inner": &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}}
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
	got := get(t, c, key("p", "s"))
	opt := cmp.Exporter(func(reflect.Type) bool { return true })
	if diff := cmp.Diff(item, got, opt); diff != "" {
		t.Fatalf("item came back changed (-put +got):\n%s", diff)
	}
}

func TestClientRequestTokenReplayAppliesOnce(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("token-1"), TransactItems: []types.TransactWriteItem{{
		Update: &types.Update{TableName: aws.String(table), Key: key("p", "counter"),
			UpdateExpression:          aws.String("ADD n :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}},
	}}}
	for range 3 {
		if _, err := c.TransactWriteItems(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if n := get(t, c, key("p", "counter"))["n"].(*types.AttributeValueMemberN).Value; n != "1" {
		t.Fatalf("after three sends of one token: n = %s, want 1", n)
	}
	in.TransactItems[0].Update.ExpressionAttributeValues[":one"] = &types.AttributeValueMemberN{Value: "2"}
	_, err := c.TransactWriteItems(ctx, in)
	if _, ok := errors.AsType[*types.IdempotentParameterMismatchException](err); !ok {
		t.Fatalf("the token with another request: %v, want IdempotentParameterMismatchException", err)
	}
}

// TestDescribeTableCountsWithoutReading: item counts and sizes are kept by
// the writes (the readiness probe describes the table), and follow puts,
// updates that move an item in and out of an index, and deletes.
func TestDescribeTableCountsWithoutReading(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	describe := func() (int64, int64) {
		t.Helper()
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		var gsi1 int64
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == "GSI1" {
				gsi1 = aws.ToInt64(g.ItemCount)
			}
		}
		return aws.ToInt64(out.Table.ItemCount), gsi1
	}
	for i := range 3 {
		item := key("p", fmt.Sprint("s", i))
		item["GSI1PK"], item["GSI1SK"] = s("u"), s(fmt.Sprint(i))
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	if items, gsi := describe(); items != 3 || gsi != 3 {
		t.Fatalf("after 3 puts: %d items, %d in GSI1; want 3 and 3", items, gsi)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("p", "s0"),
		UpdateExpression: aws.String("REMOVE GSI1SK")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("p", "s1")}); err != nil {
		t.Fatal(err)
	}
	if items, gsi := describe(); items != 2 || gsi != 1 {
		t.Fatalf("after an update out of GSI1 and a delete: %d items, %d in GSI1; want 2 and 1", items, gsi)
	}
}

// TestSweepDeletesExpiredItems: with TTL on, a sweep deletes the items whose
// TTL attribute is a time in the past (and their index entries), and leaves
// items to expire later, items without the attribute, and times more than
// five years past, as DynamoDB leaves them.
func TestSweepDeletesExpiredItems(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	db, err := engine.Open(filepath.Join(t.TempDir(), "e.db"), engine.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.Serve(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); db.Close() })
	t.Setenv("AWS_CA_BUNDLE", "")
	c, err := dynamo.NewClient(context.Background(), dynamo.ClientConfig{Endpoint: srv.URL(), Local: true, Credentials: credentialsOf(srv)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dynamo.EnsureTable(ctx, c, table); err != nil { // turns TTL on for expiresAt
		t.Fatal(err)
	}
	at := func(d time.Duration) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: fmt.Sprint(now.Add(d).Unix())}
	}
	items := map[string]types.AttributeValue{
		"expired":      at(-time.Hour),
		"later":        at(time.Hour),
		"ancient":      at(-6 * 365 * 24 * time.Hour),
		"not a number": s("yesterday"),
		"none":         nil,
	}
	for name, exp := range items {
		it := key("p", name)
		it["GSI1PK"], it["GSI1SK"] = s("ttl"), s(name)
		if exp != nil {
			it["expiresAt"] = exp
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.SweepExpired(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d deleted, %v; want 1", n, err)
	}
	for name := range items {
		if got := get(t, c, key("p", name)); (got == nil) != (name == "expired") {
			t.Errorf("%s: present %v after the sweep", name, got != nil)
		}
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("ttl")}})
	if err != nil || len(out.Items) != 4 {
		t.Fatalf("GSI1 after the sweep: %d items (%v), want 4", len(out.Items), err)
	}
}
