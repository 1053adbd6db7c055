package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// nested writes a value nested depth levels deep in maps (or lists).
func nested(depth int, list bool) string {
	v := `{"S":"x"}`
	for range depth {
		if list {
			v = `{"L":[` + v + `]}`
		} else {
			v = `{"M":{"a":` + v + `}}`
		}
	}
	return v
}

// TestLimitsDynamoDBEnforces: the limits DynamoDB Local enforces, and that
// the engine did not (issue 22): nesting depth, key sizes, a transaction's
// payload, a batch write's put without its key.
func TestLimitsDynamoDBEnforces(t *testing.T) {
	w := ruleWire(t)
	key := func(pk, sk string) string {
		return `{"PK":{"S":` + jsonString(pk) + `},"SK":{"S":` + jsonString(sk) + `}}`
	}
	put := func(item string) string { return `{"TableName":"TTT","Item":` + item + `}` }
	long := func(n int) string { return strings.Repeat("k", n) }
	longPK, longSK := key(long(2049), "k"), key("p", long(1025))
	big := strings.Repeat("x", 399*1024)
	transaction := func(n int, action func(i int) string) string {
		var acts []string
		for i := range n {
			acts = append(acts, action(i))
		}
		return `{"TransactItems":[` + strings.Join(acts, ",") + `]}`
	}
	bigPut := func(i int) string {
		return `{"Put":{"TableName":"TTT","Item":{"PK":{"S":"big"},"SK":{"S":"t` + fmt.Sprint(i) + `"},"a":{"S":"` + big + `"}}}}`
	}
	bigUpdate := func(i int) string {
		return `{"Update":{"TableName":"TTT","Key":` + key("big", fmt.Sprint("u", i)) +
			`,"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"` + big + `"}}}}`
	}
	bigCheck := func(i int) string {
		return `{"ConditionCheck":{"TableName":"TTT","Key":` + key("big", fmt.Sprint("c", i)) +
			`,"ConditionExpression":"a <> :v","ExpressionAttributeValues":{":v":{"S":"` + big + `"}}}}`
	}
	for _, c := range []struct {
		name, op, body, want string
	}{
		{"31 levels", "PutItem", put(`{"PK":{"S":"p"},"SK":{"S":"n31"},"x":` + nested(31, false) + `}`), ""},
		{"32 levels of maps", "PutItem", put(`{"PK":{"S":"p"},"SK":{"S":"n32"},"x":` + nested(32, false) + `}`), "ValidationException"},
		{"32 levels of lists", "PutItem", put(`{"PK":{"S":"p"},"SK":{"S":"l32"},"x":` + nested(32, true) + `}`), "ValidationException"},
		{"a value of 33 levels", "UpdateItem", `{"TableName":"TTT","Key":` + key("p", "u") +
			`,"UpdateExpression":"SET x = :v","ExpressionAttributeValues":{":v":` + nested(33, false) + `}}`, "ValidationException"},
		{"an update to 32 levels", "UpdateItem", `{"TableName":"TTT","Key":` + key("p", "u") +
			`,"UpdateExpression":"SET x = :v","ExpressionAttributeValues":{":v":` + nested(32, false) + `}}`, "ValidationException"},
		{"an update into 32 levels", "UpdateItem", `{"TableName":"TTT","Key":` + key("p", "n31") +
			`,"UpdateExpression":"SET x` + strings.Repeat(".a", 31) + ` = :v","ExpressionAttributeValues":{":v":{"M":{"b":{"S":"y"}}}}}`,
			"ValidationException"},
		{"a filter value of 33 levels", "Scan", `{"TableName":"TTT","FilterExpression":"x = :v","ExpressionAttributeValues":{":v":` +
			nested(33, false) + `}}`, "ValidationException"},
		{"hash key of 2048 bytes", "PutItem", put(key(long(2048), "k")), ""},
		{"range key of 1024 bytes", "PutItem", put(key("p", long(1024))), ""},
		{"hash key of 2049 bytes", "PutItem", put(longPK), "ValidationException"},
		{"range key of 1025 bytes", "PutItem", put(longSK), "ValidationException"},
		{"range key of 513 ü", "PutItem", put(key("p", strings.Repeat("ü", 513))), "ValidationException"},
		{"GetItem", "GetItem", `{"TableName":"TTT","Key":` + longPK + `}`, "ValidationException"},
		{"GetItem range", "GetItem", `{"TableName":"TTT","Key":` + longSK + `}`, "ValidationException"},
		{"DeleteItem", "DeleteItem", `{"TableName":"TTT","Key":` + longSK + `}`, "ValidationException"},
		{"UpdateItem", "UpdateItem", `{"TableName":"TTT","Key":` + longSK + `,"UpdateExpression":"REMOVE a"}`, "ValidationException"},
		{"BatchWriteItem put", "BatchWriteItem", `{"RequestItems":{"TTT":[{"PutRequest":{"Item":` + longSK + `}}]}}`, "ValidationException"},
		{"BatchWriteItem delete", "BatchWriteItem", `{"RequestItems":{"TTT":[{"DeleteRequest":{"Key":` + longSK + `}}]}}`, "ValidationException"},
		{"BatchGetItem", "BatchGetItem", `{"RequestItems":{"TTT":{"Keys":[` + longSK + `]}}}`, "ValidationException"},
		{"TransactGetItems", "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"TTT","Key":` + longSK + `}}]}`, "ValidationException"},
		{"TransactWriteItems put", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"TTT","Item":` + longSK + `}}]}`,
			"TransactionCanceledException"},
		{"TransactWriteItems check", "TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"TTT","Key":` + longSK +
			`,"ConditionExpression":"attribute_exists(a)"}}]}`, "TransactionCanceledException"},
		{"Query range", "Query", `{"TableName":"TTT","KeyConditionExpression":"PK = :p AND SK = :s","ExpressionAttributeValues":{":p":{"S":"p"},":s":{"S":"` +
			long(1025) + `"}}}`, "ValidationException"},
		{"Query hash finds nothing", "Query", `{"TableName":"TTT","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"` +
			long(2049) + `"}}}`, ""},
		{"global index key", "PutItem", put(`{"PK":{"S":"p"},"SK":{"S":"gk"},"G1":{"S":"` + long(2049) + `"}}`), "ValidationException"},
		{"local index key", "PutItem", put(`{"PK":{"S":"p"},"SK":{"S":"gk"},"L1":{"S":"` + long(1025) + `"}}`), "ValidationException"},
		{"an update of an index key", "UpdateItem", `{"TableName":"TTT","Key":` + key("p", "gk") +
			`,"UpdateExpression":"SET G1 = :v","ExpressionAttributeValues":{":v":{"S":"` + long(2049) + `"}}}`, ""},
		{"transaction of 10 big puts", "TransactWriteItems", transaction(10, bigPut), ""},
		{"transaction of 11 big puts", "TransactWriteItems", transaction(11, bigPut), "ValidationException"},
		{"transaction of 11 big updates", "TransactWriteItems", transaction(11, bigUpdate), "ValidationException"},
		{"transaction of 11 big checks", "TransactWriteItems", transaction(11, bigCheck), "ValidationException"},
		{"batch put without its sort key", "BatchWriteItem", `{"RequestItems":{"TTT":[{"PutRequest":{"Item":{"PK":{"S":"p"}}}}]}}`, "ValidationException"},
		{"batch put without its hash key", "BatchWriteItem", `{"RequestItems":{"TTT":[{"PutRequest":{"Item":{"SK":{"S":"p"}}}}]}}`, "ValidationException"},
		{"batch put without its key, a missing table", "BatchWriteItem",
			`{"RequestItems":{"TTT":[{"PutRequest":{"Item":{"PK":{"S":"p"}}}}],"Missing":[{"PutRequest":{"Item":{"PK":{"S":"p"}}}}]}}`,
			"ValidationException"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := w.call(c.op, c.body)
			a.check(t, c.want, -1)
			if reasons, _ := a.body["CancellationReasons"].([]any); c.want == "TransactionCanceledException" &&
				(len(reasons) != 1 || reasons[0].(map[string]any)["Code"] != "ValidationError") {
				t.Fatalf("got reasons %v, want one ValidationError", reasons)
			}
		})
	}
	// Nothing refused was written.
	want := map[string]bool{`{"SK":{"S":"1"}}`: true, `{"SK":{"S":"2"}}`: true, `{"SK":{"S":"n31"}}`: true, `{"SK":{"S":"k"}}`: true,
		`{"SK":{"S":"` + long(1024) + `"}}`: true, `{"SK":{"S":"gk"}}`: true}
	for i := range 10 {
		want[fmt.Sprintf(`{"SK":{"S":"t%d"}}`, i)] = true
	}
	for _, it := range w.scanAll(`"ProjectionExpression":"SK"`) {
		if !want[it] {
			t.Errorf("found %.80s, which a refused request wrote", it)
		}
		delete(want, it)
	}
	for it := range want {
		t.Errorf("missing %.80s, which an accepted request wrote", it)
	}
}

// TestBatchGetStopsAt16MB: a BatchGetItem answers at most 16 MB of items,
// counted whole whatever the projection, and returns the other keys as
// UnprocessedKeys, as DynamoDB Local does (41 items of 399 KB, then 4 left).
// Which keys are left is DynamoDB's choice; the engine leaves the last ones.
func TestBatchGetStopsAt16MB(t *testing.T) {
	w := ruleWire(t)
	big := strings.Repeat("x", 399*1024)
	var keys []string
	for i := range 45 {
		w.must("PutItem", fmt.Sprintf(`{"TableName":"TTT","Item":{"PK":{"S":"bg"},"SK":{"S":"%03d"},"a":{"S":"%s"}}}`, i, big))
		keys = append(keys, fmt.Sprintf(`{"PK":{"S":"bg"},"SK":{"S":"%03d"}}`, i))
	}
	for _, proj := range []string{"", `,"ProjectionExpression":"SK"`} {
		a := w.must("BatchGetItem", `{"RequestItems":{"TTT":{"Keys":[`+strings.Join(keys, ",")+`]`+proj+`}}}`)
		responses, _ := a.body["Responses"].(map[string]any)["TTT"].([]any)
		unprocessed, _ := a.body["UnprocessedKeys"].(map[string]any)["TTT"].(map[string]any)
		left, _ := unprocessed["Keys"].([]any)
		if len(responses) != 41 || len(left) != 4 {
			t.Fatalf("projection %q: got %d items and %d keys unprocessed, want 41 and 4", proj, len(responses), len(left))
		}
	}
}

// TestStreamsAreRefused: the engine has no streams, so a table asking for
// one is refused rather than created without it (DynamoDB Local has
// streams; this is where the engine knowingly differs).
func TestStreamsAreRefused(t *testing.T) {
	if *referenceFlag {
		t.Skip("DynamoDB Local has streams")
	}
	w := openWire(t)
	table := func(name, spec string) string {
		return `{"TableName":"` + name + `","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],
			"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}]` + spec + `}`
	}
	w.call("CreateTable", table("STR", `,"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}`)).check(t, "ValidationException", -1)
	if a := w.call("DescribeTable", `{"TableName":"STR"}`); a.typ != "ResourceNotFoundException" {
		t.Fatalf("after a refused CreateTable: %s, want no table", a.raw)
	}
	w.must("CreateTable", table("ST2", `,"StreamSpecification":{"StreamEnabled":false}`))
	w.call("UpdateTable", `{"TableName":"ST2","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}`).check(t, "ValidationException", -1)
	w.must("UpdateTable", `{"TableName":"ST2","StreamSpecification":{"StreamEnabled":false}}`)
}
