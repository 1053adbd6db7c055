package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// pagesTable creates table PGS (PK, SK strings; index GSK on G and SK) with
// items p/1 … p/5, of which a = "y" only on the odd ones.
func pagesTable(w *wire) {
	w.t.Helper()
	w.must("CreateTable", `{"TableName":"PGS","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"G","AttributeType":"S"}],
		"GlobalSecondaryIndexes":[{"IndexName":"GSK","KeySchema":[{"AttributeName":"G","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	for i := 1; i <= 5; i++ {
		a := "n"
		if i%2 == 1 {
			a = "y"
		}
		w.must("PutItem", fmt.Sprintf(`{"TableName":"PGS","Item":{"PK":{"S":"p"},"SK":{"S":"%d"},"G":{"S":"g"},"a":{"S":"%s"}}}`, i, a))
	}
}

// TestPagesEndAsDynamoDBs: Limit counts items read, not items returned; a
// page that stops at its Limit has a LastEvaluatedKey even when nothing
// follows; an index's LastEvaluatedKey holds the table's key too; a start
// key may name an item that does not exist.
func TestPagesEndAsDynamoDBs(t *testing.T) {
	w := openWire(t)
	pagesTable(w)
	const kc = `"KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}`
	for _, c := range []struct{ name, op, params, want string }{
		{"limit", "Query", kc + `},"Limit":2`,
			`{"Count":2,"ScannedCount":2,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"2"}}}`},
		{"limit of all", "Query", kc + `},"Limit":5`,
			`{"Count":5,"ScannedCount":5,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"5"}}}`},
		{"limit past all", "Query", kc + `},"Limit":6`, `{"Count":5,"ScannedCount":5,"LastEvaluatedKey":null}`},
		{"limit with filter", "Query", kc + `,":y":{"S":"y"}},"FilterExpression":"a = :y","Limit":2`,
			`{"Count":1,"ScannedCount":2,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"2"}}}`},
		{"filter matching none", "Query", kc + `,":y":{"S":"z"}},"FilterExpression":"a = :y","Limit":3`,
			`{"Count":0,"ScannedCount":3,"Items":[],"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"3"}}}`},
		{"backward", "Query", kc + `},"Limit":2,"ScanIndexForward":false`,
			`{"Count":2,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"4"}}}`},
		{"start key", "Query", kc + `},"Limit":2,"ExclusiveStartKey":{"PK":{"S":"p"},"SK":{"S":"2"}}`,
			`{"Count":2,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"4"}}}`},
		{"start key backward", "Query", kc + `},"ScanIndexForward":false,"ExclusiveStartKey":{"PK":{"S":"p"},"SK":{"S":"3"}}`,
			`{"Count":2,"Items":[{"PK":{"S":"p"},"SK":{"S":"2"},"G":{"S":"g"},"a":{"S":"n"}},{"PK":{"S":"p"},"SK":{"S":"1"},"G":{"S":"g"},"a":{"S":"y"}}],"LastEvaluatedKey":null}`},
		{"start key of no item", "Query", kc + `},"ExclusiveStartKey":{"PK":{"S":"p"},"SK":{"S":"3a"}}`,
			`{"Count":2,"LastEvaluatedKey":null}`},
		{"start key of the last item", "Query", kc + `},"ExclusiveStartKey":{"PK":{"S":"p"},"SK":{"S":"5"}}`,
			`{"Count":0,"Items":[],"LastEvaluatedKey":null}`},
		{"count", "Query", kc + `},"Select":"COUNT","Limit":3`,
			`{"Count":3,"Items":null,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"3"}}}`},
		{"index", "Query", `"IndexName":"GSK","KeyConditionExpression":"G = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"Limit":1`,
			`{"Count":1,"LastEvaluatedKey":{"G":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"1"}}}`},
		{"index start key", "Query", `"IndexName":"GSK","KeyConditionExpression":"G = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"Limit":1,
			"ExclusiveStartKey":{"G":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"1"}}`,
			`{"Count":1,"LastEvaluatedKey":{"G":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"2"}}}`},
		{"scan limit", "Scan", `"Limit":4`, `{"Count":4,"ScannedCount":4,"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"4"}}}`},
		{"scan filter", "Scan", `"FilterExpression":"a = :y","ExpressionAttributeValues":{":y":{"S":"y"}}`,
			`{"Count":3,"ScannedCount":5,"LastEvaluatedKey":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.call(c.op, `{"TableName":"PGS",`+c.params+`}`).expect(t, "", c.want)
		})
	}
	for _, c := range []struct{ name, op, params string }{
		{"limit 0", "Query", kc + `},"Limit":0`},
		{"start key without its sort key", "Query", kc + `},"ExclusiveStartKey":{"PK":{"S":"p"}}`},
		{"start key of another partition", "Query", kc + `},"ExclusiveStartKey":{"PK":{"S":"q"},"SK":{"S":"1"}}`},
		{"start key of an index without the table key", "Query",
			`"IndexName":"GSK","KeyConditionExpression":"G = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"ExclusiveStartKey":{"G":{"S":"g"},"SK":{"S":"1"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.call(c.op, `{"TableName":"PGS",`+c.params+`}`).expect(t, "ValidationException", "")
		})
	}
}

// TestScanPagesStopAtOneMegabyte: a Scan or Query reads at most 1 MB of
// items a page, as DynamoDB does, and says where to go on; every item comes
// back once over the pages.
func TestScanPagesStopAtOneMegabyte(t *testing.T) {
	w := openWire(t)
	keyTable(w, "BIG", "S")
	blob := strings.Repeat("x", 300_000)
	for i := range 7 {
		w.must("PutItem", fmt.Sprintf(`{"TableName":"BIG","Item":{"PK":{"S":"p"},"SK":{"S":"%d"},"v":{"S":"%s"}}}`, i, blob))
	}
	for _, op := range []string{"Scan", "Query"} {
		t.Run(op, func(t *testing.T) {
			params := ""
			if op == "Query" {
				params = `,"KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}}`
			}
			var counts []int
			start := ""
			for range 10 {
				a := w.must(op, `{"TableName":"BIG","ProjectionExpression":"SK"`+params+start+`}`)
				counts = append(counts, a.count())
				lek, ok := a.body["LastEvaluatedKey"]
				if !ok {
					break
				}
				start = `,"ExclusiveStartKey":` + mustJSON(t, lek)
			}
			if got, want := fmt.Sprint(counts), "[4 3]"; got != want {
				t.Fatalf("items a page: got %s, want %s", got, want)
			}
		})
	}
}
