package engine_test

import (
	"fmt"
	"testing"
)

// docItem is the item the path tests read and update: nested maps and
// lists, and an attribute whose name holds a dot.
const docItem = `{"PK":{"S":"p"},"SK":{"S":"1"},"m":{"M":{"a":{"M":{"b":{"N":"1"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]}}},
	"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"}]},"odd.name":{"S":"z"},"s":{"S":"t"}}`

// placeholders writes the optional ExpressionAttributeNames and Values of a
// request (each a JSON object's members, "" for none).
func placeholders(names, values string) string {
	out := ""
	if names != "" {
		out += `,"ExpressionAttributeNames":{` + names + `}`
	}
	if values != "" {
		out += `,"ExpressionAttributeValues":{` + values + `}`
	}
	return out
}

// TestProjectedPathsAsDynamoDB: a ProjectionExpression reads nested maps,
// list elements and names through placeholders; paths that overlap, unused
// or undefined placeholders and reserved words are refused.
func TestProjectedPathsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "DOC", "S")
	w.must("PutItem", `{"TableName":"DOC","Item":`+docItem+`}`)
	for _, c := range []struct{ proj, names, wantType, want string }{
		{"m.a.b", ``, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}}}}}`},
		{"l[1]", ``, "", `{"l":{"L":[{"N":"1"}]}}`},
		{"l[2], l[0]", ``, "", `{"l":{"L":[{"N":"0"},{"N":"2"}]}}`},
		{"m.l[1].c", ``, "", `{"m":{"M":{"l":{"L":[{"M":{"c":{"S":"y"}}}]}}}}`},
		{"m.a.b, l[0], s", ``, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}}}},"l":{"L":[{"N":"0"}]},"s":{"S":"t"}}`},
		{"#o", `"#o":"odd.name"`, "", `{"odd.name":{"S":"z"}}`},
		{"m.#k.b", `"#k":"a"`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}}}}}`},
		{"#m.#k", `"#m":"m","#k":"a"`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}}}}}`},
		{"odd.x", ``, "", `{}`},
		{"odd.name", ``, "ValidationException", ``},
		{"l[5]", ``, "", `{}`},
		{"l[1].x", ``, "", `{}`},
		{"m[0]", ``, "", `{}`},
		{"s.x, PK", ``, "", `{"PK":{"S":"p"}}`},
		{"m.a.b, m", ``, "ValidationException", ``},
		{"l[0], l", ``, "ValidationException", ``},
		{"s, s", ``, "ValidationException", ``},
		{"#a", `"#a":"s","#u":"l"`, "ValidationException", ``},
		{"#x", ``, "ValidationException", ``},
		{"#x", `"#a":"s"`, "ValidationException", ``},
		{"m.name", ``, "ValidationException", ``},
		{"l[-1]", ``, "ValidationException", ``},
		{"l[]", ``, "ValidationException", ``},
		{"m.", ``, "ValidationException", ``},
	} {
		t.Run(fmt.Sprintf("%s %s", c.proj, c.names), func(t *testing.T) {
			a := w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"ProjectionExpression":`+
				jsonString(c.proj)+placeholders(c.names, "")+`}`)
			want := ""
			if c.want != "" {
				want = `{"Item":` + c.want + `}`
			}
			a.expect(t, c.wantType, want)
		})
	}
}

// TestUpdatedPathsAsDynamoDB: SET and REMOVE reach into nested maps and
// lists (SET past a list's end appends, REMOVE past it does nothing); a
// path through a missing map or a scalar (for REMOVE too), paths that overlap, unused or
// undefined placeholders are refused and change nothing.
func TestUpdatedPathsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "DOC", "S")
	for _, c := range []struct{ update, names, values, wantType, want string }{
		{"SET m.a.b = :n", ``, `":n":{"N":"2"}`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"2"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]}}}}`},
		{"SET m.n = :n", ``, `":n":{"N":"2"}`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]},"n":{"N":"2"}}}}`},
		{"SET m.l[1].c = :n", ``, `":n":{"N":"2"}`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"N":"2"}}}]}}}}`},
		{"SET l[1] = :n", ``, `":n":{"N":"9"}`, "", `{"l":{"L":[{"N":"0"},{"N":"9"},{"N":"2"}]}}`},
		{"SET l[10] = :n", ``, `":n":{"N":"9"}`, "", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"9"}]}}`},
		{"SET l[11] = :n, l[10] = :m", ``, `":n":{"N":"9"},":m":{"N":"8"}`, "", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"8"},{"N":"9"}]}}`},
		{"SET #o = :n", `"#o":"odd.name"`, `":n":{"N":"2"}`, "", `{"odd.name":{"N":"2"}}`},
		{"SET #m.#k = :n", `"#m":"m","#k":"k"`, `":n":{"N":"2"}`, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]},"k":{"N":"2"}}}}`},
		{"REMOVE l[0], l[2]", ``, ``, "", `{"l":{"L":[{"N":"1"}]}}`},
		{"REMOVE l[10]", ``, ``, "", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"}]}}`},
		{"REMOVE m.a.b", ``, ``, "", `{"m":{"M":{"a":{"M":{}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]}}}}`},
		{"REMOVE m.x, s", ``, ``, "", `{"m":{"M":{"a":{"M":{"b":{"N":"1"}}},"l":{"L":[{"S":"x"},{"M":{"c":{"S":"y"}}}]}}},"s":null}`},
		{"REMOVE m.x.y, s", ``, ``, "ValidationException", ``},
		{"SET m.x.y = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET x.y = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET s.y = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET l[0].x = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET m[0] = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET m.a = :n, m.a.b = :n", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET m.a = :n REMOVE m.a", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET l[0] = :n REMOVE l[0]", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET x = :n", ``, `":n":{"N":"2"},":u":{"N":"3"}`, "ValidationException", ``},
		{"SET x = :u", ``, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET #x = :n", `"#y":"y"`, `":n":{"N":"2"}`, "ValidationException", ``},
		{"SET x = :n", `"#y":"y"`, `":n":{"N":"2"}`, "ValidationException", ``},
	} {
		t.Run(fmt.Sprintf("%s %s", c.update, c.names), func(t *testing.T) {
			w.must("PutItem", `{"TableName":"DOC","Item":`+docItem+`}`)
			w.call("UpdateItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"UpdateExpression":`+
				jsonString(c.update)+placeholders(c.names, c.values)+`}`).expect(t, c.wantType, "")
			if c.wantType != "" {
				w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}`).expect(t, "", `{"Item":`+docItem+`}`)
				return
			}
			w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}`).expectAttrs(t, c.want)
		})
	}
}

// TestSelectAsDynamoDB: Select and ProjectionExpression of a Query and a
// Scan of a table: what each returns, and the combinations refused.
func TestSelectAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "DOC", "S")
	w.must("PutItem", `{"TableName":"DOC","Item":`+docItem+`}`)
	const kc = `"KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}}`
	for _, c := range []struct{ name, op, params, wantType, want string }{
		{"count", "Query", kc + `,"Select":"COUNT"`, "", `{"Count":1,"ScannedCount":1,"Items":null}`},
		{"count of a scan", "Scan", `"Select":"COUNT"`, "", `{"Count":1,"Items":null}`},
		{"specific attributes", "Query", kc + `,"Select":"SPECIFIC_ATTRIBUTES","ProjectionExpression":"s, l[0]"`, "",
			`{"Count":1,"Items":[{"s":{"S":"t"},"l":{"L":[{"N":"0"}]}}]}`},
		{"a projection alone", "Scan", `"ProjectionExpression":"SK, m.a"`, "", `{"Items":[{"SK":{"S":"1"},"m":{"M":{"a":{"M":{"b":{"N":"1"}}}}}}]}`},
		{"all attributes", "Query", kc + `,"Select":"ALL_ATTRIBUTES"`, "", `{"Items":[` + docItem + `]}`},
		{"specific attributes without a projection", "Query", kc + `,"Select":"SPECIFIC_ATTRIBUTES"`, "ValidationException", ``},
		{"all attributes with a projection", "Query", kc + `,"Select":"ALL_ATTRIBUTES","ProjectionExpression":"s"`, "ValidationException", ``},
		{"count with a projection", "Query", kc + `,"Select":"COUNT","ProjectionExpression":"s"`, "ValidationException", ``},
		{"projected attributes of a table", "Query", kc + `,"Select":"ALL_PROJECTED_ATTRIBUTES"`, "ValidationException", ``},
		{"an unknown select", "Scan", `"Select":"SOME"`, "ValidationException", ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.call(c.op, `{"TableName":"DOC",`+c.params+`}`).expect(t, c.wantType, c.want)
		})
	}
}
