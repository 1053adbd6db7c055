package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestIndexProjectionsAnswerAsDynamoDBLocal: an index that projects some
// attributes (KEYS_ONLY, INCLUDE) answers as DynamoDB Local does. A local
// index fetches from the table what a read asks for beyond its projection
// (Select ALL_ATTRIBUTES, a ProjectionExpression); a global one refuses to.
// A Query's filter may read only projected attributes; a Scan's filter is
// read against the whole item. Before (issue 22), the engine answered with
// what the index held, attributes missing.
func TestIndexProjectionsAnswerAsDynamoDBLocal(t *testing.T) {
	w := ruleWire(t)
	const (
		full1 = `{"G1":{"S":"g"},"L1":{"S":"x"},"L2":{"S":"y"},"PK":{"S":"p"},"SK":{"S":"1"},"a":{"S":"A"},"b":{"N":"5"},"f":{"BOOL":true},"l":{"L":[{"N":"1"},{"S":"s"}]},"m":{"M":{"x":{"N":"3"},"y":{"S":"q"}}}}`
		full2 = `{"G1":{"S":"g"},"L1":{"S":"x2"},"L2":{"S":"y2"},"PK":{"S":"p"},"SK":{"S":"2"},"b":{"N":"7"}}`
	)
	query := func(index, extra string) string {
		kc, v := `"PK = :p"`, `":p":{"S":"p"}`
		if strings.HasPrefix(index, "G") {
			kc, v = `"G1 = :p"`, `":p":{"S":"g"}`
		}
		if i := strings.Index(extra, `"ExpressionAttributeValues":{`); i >= 0 {
			extra = extra[:i] + `"ExpressionAttributeValues":{` + v + "," + extra[i+len(`"ExpressionAttributeValues":{`):]
		} else {
			extra += `,"ExpressionAttributeValues":{` + v + `}`
		}
		return `{"TableName":"TTT","IndexName":"` + index + `","KeyConditionExpression":` + kc + extra + `}`
	}
	scan := func(index, extra string) string {
		return `{"TableName":"TTT","IndexName":"` + index + `"` + extra + `}`
	}
	for _, c := range []struct {
		name, op, body string
		want           string   // error type
		items          []string // the items, in order, for a success
	}{
		{"LSI keys only", "Query", query("LKO", ""), "", []string{
			`{"L1":{"S":"x"},"PK":{"S":"p"},"SK":{"S":"1"}}`, `{"L1":{"S":"x2"},"PK":{"S":"p"},"SK":{"S":"2"}}`}},
		{"LSI ALL_ATTRIBUTES fetches", "Query", query("LKO", `,"Select":"ALL_ATTRIBUTES"`), "", []string{full1, full2}},
		{"LSI ALL_ATTRIBUTES, a page", "Query", query("LKO", `,"Select":"ALL_ATTRIBUTES","Limit":1`), "", []string{full1}},
		{"LSI projection fetches", "Query", query("LKO", `,"ProjectionExpression":"a, b, m.x"`), "", []string{
			`{"a":{"S":"A"},"b":{"N":"5"},"m":{"M":{"x":{"N":"3"}}}}`, `{"b":{"N":"7"}}`}},
		{"LSI projection of keys", "Query", query("LKO", `,"ProjectionExpression":"L1, SK"`), "", []string{
			`{"L1":{"S":"x"},"SK":{"S":"1"}}`, `{"L1":{"S":"x2"},"SK":{"S":"2"}}`}},
		{"LSI SPECIFIC_ATTRIBUTES fetches", "Query", query("LKO", `,"ProjectionExpression":"a","Select":"SPECIFIC_ATTRIBUTES"`), "",
			[]string{`{"a":{"S":"A"}}`, `{}`}},
		{"LSI backwards, a page", "Query", query("LKO", `,"ScanIndexForward":false,"Limit":1,"ProjectionExpression":"b"`), "",
			[]string{`{"b":{"N":"7"}}`}},
		{"LSI include", "Query", query("LIN", ""), "", []string{
			`{"L2":{"S":"y"},"PK":{"S":"p"},"SK":{"S":"1"},"a":{"S":"A"},"m":{"M":{"x":{"N":"3"},"y":{"S":"q"}}}}`,
			`{"L2":{"S":"y2"},"PK":{"S":"p"},"SK":{"S":"2"}}`}},
		{"LSI include, ALL_ATTRIBUTES", "Query", query("LIN", `,"Select":"ALL_ATTRIBUTES"`), "", []string{full1, full2}},
		{"LSI include, projection fetches", "Query", query("LIN", `,"ProjectionExpression":"a, b"`), "", []string{
			`{"a":{"S":"A"},"b":{"N":"5"}}`, `{"b":{"N":"7"}}`}},
		{"LSI include, list element", "Query", query("LIN", `,"ProjectionExpression":"l[1]"`), "", []string{
			`{"l":{"L":[{"S":"s"}]}}`, `{}`}},
		{"Query filter on an attribute not projected", "Query",
			query("LKO", `,"FilterExpression":"b = :v","ExpressionAttributeValues":{":v":{"N":"5"}}`), "ValidationException", nil},
		{"Query filter on another index's key", "Query",
			query("LKO", `,"FilterExpression":"G1 = :v","ExpressionAttributeValues":{":v":{"S":"g"}}`), "ValidationException", nil},
		{"Query filter on a table key", "Query",
			query("LKO", `,"FilterExpression":"SK = :v","ExpressionAttributeValues":{":v":{"S":"1"}}`), "", []string{
				`{"L1":{"S":"x"},"PK":{"S":"p"},"SK":{"S":"1"}}`}},
		{"Query filter on an included attribute", "Query",
			query("LIN", `,"FilterExpression":"m.x = :v","ExpressionAttributeValues":{":v":{"N":"3"}}`), "", []string{
				`{"L2":{"S":"y"},"PK":{"S":"p"},"SK":{"S":"1"},"a":{"S":"A"},"m":{"M":{"x":{"N":"3"},"y":{"S":"q"}}}}`}},
		{"GSI Query filter on an attribute not projected", "Query",
			query("GKO", `,"FilterExpression":"b = :v","Select":"COUNT","ExpressionAttributeValues":{":v":{"N":"5"}}`), "ValidationException", nil},
		{"Scan filter reads the item", "Scan", scan("LKO", `,"FilterExpression":"b = :v","ExpressionAttributeValues":{":v":{"N":"5"}}`), "",
			[]string{`{"L1":{"S":"x"},"PK":{"S":"p"},"SK":{"S":"1"}}`}},
		{"Scan filter reads the item, ALL_ATTRIBUTES", "Scan",
			scan("LKO", `,"Select":"ALL_ATTRIBUTES","FilterExpression":"b = :v","ExpressionAttributeValues":{":v":{"N":"5"}}`), "", []string{full1}},
		{"Scan filter, attribute_not_exists", "Scan", scan("LKO", `,"FilterExpression":"attribute_not_exists(b)"`), "", nil},
		{"GSI Scan filter reads the item", "Scan", scan("GKO", `,"FilterExpression":"b = :v","ExpressionAttributeValues":{":v":{"N":"5"}}`), "",
			[]string{`{"G1":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"1"}}`}},
		{"LSI Scan projection fetches", "Scan", scan("LKO", `,"ProjectionExpression":"b"`), "", []string{`{"b":{"N":"5"}}`, `{"b":{"N":"7"}}`}},
		{"GSI keys only", "Query", query("GKO", ""), "", []string{
			`{"G1":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"1"}}`, `{"G1":{"S":"g"},"PK":{"S":"p"},"SK":{"S":"2"}}`}},
		{"GSI ALL_ATTRIBUTES", "Query", query("GKO", `,"Select":"ALL_ATTRIBUTES"`), "ValidationException", nil},
		{"GSI include, ALL_ATTRIBUTES", "Query", query("GIN", `,"Select":"ALL_ATTRIBUTES"`), "ValidationException", nil},
		{"GSI Scan ALL_ATTRIBUTES", "Scan", scan("GKO", `,"Select":"ALL_ATTRIBUTES"`), "ValidationException", nil},
		{"GSI projection not projected", "Query", query("GKO", `,"ProjectionExpression":"a, b"`), "ValidationException", nil},
		{"GSI projection of nested paths", "Query", query("GKO", `,"ProjectionExpression":"m.x, a[0]"`), "ValidationException", nil},
		{"GSI include, projection half projected", "Query", query("GIN", `,"ProjectionExpression":"a, b"`), "ValidationException", nil},
		{"GSI Scan projection not projected", "Scan", scan("GIN", `,"ProjectionExpression":"b"`), "ValidationException", nil},
		{"GSI projection of keys", "Query", query("GKO", `,"ProjectionExpression":"PK","Select":"SPECIFIC_ATTRIBUTES"`), "",
			[]string{`{"PK":{"S":"p"}}`, `{"PK":{"S":"p"}}`}},
		{"table ALL_PROJECTED_ATTRIBUTES", "Query",
			`{"TableName":"TTT","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Select":"ALL_PROJECTED_ATTRIBUTES"}`,
			"ValidationException", nil},
		{"table Scan ALL_PROJECTED_ATTRIBUTES", "Scan", `{"TableName":"TTT","Select":"ALL_PROJECTED_ATTRIBUTES"}`, "ValidationException", nil},
		{"ALL_ATTRIBUTES and a projection", "Query",
			`{"TableName":"TTT","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Select":"ALL_ATTRIBUTES","ProjectionExpression":"a"}`,
			"ValidationException", nil},
		{"ALL_PROJECTED_ATTRIBUTES and a projection", "Query", query("GKO", `,"Select":"ALL_PROJECTED_ATTRIBUTES","ProjectionExpression":"G1"`),
			"ValidationException", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := w.call(c.op, c.body)
			a.check(t, c.want, -1)
			if c.want != "" {
				return
			}
			got := a.items()
			if c.op == "Scan" {
				slices.Sort(got)
			}
			if !slices.Equal(got, c.items) {
				t.Fatalf("got items\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.items, "\n  "))
			}
		})
	}
}

// TestIndexProjectionsKeepPagesWhole: an LSI read that fetches from the
// table pages as the index does, its LastEvaluatedKey the index's.
func TestIndexProjectionsKeepPagesWhole(t *testing.T) {
	w := ruleWire(t)
	var seen []string
	start := ""
	for page := 0; page < 5; page++ {
		a := w.must("Query", `{"TableName":"TTT","IndexName":"LKO","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}},
			"Select":"ALL_ATTRIBUTES","Limit":1`+start+`}`)
		seen = append(seen, a.items()...)
		lek, ok := a.body["LastEvaluatedKey"]
		if !ok {
			break
		}
		start = fmt.Sprintf(`,"ExclusiveStartKey":%s`, mustJSON(t, lek))
	}
	if len(seen) != 2 || !strings.Contains(seen[0], `"f":{"BOOL":true}`) || !strings.Contains(seen[1], `"b":{"N":"7"}`) {
		t.Fatalf("pages of ALL_ATTRIBUTES: %v, want both whole items", seen)
	}
}
