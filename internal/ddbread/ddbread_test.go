package ddbread_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/ddbread"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// seeded returns an SDK client, a ddbread client made from it and a table
// holding items of every attribute type in one partition.
func seeded(t *testing.T, opts ...func(*dynamodb.Options)) (*dynamodb.Client, *ddbread.Client, string) {
	t.Helper()
	db := dynamotest.Client(t, opts...)
	table := dynamotest.Table(t, db)
	for i := range 30 {
		it := map[string]types.AttributeValue{
			"PK":     &types.AttributeValueMemberS{Value: "P"},
			"SK":     &types.AttributeValueMemberS{Value: fmt.Sprintf("K#%02d", i)},
			"LSI1SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("L#%02d", 29-i)},
			"s":      &types.AttributeValueMemberS{Value: "é\"\\\n\u2028 " + strings.Repeat("x", i)},
			"n":      &types.AttributeValueMemberN{Value: fmt.Sprint(i*1000, ".5")},
			"b":      &types.AttributeValueMemberB{Value: []byte{0, 1, 2, byte(i)}},
			"t":      &types.AttributeValueMemberBOOL{Value: i%2 == 0},
			"z":      &types.AttributeValueMemberNULL{Value: true},
			"ss":     &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			"ns":     &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
			"bs":     &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
			"l":      &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberL{}}},
			"m":      &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberM{}}},
		}
		if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	lean, err := ddbread.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return db, lean, table
}

func key(sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "P"}, "SK": &types.AttributeValueMemberS{Value: sk}}
}

// TestSameAnswersAsTheSDK sends each read both ways and compares what the
// caller gets.
func TestSameAnswersAsTheSDK(t *testing.T) {
	db, lean, table := seeded(t)
	ctx := context.Background()

	queries := map[string]*dynamodb.QueryInput{
		"table, paged": {TableName: &table, KeyConditionExpression: aws.String("PK = :p"), Limit: aws.Int32(7), ConsistentRead: aws.Bool(true),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"}}},
		"index, backwards, filtered, projected": {TableName: &table, IndexName: aws.String("LSI1"), ScanIndexForward: aws.Bool(false),
			KeyConditionExpression: aws.String("PK = :p AND LSI1SK BETWEEN :a AND :b"), FilterExpression: aws.String("#t = :t"),
			ProjectionExpression: aws.String("SK, #t, m, l"), ExpressionAttributeNames: map[string]string{"#t": "t"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"},
				":a": &types.AttributeValueMemberS{Value: "L#05"}, ":b": &types.AttributeValueMemberS{Value: "L#20"}, ":t": &types.AttributeValueMemberBOOL{Value: true}}},
		"nothing": {TableName: &table, KeyConditionExpression: aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "none"}}},
	}
	for name, in := range queries {
		t.Run(name, func(t *testing.T) {
			for page := 0; ; page++ {
				want, err := db.Query(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				got, err := lean.Query(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Items, want.Items) || !reflect.DeepEqual(got.LastEvaluatedKey, want.LastEvaluatedKey) ||
					got.Count != want.Count || got.ScannedCount != want.ScannedCount {
					t.Fatalf("page %d: ddbread %+v, SDK %+v", page, got, want)
				}
				if want.LastEvaluatedKey == nil {
					return
				}
				next := *in
				next.ExclusiveStartKey = want.LastEvaluatedKey
				in = &next
			}
		})
	}

	projected := &dynamodb.GetItemInput{TableName: &table, Key: key("K#04"), ProjectionExpression: aws.String("#n, l[0]"), ExpressionAttributeNames: map[string]string{"#n": "n"}}
	if got, err := lean.GetItem(ctx, projected); err != nil || len(got.Item) != 2 {
		t.Fatalf("projected GetItem: %v, %v", got, err)
	}
	get := &dynamodb.GetItemInput{TableName: &table, Key: key("K#03"), ConsistentRead: aws.Bool(true)}
	want, err := db.GetItem(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lean.GetItem(ctx, get)
	if err != nil || !reflect.DeepEqual(got.Item, want.Item) || len(got.Item) != 13 {
		t.Fatalf("GetItem: ddbread %v, %v; SDK %v", got.Item, err, want.Item)
	}
	if got, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("missing")}); err != nil || got.Item != nil {
		t.Fatalf("GetItem of a missing item: %v, %v", got.Item, err)
	}

	batch := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		table: {Keys: []map[string]types.AttributeValue{key("K#01"), key("K#02"), key("missing")}, ConsistentRead: aws.Bool(true),
			ProjectionExpression: aws.String("PK, SK, #s, m"), ExpressionAttributeNames: map[string]string{"#s": "s"}},
	}}
	wantB, err := db.BatchGetItem(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	gotB, err := lean.BatchGetItem(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(gotB.Responses[table]) != 2 || len(gotB.Responses[table][0]) != 4 || !sameItems(gotB.Responses[table], wantB.Responses[table]) || len(gotB.UnprocessedKeys) != 0 {
		t.Fatalf("BatchGetItem: ddbread %v; SDK %v", gotB.Responses, wantB.Responses)
	}
}

// sameItems compares two lists of items in any order (BatchGetItem keeps none).
func sameItems(a, b []map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && reflect.DeepEqual(x, y) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestErrorsAreTheSDKs(t *testing.T) {
	_, lean, table := seeded(t)
	ctx := context.Background()

	_, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key("K#01")})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) || !strings.Contains(err.Error(), "operation error DynamoDB: GetItem") {
		t.Fatalf("missing table: %v", err)
	}
	_, err = lean.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :nope")})
	if err == nil || !strings.Contains(err.Error(), "ValidationException") {
		t.Fatalf("invalid query: %v", err)
	}
	_, err = lean.Query(ctx, &dynamodb.QueryInput{TableName: &table, Select: types.SelectCount})
	if err == nil || !strings.Contains(err.Error(), "Select is not supported") {
		t.Fatalf("an unsupported field: %v", err)
	}
}

// TestHooksSeeEveryCall: the client's Initialize middlewares (recorders,
// latency, fault hooks) run around ddbread's calls too.
func TestHooksSeeEveryCall(t *testing.T) {
	var rec dynamo.Recorder
	_, lean, table := seeded(t, dynamo.WithRecorder(&rec))
	rec.Reset()
	ctx := context.Background()
	if _, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("K#01")}); err != nil {
		t.Fatal(err)
	}
	if _, err := lean.Query(ctx, &dynamodb.QueryInput{TableName: &table, IndexName: aws.String("LSI1"), KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"}}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rec.Calls() {
		got = append(got, c.Op+"/"+c.Index)
	}
	if want := []string{"GetItem/", "Query/LSI1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}

// TestRetries: a 5xx answer is retried by the client's retryer, a 4xx is not.
func TestRetries(t *testing.T) {
	var failures, calls atomic.Int32
	fault := func(o *dynamodb.Options) {
		next := o.HTTPClient
		o.HTTPClient = doer(func(r *http.Request) (*http.Response, error) {
			calls.Add(1)
			if failures.Add(-1) >= 0 {
				return &http.Response{StatusCode: 500, Header: http.Header{}, Request: r,
					Body: http.NoBody}, nil
			}
			return next.Do(r)
		})
	}
	_, lean, table := seeded(t, fault)
	ctx := context.Background()
	failures.Store(2)
	calls.Store(0)
	if _, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("K#01")}); err != nil || calls.Load() != 3 {
		t.Fatalf("after two 500s: %v, %d attempts; want success on the third", err, calls.Load())
	}
	calls.Store(0)
	if _, err := lean.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key("K#01")}); err == nil || calls.Load() != 1 {
		t.Fatalf("a 400: %v after %d attempts; want one attempt", err, calls.Load())
	}
}

type doer func(*http.Request) (*http.Response, error)

func (d doer) Do(r *http.Request) (*http.Response, error) { return d(r) }

// TestClosedConnectionIsResentAtOnce: a kept-alive connection the store
// closes without answering costs a new connection, not a failed attempt and
// the retryer's backoff (issue 10's second-long stalls). The client may make
// one attempt only, so any error would surface.
func TestClosedConnectionIsResentAtOnce(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 { // the second request arrives on the first's connection: drop it unanswered
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"Item":{"PK":{"S":"P"}}}`)
	}))
	defer srv.Close()
	db := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: awshttp.NewBuildableClient(),
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""),
		Retryer:     retry.AddWithMaxAttempts(retry.NewStandard(), 1),
	})
	lean, err := ddbread.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		start := time.Now()
		out, err := lean.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key("K")})
		if err != nil || len(out.Item) != 1 || time.Since(start) > 500*time.Millisecond {
			t.Fatalf("call %d: %v, %v after %s", i+1, out, err, time.Since(start))
		}
	}
	if got := n.Load(); got != 4 {
		t.Fatalf("the server saw %d requests, want 4 (one resent)", got)
	}
}
