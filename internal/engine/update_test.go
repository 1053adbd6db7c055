package engine_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// updItem is the item the update tests change, put afresh for each case.
const updItem = `{"PK":{"S":"p"},"SK":{"S":"1"},"n":{"N":"5"},"s":{"S":"a"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},
	"l":{"L":[{"N":"1"}]},"m":{"M":{}}}`

// updValues are the placeholders the update tests may use.
var updValues = map[string]string{
	":one": `{"N":"1"}`, ":tenth": `{"N":"0.1"}`, ":ten": `{"N":"10"}`, ":s": `{"S":"z"}`, ":l": `{"L":[{"N":"2"}]}`,
	":sa": `{"SS":["a"]}`, ":sab": `{"SS":["a","b"]}`, ":sbc": `{"SS":["b","c"]}`, ":sz": `{"SS":["z"]}`, ":n3": `{"NS":["3"]}`,
}

var updPlaceholderRE = regexp.MustCompile(`:[a-z0-9]+`)

// updValuesOf writes the ExpressionAttributeValues an update expression names.
func updValuesOf(expr string) string { return valuesFrom(updValues, expr) }

// valuesFrom writes the ExpressionAttributeValues of values that expr names.
func valuesFrom(values map[string]string, expr string) string {
	seen := map[string]bool{}
	var parts []string
	for _, p := range updPlaceholderRE.FindAllString(expr, -1) {
		if !seen[p] {
			seen[p] = true
			parts = append(parts, jsonString(p)+":"+values[p])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return `,"ExpressionAttributeValues":{` + strings.Join(parts, ",") + `}`
}

// TestUpdateActionsAsDynamoDB: SET (arithmetic, list_append, if_not_exists),
// REMOVE, ADD and DELETE change an item as DynamoDB Local changes it
// (want: the attributes after, null for gone); those it refuses (want "!")
// change nothing.
func TestUpdateActionsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "UPD", "S")
	for _, c := range []struct{ update, want string }{
		{"SET n = n + :one", `{"n":{"N":"6"}}`},
		{"SET n = n - :ten", `{"n":{"N":"-5"}}`},
		{"SET n = :tenth + n", `{"n":{"N":"5.1"}}`},
		{"SET x = :one + :one", `{"x":{"N":"2"}}`},
		{"SET l = list_append(l, :l)", `{"l":{"L":[{"N":"1"},{"N":"2"}]}}`},
		{"SET l = list_append(:l, l)", `{"l":{"L":[{"N":"2"},{"N":"1"}]}}`},
		{"SET x = if_not_exists(x, :one)", `{"x":{"N":"1"}}`},
		{"SET n = if_not_exists(n, :one)", `{"n":{"N":"5"}}`},
		{"SET n = if_not_exists(x, n)", `{"n":{"N":"5"}}`},
		{"SET m.k = :s, s = :s", `{"m":{"M":{"k":{"S":"z"}}},"s":{"S":"z"}}`},
		{"SET s = s + :one", "!"},
		{"SET x = y + :one", "!"},
		{"SET l = list_append(l, :s)", "!"},
		{"SET l = list_append(y, :l)", "!"},
		{"SET PK = :s", "!"},
		{"SET x = :one SET y = :one", "!"},
		{"REMOVE s, n", `{"s":null,"n":null}`},
		{"REMOVE x", `{"x":null}`},
		{"REMOVE SK", "!"},
		{"ADD n :one", `{"n":{"N":"6"}}`},
		{"ADD x :tenth", `{"x":{"N":"0.1"}}`},
		{"ADD ss :sbc", `{"ss":{"SS":["a","b","c"]}}`},
		{"ADD x :sbc", `{"x":{"SS":["b","c"]}}`},
		{"ADD ns :n3", `{"ns":{"NS":["1","2","3"]}}`},
		{"ADD ns :one", "!"},
		{"ADD s :one", "!"},
		{"ADD n :sa", "!"},
		{"ADD l :l", "!"},
		{"ADD m.k :one", `{"m":{"M":{"k":{"N":"1"}}}}`},
		{"ADD m.k :sbc", `{"m":{"M":{"k":{"SS":["b","c"]}}}}`},
		{"ADD l[0] :one", `{"l":{"L":[{"N":"2"}]}}`},
		{"ADD l[3] :one", `{"l":{"L":[{"N":"1"},{"N":"1"}]}}`},
		{"ADD m.x.k :one", "!"},
		{"DELETE ss :sa", `{"ss":{"SS":["b"]}}`},
		{"DELETE ss :sab", `{"ss":null}`},
		{"DELETE ss :sz", `{"ss":{"SS":["a","b"]}}`},
		{"DELETE x :sa", `{"x":null}`},
		{"DELETE ns :sa", "!"},
		{"DELETE n :one", "!"},
		{"DELETE s :sa", "!"},
		{"SET n = n + :one REMOVE s ADD ss :sbc DELETE ns :n3", `{"n":{"N":"6"},"s":null,"ss":{"SS":["a","b","c"]},"ns":{"NS":["1","2"]}}`},
	} {
		t.Run(c.update, func(t *testing.T) {
			w.must("PutItem", `{"TableName":"UPD","Item":`+updItem+`}`)
			a := w.call("UpdateItem", `{"TableName":"UPD","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"UpdateExpression":`+
				jsonString(c.update)+updValuesOf(c.update)+`}`)
			got := w.must("GetItem", `{"TableName":"UPD","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}`)
			if c.want == "!" {
				a.expect(t, "ValidationException", "")
				got.expect(t, "", `{"Item":`+updItem+`}`)
				return
			}
			a.expect(t, "", "")
			got.expectAttrs(t, c.want)
		})
	}
}

// TestUpdateReturnValuesAsDynamoDB: each ReturnValues of an update, on an
// item that exists and on one the update creates.
func TestUpdateReturnValuesAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "UPD", "S")
	for _, c := range []struct{ sk, returnValues, wantType, want string }{
		{"1", "NONE", "", `{"Attributes":null}`},
		{"1", "UPDATED_OLD", "", `{"Attributes":{"n":{"N":"5"}}}`},
		{"1", "UPDATED_NEW", "", `{"Attributes":{"n":{"N":"6"},"x":{"N":"1"}}}`},
		{"1", "ALL_OLD", "", `{"Attributes":` + updItem + `}`},
		{"1", "ALL_NEW", "", `{"Attributes":` + strings.Replace(updItem, `"n":{"N":"5"}`, `"n":{"N":"6"},"x":{"N":"1"}`, 1) + `}`},
		{"2", "ALL_OLD", "", `{"Attributes":null}`},
		{"2", "UPDATED_OLD", "", `{"Attributes":null}`},
		{"2", "ALL_NEW", "", `{"Attributes":{"PK":{"S":"p"},"SK":{"S":"2"},"x":{"N":"1"}}}`},
		{"1", "ALL", "ValidationException", ``},
	} {
		t.Run(fmt.Sprintf("%s %s", c.sk, c.returnValues), func(t *testing.T) {
			w.must("PutItem", `{"TableName":"UPD","Item":`+updItem+`}`)
			w.call("DeleteItem", `{"TableName":"UPD","Key":{"PK":{"S":"p"},"SK":{"S":"2"}}}`)
			update := "SET x = :one ADD n :one"
			if c.sk == "2" {
				update = "SET x = :one"
			}
			w.call("UpdateItem", `{"TableName":"UPD","Key":{"PK":{"S":"p"},"SK":{"S":"`+c.sk+`"}},"ReturnValues":"`+c.returnValues+
				`","UpdateExpression":`+jsonString(update)+updValuesOf(update)+`}`).expect(t, c.wantType, c.want)
		})
	}
}
