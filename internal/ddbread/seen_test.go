package ddbread_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/ddbread"
)

// TestSeenAnswersAreNotDecoded pins what the answer cache's check relies
// on: an answer with the bytes of one seen before is reported as seen and not
// decoded; any other answer (the first, a changed one, one checked against
// another sum) is decoded whole, and its sum changes with its bytes.
func TestSeenAnswersAreNotDecoded(t *testing.T) {
	ctx := context.Background()
	db, lean, table := seeded(t)
	batch, err := ddbread.PrepareBatchGetItem(&dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		table: {Keys: []map[string]types.AttributeValue{key("K#01"), key("K#02"), key("K#99")}, ConsistentRead: aws.Bool(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	query, err := ddbread.PrepareQuery(&dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"}},
		Limit:                     aws.Int32(5), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}

	first, sum1, err := lean.BatchGetItemSeen(ctx, batch, ddbread.Seen{})
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := ddbread.SeenOf(first.ResultMetadata); seen || len(first.Responses[table]) != 2 {
		t.Fatalf("first answer: seen %v, %d items; want decoded, 2 items", seen, len(first.Responses[table]))
	}
	again, sum2, err := lean.BatchGetItemSeen(ctx, batch, ddbread.Seen{Sum: sum1, Items: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s, seen := ddbread.SeenOf(again.ResultMetadata); !seen || s.Items != 2 || sum2 != sum1 || len(again.Responses) != 0 {
		t.Fatalf("same answer again: seen %v (%+v), sum equal %v, %d tables decoded; want seen, not decoded", seen, s, sum2 == sum1, len(again.Responses))
	}
	other := sum1
	other[0] ^= 1
	if out, _, err := lean.BatchGetItemSeen(ctx, batch, ddbread.Seen{Sum: other}); err != nil {
		t.Fatal(err)
	} else if _, seen := ddbread.SeenOf(out.ResultMetadata); seen || len(out.Responses[table]) != 2 {
		t.Fatalf("checked against another sum: seen %v, %d items; want decoded", seen, len(out.Responses[table]))
	}

	qfirst, qsum, err := lean.QuerySeen(ctx, query, ddbread.Seen{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qfirst.Items) != 5 {
		t.Fatalf("first page: %d items, want 5", len(qfirst.Items))
	}
	qagain, _, err := lean.QuerySeen(ctx, query, ddbread.Seen{Sum: qsum, Items: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := ddbread.SeenOf(qagain.ResultMetadata); !seen || qagain.ScannedCount != 5 || qagain.Items != nil {
		t.Fatalf("same page again: seen %v, scanned %d, %d items; want seen, 5, none", seen, qagain.ScannedCount, len(qagain.Items))
	}

	// One attribute of one item changes: both answers are new bytes.
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key("K#02"),
		UpdateExpression:          aws.String("SET t = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: false}}}); err != nil {
		t.Fatal(err)
	}
	changed, sum3, err := lean.BatchGetItemSeen(ctx, batch, ddbread.Seen{Sum: sum1, Items: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := ddbread.SeenOf(changed.ResultMetadata); seen || sum3 == sum1 || len(changed.Responses[table]) != 2 {
		t.Fatalf("changed answer: seen %v, same sum %v; want decoded with a new sum", seen, sum3 == sum1)
	}
	qchanged, qsum2, err := lean.QuerySeen(ctx, query, ddbread.Seen{Sum: qsum, Items: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := ddbread.SeenOf(qchanged.ResultMetadata); seen || qsum2 == qsum || len(qchanged.Items) != 5 {
		t.Fatalf("changed page: seen %v, same sum %v, %d items; want decoded with a new sum", seen, qsum2 == qsum, len(qchanged.Items))
	}
}

// TestPreparedReadsAreChecked: a read this package cannot send is refused
// when prepared, and a prepared read is sent only as what it was prepared for.
func TestPreparedReadsAreChecked(t *testing.T) {
	_, lean, table := seeded(t)
	if _, err := ddbread.PrepareQuery(&dynamodb.QueryInput{TableName: &table, Select: types.SelectCount}); err == nil {
		t.Error("a Query with Select was prepared, want it refused")
	}
	q, err := ddbread.PrepareQuery(&dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "P"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := lean.BatchGetItemSeen(context.Background(), q, ddbread.Seen{}); err == nil {
		t.Error("a prepared Query was sent as a BatchGetItem, want it refused")
	}
}
