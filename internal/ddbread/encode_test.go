package ddbread

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestEncodingAllocatesOnce pins that a request is written into one buffer
// sized for it: a view sends a score of Queries and a BatchGetItem of tens of
// keys, and a buffer grown from nothing took seven allocations and copies
// per Query.
func TestEncodingAllocatesOnce(t *testing.T) {
	query := &dynamodb.QueryInput{TableName: aws.String("calgraph"), IndexName: aws.String("LSI1"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		FilterExpression:         aws.String("attribute_not_exists(#re) OR #re >= :from"),
		ExpressionAttributeNames: map[string]string{"#pk": "PK", "#sk": "LSI1SK", "#re": "reachEnd"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: "CAL#01a22759-79d7-7576-8e38-c196f36f4bef"},
			":lo":   &types.AttributeValueMemberS{Value: "SPAN#2026-06-07T00:00:00.000Z"},
			":hi":   &types.AttributeValueMemberS{Value: "SPAN#2026-06-23T00:00:00.000Z~"},
			":from": &types.AttributeValueMemberS{Value: "2026-06-15T00:00:00.000Z"},
		},
		Limit: aws.Int32(101)}
	var keys []map[string]types.AttributeValue
	for i := range 41 {
		keys = append(keys, map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("CAL#01a22759-79d7-7576-8e38-c196f36f4%03d", i)},
			"SK": &types.AttributeValueMemberS{Value: "MEMBER#01a22759-792d-7b85-91cf-2f488bd57c9b"}})
	}
	batch := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"calgraph": {Keys: keys, ConsistentRead: aws.Bool(true)}}}
	for _, c := range []struct {
		name   string
		encode func(any) ([]byte, error)
		in     any
		most   float64
	}{
		{"Query", encodeQuery, query, 3},
		{"BatchGetItem of 41 keys", encodeBatchGetItem, batch, 6},
	} {
		body, err := c.encode(c.in)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() { _, _ = c.encode(c.in) })
		// The object and its two buffers, and for the BatchGetItem its
		// sorted table names; none per key or per byte.
		if allocs > c.most*allocationFactor {
			t.Errorf("%s (%d bytes): %.0f allocations, want at most %.0f", c.name, len(body), allocs, c.most)
		}
	}
}
