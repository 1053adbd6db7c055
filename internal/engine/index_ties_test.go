package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestIndexTiesInDynamoDBLocalsOrder: items with equal keys in an index come
// out in DynamoDB Local's order, which hashes the table keys the index does
// not have. Twelve items tie in each index: a global index sorted by the
// table's sort key (as calgraph's GSI4), one sorted by the table's partition
// key, one sorted by neither, and a local index. The orders below are what
// DynamoDB Local answered (run with -reference to see it again). Before,
// the first two used the hash of both keys, and GSI4's ties came out in
// another order than DynamoDB Local's (a difference the differential test
// found).
func TestIndexTiesInDynamoDBLocalsOrder(t *testing.T) {
	w := openWire(t)
	w.must("CreateTable", `{"TableName":"TIE","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},
			{"AttributeName":"G","AttributeType":"S"},{"AttributeName":"X","AttributeType":"S"}],
		"LocalSecondaryIndexes":[{"IndexName":"LSIX","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"X","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"GSK","KeySchema":[{"AttributeName":"G","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"GPK","KeySchema":[{"AttributeName":"G","KeyType":"HASH"},{"AttributeName":"PK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"GSIX","KeySchema":[{"AttributeName":"G","KeyType":"HASH"},{"AttributeName":"X","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	for i := range 12 {
		// Ties in GSK and GX: one SK, twelve PKs. Ties in GPK and LX: one PK, twelve SKs.
		w.must("PutItem", fmt.Sprintf(`{"TableName":"TIE","Item":{"PK":{"S":"p%d"},"SK":{"S":"a"},"G":{"S":"g1"},"X":{"S":"x"}}}`, i))
		w.must("PutItem", fmt.Sprintf(`{"TableName":"TIE","Item":{"PK":{"S":"a"},"SK":{"S":"p%d"},"G":{"S":"g2"},"X":{"S":"x"}}}`, i))
	}
	const byOneKey = "p7 p9 p3 p0 p10 p2 p5 p11 p6 p1 p8 p4" // a hash of the key the index lacks
	for _, c := range []struct{ index, hash, value, attr, want string }{
		{"GSK", "G", "g1", "PK", byOneKey},
		{"GPK", "G", "g2", "SK", byOneKey},
		{"LSIX", "PK", "a", "SK", byOneKey},
		{"GSIX", "G", "g1", "PK", "p0 p5 p4 p1 p8 p7 p3 p10 p11 p9 p6 p2"}, // a hash of both keys
	} {
		a := w.must("Query", `{"TableName":"TIE","IndexName":"`+c.index+`","KeyConditionExpression":"#h = :v",
			"ExpressionAttributeNames":{"#h":"`+c.hash+`"},"ExpressionAttributeValues":{":v":{"S":"`+c.value+`"}}}`)
		var got []string
		for _, it := range a.body["Items"].([]any) {
			got = append(got, it.(map[string]any)[c.attr].(map[string]any)["S"].(string))
		}
		if want := strings.Fields(c.want); !slices.Equal(got, want) {
			t.Errorf("%s: ties in the order %v, want DynamoDB Local's %v", c.index, got, want)
		}
	}
}
