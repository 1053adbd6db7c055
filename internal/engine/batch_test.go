package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// keysOf writes n keys of partition p of table DOC's shape: SK k0, k1, …
func keysOf(n int, extra ...string) string {
	var keys []string
	for i := range n {
		keys = append(keys, fmt.Sprintf(`{"PK":{"S":"p"},"SK":{"S":"k%d"}}`, i))
	}
	return strings.Join(append(keys, extra...), ",")
}

// putsOf writes n PutRequests of items k0, k1, … of partition p.
func putsOf(n int, extra ...string) string {
	var puts []string
	for i := range n {
		puts = append(puts, fmt.Sprintf(`{"PutRequest":{"Item":{"PK":{"S":"p"},"SK":{"S":"k%d"},"v":{"N":"%d"}}}}`, i, i))
	}
	return strings.Join(append(puts, extra...), ",")
}

// TestBatchLimitsAsDynamoDB: a BatchGetItem of up to 100 keys and a
// BatchWriteItem of up to 25 writes are answered whole, with nothing left
// unprocessed; more, duplicates, keys without their sort key and unknown
// tables are refused, and a refused batch writes nothing.
func TestBatchLimitsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "DOC", "S")
	w.must("BatchWriteItem", `{"RequestItems":{"DOC":[`+putsOf(3)+`]}}`)
	const other = `{"PutRequest":{"Item":{"PK":{"S":"q"},"SK":{"S":"new"}}}}`
	for _, c := range []struct{ name, op, body, wantType, want string }{
		{"get 100", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[` + keysOf(100) + `]}}}`, "", `{"UnprocessedKeys":{}}`},
		{"get 101", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[` + keysOf(101) + `]}}}`, "ValidationException", ``},
		{"get a key twice", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[` + keysOf(2, `{"PK":{"S":"p"},"SK":{"S":"k1"}}`) + `]}}}`, "ValidationException", ``},
		{"get a key without its sort key", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[{"PK":{"S":"p"}}]}}}`, "ValidationException", ``},
		{"get a key of another type", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[{"PK":{"S":"p"},"SK":{"N":"1"}}]}}}`, "ValidationException", ``},
		{"get with more than the key", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[{"PK":{"S":"p"},"SK":{"S":"k1"},"v":{"N":"1"}}]}}}`, "ValidationException", ``},
		{"get no keys", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[]}}}`, "ValidationException", ``},
		{"get no tables", "BatchGetItem", `{"RequestItems":{}}`, "ValidationException", ``},
		{"get an unknown table", "BatchGetItem", `{"RequestItems":{"NOPE":{"Keys":[{"PK":{"S":"p"},"SK":{"S":"k1"}}]}}}`, "ResourceNotFoundException", ``},
		{"get projected", "BatchGetItem", `{"RequestItems":{"DOC":{"Keys":[{"PK":{"S":"p"},"SK":{"S":"k1"}}],"ProjectionExpression":"v"}}}`,
			"", `{"Responses":{"DOC":[{"v":{"N":"1"}}]},"UnprocessedKeys":{}}`},
		{"write 25", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(25) + `]}}`, "", `{"UnprocessedItems":{}}`},
		{"write 26", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(25, other) + `]}}`, "ValidationException", ``},
		{"put a key twice", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(2, other, other) + `]}}`, "ValidationException", ``},
		{"put and delete a key", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(0, other, `{"DeleteRequest":{"Key":{"PK":{"S":"q"},"SK":{"S":"new"}}}}`) + `]}}`, "ValidationException", ``},
		{"put without the sort key", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(0, other, `{"PutRequest":{"Item":{"PK":{"S":"q"}}}}`) + `]}}`, "ValidationException", ``},
		{"delete with more than the key", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(0, other, `{"DeleteRequest":{"Key":{"PK":{"S":"p"},"SK":{"S":"k1"},"v":{"N":"1"}}}}`) + `]}}`, "ValidationException", ``},
		{"put and delete in one request", "BatchWriteItem", `{"RequestItems":{"DOC":[` + putsOf(0, other, `{"PutRequest":{"Item":{"PK":{"S":"q"},"SK":{"S":"x"}}},"DeleteRequest":{"Key":{"PK":{"S":"p"},"SK":{"S":"k1"}}}}`) + `]}}`, "ValidationException", ``},
		{"write nothing", "BatchWriteItem", `{"RequestItems":{"DOC":[]}}`, "ValidationException", ``},
		{"write an unknown table", "BatchWriteItem", `{"RequestItems":{"DOC":[` + other + `],"NOPE":[` + putsOf(1) + `]}}`, "ResourceNotFoundException", ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := w.call(c.op, c.body)
			a.expect(t, c.wantType, c.want)
			if c.op == "BatchGetItem" && c.wantType == "" {
				if got := len(a.body["Responses"].(map[string]any)["DOC"].([]any)); got != min(len(strings.Split(c.body, `"PK"`))-1, 3) {
					t.Fatalf("got %d items, want the %d of the keys that exist", got, min(len(strings.Split(c.body, `"PK"`))-1, 3))
				}
			}
		})
	}
	w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"q"},"SK":{"S":"new"}}}`).expect(t, "", `{"Item":null}`)
	w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"k24"}}}`).expect(t, "", `{"Item":{"PK":{"S":"p"},"SK":{"S":"k24"},"v":{"N":"24"}}}`)
}
