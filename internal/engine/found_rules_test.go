package engine_test

import (
	"slices"
	"strings"
	"testing"
)

// Rules the differential test found against DynamoDB Local 2.9.30 while
// issue 22 was fixed, pinned here in plain go test.

// TestNumberSetsAreWrittenAnewWhenChanged: a number set an update changes
// (ADD or DELETE of members) is written with every member in its plain form
// (1E+2 as 100); one it leaves as it is keeps its text.
func TestNumberSetsAreWrittenAnewWhenChanged(t *testing.T) {
	w := ruleWire(t)
	update := func(expr, set string) []string {
		t.Helper()
		a := w.must("UpdateItem", `{"TableName":"TTT","Key":{"PK":{"S":"ns"},"SK":{"S":"1"}},"ReturnValues":"ALL_NEW",
			"UpdateExpression":`+jsonString(expr)+`,"ExpressionAttributeValues":{":v":{"NS":`+set+`}}}`)
		var got []string
		for _, n := range a.body["Attributes"].(map[string]any)["ns"].(map[string]any)["NS"].([]any) {
			got = append(got, n.(string))
		}
		slices.Sort(got)
		return got
	}
	for _, c := range []struct {
		expr, set string
		want      []string
	}{
		{"SET ns = :v", `["1E2","3.5"]`, []string{"1E+2", "3.5"}},
		{"ADD ns :v", `["1E2"]`, []string{"1E+2", "3.5"}},
		{"ADD ns :v", `["2"]`, []string{"100", "2", "3.5"}},
		{"SET ns = :v", `["1E2","3.5"]`, []string{"1E+2", "3.5"}},
		{"DELETE ns :v", `["3.50"]`, []string{"100"}},
	} {
		if got := update(c.expr, c.set); !slices.Equal(got, c.want) {
			t.Fatalf("%s %s: got %v, want %v", c.expr, c.set, got, c.want)
		}
	}
}

// TestStartKeyOfAnotherTypeIsRefused: an update may give an index key
// another type than the index's (DynamoDB Local indexes the item all the
// same); a read that starts from such a key is refused, a binary for a
// string as much as a number.
func TestStartKeyOfAnotherTypeIsRefused(t *testing.T) {
	w := ruleWire(t)
	w.must("UpdateItem", `{"TableName":"TTT","Key":{"PK":{"S":"p"},"SK":{"S":"3"}},"UpdateExpression":"SET L1 = :v, G1 = :v","ExpressionAttributeValues":{":v":{"B":"AQI="}}}`)
	w.must("UpdateItem", `{"TableName":"TTT","Key":{"PK":{"S":"p"},"SK":{"S":"4"}},"UpdateExpression":"SET L1 = :v","ExpressionAttributeValues":{":v":{"N":"5"}}}`)
	if got := w.must("Scan", `{"TableName":"TTT","IndexName":"LKO"}`).count(); got != 4 {
		t.Fatalf("LKO holds %d items, want 4 (keys of three types)", got)
	}
	query := `"KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p"}},`
	for _, c := range []struct{ op, index, params, start string }{
		{"Scan", "LKO", "", `"L1":{"B":"AQI="}`},
		{"Query", "LKO", query, `"L1":{"B":"AQI="}`},
		{"Scan", "LKO", "", `"L1":{"N":"5"}`},
		{"Query", "LKO", query, `"L1":{"N":"5"}`},
		{"Scan", "GKO", "", `"G1":{"B":"AQI="}`},
	} {
		sk := "3"
		if strings.Contains(c.start, `"N"`) {
			sk = "4"
		}
		body := `{"TableName":"TTT","IndexName":"` + c.index + `",` + c.params +
			`"ExclusiveStartKey":{"PK":{"S":"p"},"SK":{"S":"` + sk + `"},` + c.start + `}}`
		t.Run(c.op+" "+c.index+" "+c.start, func(t *testing.T) {
			w.call(c.op, body).check(t, "ValidationException", -1)
		})
	}
}

// TestUpdatesKeepTheTextOfNumbersTheyDoNotChange: removing a list element
// or setting a map key leaves the numbers beside it as they were written
// (1E-130, a nested set's 1E+2); the interpreter the engine applies updates
// with rewrites every number it touches.
func TestUpdatesKeepTheTextOfNumbersTheyDoNotChange(t *testing.T) {
	w := ruleWire(t)
	w.must("PutItem", `{"TableName":"TTT","Item":{"PK":{"S":"t"},"SK":{"S":"1"},"l":{"L":[{"N":"5"},{"L":[{"N":"1E-130"}]},{"N":"2.50"}]},
		"m":{"M":{"z":{"NS":["1E2","3"]}}}}}`)
	a := w.must("UpdateItem", `{"TableName":"TTT","Key":{"PK":{"S":"t"},"SK":{"S":"1"}},"ReturnValues":"ALL_NEW",
		"UpdateExpression":"REMOVE l[0] SET m.y = :v","ExpressionAttributeValues":{":v":{"N":"1"}}}`)
	got := mustJSON(t, a.body["Attributes"])
	for _, want := range []string{`"l":{"L":[{"L":[{"N":"1E-130"}]},{"N":"2.50"}]}`, `"1E+2"`} {
		if !strings.Contains(got, want) {
			t.Errorf("after REMOVE l[0] SET m.y: %s, want %s in it", got, want)
		}
	}
}
