package engine_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// exprValues are the placeholders the expression tests may use; each test
// sends exactly those its expression names.
var exprValues = map[string]string{
	":n": `{"N":"1"}`, ":s": `{"S":"a"}`, ":t": `{"BOOL":true}`, ":m": `{"M":{}}`, ":l": `{"L":[]}`,
	":z": `{"NULL":true}`, ":ss": `{"SS":["a"]}`, ":b": `{"B":"AQ=="}`, ":ty": `{"S":"FOO"}`, ":tn": `{"S":"N"}`,
	":one": `{"N":"1"}`, ":four": `{"N":"4"}`, ":six": `{"N":"6"}`, ":eight": `{"N":"8"}`, ":two": `{"N":"2"}`,
}

var (
	placeholderRE = regexp.MustCompile(`:[a-z]+`)
	expressionRE  = regexp.MustCompile(`Expression":"[^"]*`)
)

// valuesOf writes the ExpressionAttributeValues of the placeholders exprs use.
func valuesOf(exprs ...string) string {
	seen := map[string]bool{}
	var parts []string
	for _, e := range exprs {
		for _, p := range placeholderRE.FindAllString(e, -1) {
			if v, ok := exprValues[p]; ok && !seen[p] {
				seen[p] = true
				parts = append(parts, jsonString(p)+":"+v)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return `,"ExpressionAttributeValues":{` + strings.Join(parts, ",") + `}`
}

func scanWithFilter(filter string) string {
	return `{"TableName":"TTT","FilterExpression":` + jsonString(filter) + valuesOf(filter) + `}`
}

// TestConditionsDynamoDBRefuses: expressions DynamoDB Local refuses before
// reading an item (a ValidationException) are refused here too, never read
// as false (or, under NOT, as true). Each was accepted before (issue 22).
func TestConditionsDynamoDBRefuses(t *testing.T) {
	w := ruleWire(t)
	long := func(n int, sep, part string) string { return strings.Repeat(part+sep, n-1) + part }
	refused := []string{
		// unknown and misplaced functions
		"attribute_not_exist(a)", "BEGINS_WITH(a, :s)", "Size(a) = :n", "size(a)", "attribute_exists(a) = :n",
		"if_not_exists(a, :n) = :n", "list_append(a, :l) = :l",
		// syntax
		"a = :n b = :n", "a = b = c", "NOT a", "a IN ()", "l[a] = :n", "a.1 = :n", "a[01] = :n", "_a = :n", "1a = :n",
		"a.and = :n", "attribute_not_exists()",
		// redundant parentheses
		"((a = :n))", "(a = :n) AND ((b = :n))", "((a)) = :n", "NOT ((a = :n))", "((NOT a = :n))",
		// an operand compared with itself
		"a = a", "m.x = m.x", "a <> a", "begins_with(a, a)", "contains(a, a)", "a BETWEEN a AND :n", "a BETWEEN :n AND a",
		"a IN (a, :n)",
		// operand types known before any item is read
		"a < :t", ":t < a", "a < :m", "a < :l", "a < :z", "a < :ss", "size(a) < :t", "a BETWEEN :s AND :n",
		"a BETWEEN :t AND :t", "begins_with(a, :n)", "begins_with(:n, a)", "begins_with(size(a), :s)", "size(:n) = :n",
		"size(:t) = :n", "size(:z) = :n", "size(size(a)) = :n", "attribute_type(a, :ty)", "attribute_type(a, :n)",
		"attribute_type(a, :s)", "attribute_type(a, :m)", "attribute_type(a, b)",
		// operands and arity
		"attribute_exists(:n)", "attribute_exists(size(a))", "begins_with(a)", "attribute_exists(a, b)", "size(a, b) = :n",
		// limits: 101 IN operands, 301 operators, 33 path levels, an index past 2^31-1, 4 KB
		"a IN (" + long(101, ", ", ":n") + ")", long(151, " AND ", "a = :n"), long(151, " AND ", "attribute_exists(a)"),
		long(101, " AND ", "size(a) = :n"), "attribute_exists(a" + strings.Repeat(".b", 32) + ")",
		"attribute_exists(a" + strings.Repeat("[0]", 32) + ")", "a[2147483648] = :n", "a = :n" + strings.Repeat(" ", 4091),
	}
	for _, filter := range refused {
		t.Run(fmt.Sprintf("%.60s", filter), func(t *testing.T) {
			w.call("Scan", scanWithFilter(filter)).check(t, "ValidationException", -1)
		})
	}
}

// TestConditionsDynamoDBAccepts: the expressions next to the refused ones
// that DynamoDB Local accepts, with the items it finds.
func TestConditionsDynamoDBAccepts(t *testing.T) {
	w := ruleWire(t)
	long := func(n int, sep, part string) string { return strings.Repeat(part+sep, n-1) + part }
	for _, c := range []struct {
		filter string
		count  int
	}{
		{":n = :n", 2}, {"size(a) = size(a)", 1}, {"a = :t", 0}, {"a IN (:n)", 0}, {"begins_with(a, :b)", 0},
		{"contains(a, :m)", 0}, {"attribute_type(a, :tn)", 0}, {"size(a) = :s", 0}, {"a between :n and :n", 0},
		{"not a = :n", 2}, {"a IN (:n, :s, :t)", 0}, {"contains(size(a), :n)", 0}, {":n BETWEEN :n AND :n", 2},
		{"size(:s) = :n", 2}, {"size(:l) = :n", 0}, {"size(:m) = :n", 0}, {"(a = :n)", 0}, {"(a) = :n", 0}, {"(:n) = a", 0},
		{"NOT (a = :n)", 2}, {"(NOT a = :n)", 2}, {"((a = :n) AND b = :n)", 0}, {":s < :n", 0}, {"contains(:n, a)", 0},
		{"attribute_type(:s, :tn)", 0}, {"a_b = :n", 0}, {"a [0] = :n", 0}, {"a . b = :n", 0}, {"attribute_exists(size)", 0},
		{"a.size = :n", 0}, {"b BETWEEN a AND a", 0}, {"a IN (size(a), :n)", 0}, {"size(a) BETWEEN size(b) AND :n", 0},
		{"a IN (" + long(100, ", ", ":n") + ")", 0}, {long(150, " AND ", "a = :n"), 0}, {long(100, " AND ", "size(a) = :n"), 1},
		{"attribute_exists(a" + strings.Repeat(".b", 31) + ")", 0}, {"a[2147483647] = :n", 0},
		{"a = :s" + strings.Repeat(" ", 4090), 0},
		// BETWEEN, IN and comparisons of nested paths, list elements and size()
		{"m.x BETWEEN :one AND :four", 1}, {"l[0] BETWEEN :one AND :four", 1}, {"size(a) BETWEEN :one AND :four", 1},
		{"NOT (m.x BETWEEN :one AND :four)", 1}, {":six BETWEEN b AND :eight", 1}, {"b BETWEEN :one AND m.x", 0},
		{"size(m) = :two", 1}, {"size(m) > size(l)", 0}, {"m.x IN (:one, :four)", 0}, {"size(l) IN (:two, :four)", 1},
		{":one IN (b, :two)", 0}, {"m.x < b", 1}, {"size(b) <> :n", 2}, {"size(zz) <> :n", 2}, {"zz <> yy", 2}, {"zz = yy", 0},
	} {
		t.Run(fmt.Sprintf("%.60s", c.filter), func(t *testing.T) {
			w.call("Scan", scanWithFilter(c.filter)).check(t, "", c.count)
		})
	}
}

// TestConditionValuesCompareAsDynamoDBDoes: numbers compare by value at any
// depth, sets as sets, strings by size in characters.
func TestConditionValuesCompareAsDynamoDBDoes(t *testing.T) {
	w := ruleWire(t)
	w.must("PutItem", `{"TableName":"TTT","Item":{"PK":{"S":"q"},"SK":{"S":"1"},"u":{"S":"ü"},"l":{"L":[{"N":"1.50"}]},
		"m":{"M":{"x":{"N":"1.50"}}},"ns":{"NS":["1.0","3"]},"bs":{"BS":["AQ==","Ag=="]},"e":{"S":""},"b":{"B":"AQI="}}}`)
	for _, c := range []struct {
		filter, values string
		count          int
	}{
		{"size(u) = :v", `{":v":{"N":"1"}}`, 1}, {"size(u) = :v", `{":v":{"N":"2"}}`, 0},
		{"l = :v", `{":v":{"L":[{"N":"1.5"}]}}`, 1}, {"m = :v", `{":v":{"M":{"x":{"N":"1.5"}}}}`, 1},
		{"ns = :v", `{":v":{"NS":["1","3.0"]}}`, 1}, {"contains(ns, :v)", `{":v":{"N":"3.00"}}`, 1},
		{"contains(l, :v)", `{":v":{"N":"1.5"}}`, 1}, {"l IN (:v)", `{":v":{"L":[{"N":"1.5"}]}}`, 1},
		{"size(bs) = :v", `{":v":{"N":"2"}}`, 1}, {"size(b) = :v", `{":v":{"N":"2"}}`, 1}, {"size(e) = :v", `{":v":{"N":"0"}}`, 1},
		{"begins_with(e, :v)", `{":v":{"S":""}}`, 1}, {"contains(u, :v)", `{":v":{"S":""}}`, 1},
		{"contains(b, :v)", `{":v":{"B":"Ag=="}}`, 1}, {"contains(bs, :v)", `{":v":{"B":"Ag=="}}`, 1},
		{"u > :v", `{":v":{"S":"z"}}`, 1}, {"u < :v", `{":v":{"S":"\uffff"}}`, 1},
		{"attribute_type(l[0], :v)", `{":v":{"S":"N"}}`, 1}, {"m.x BETWEEN :v AND :v", `{":v":{"N":"1.5"}}`, 1},
	} {
		t.Run(c.filter+" "+c.values, func(t *testing.T) {
			body := `{"TableName":"TTT","KeyConditionExpression":"PK = :p","FilterExpression":` + jsonString(c.filter) +
				`,"ExpressionAttributeValues":` + strings.Replace(c.values, "{", `{":p":{"S":"q"},`, 1) + `}`
			w.call("Query", body).check(t, "", c.count)
		})
	}
}

// TestInvalidConditionWritesNothing: a write whose condition DynamoDB
// refuses writes nothing, under NOT too, and a condition that reads a nested
// path with BETWEEN holds or fails as DynamoDB's does.
func TestInvalidConditionWritesNothing(t *testing.T) {
	w := ruleWire(t)
	update := func(cond string) answer {
		return w.call("UpdateItem", `{"TableName":"TTT","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"UpdateExpression":"SET z = :n",
			"ConditionExpression":`+jsonString(cond)+valuesOf(cond, ":n")+`}`)
	}
	for _, cond := range []string{"attribute_not_exist(a)", "NOT attribute_not_exist(a)", "NOT (a = a)", "NOT (a < :t)"} {
		update(cond).check(t, "ValidationException", -1)
	}
	update("NOT (m.x BETWEEN :one AND :four)").check(t, "ConditionalCheckFailedException", -1)
	got := w.must("GetItem", `{"TableName":"TTT","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}`)
	if item, _ := got.body["Item"].(map[string]any); item["z"] != nil {
		t.Fatalf("after refused and failed conditions: %v, want no z", item)
	}
	update("m.x BETWEEN :one AND :four").check(t, "", -1)
}

// TestExpressionsOfOtherKindsDynamoDBRefuses: update, key condition and
// projection expressions DynamoDB Local refuses, and ones beside them it
// accepts.
func TestExpressionsOfOtherKindsDynamoDBRefuses(t *testing.T) {
	w := ruleWire(t)
	key := `"Key":{"PK":{"S":"p"},"SK":{"S":"1"}}`
	update := func(e string) string {
		return `{"TableName":"TTT",` + key + `,"UpdateExpression":` + jsonString(e) + valuesOf(e) + `}`
	}
	query := func(kc string) string {
		return `{"TableName":"TTT","KeyConditionExpression":` + jsonString(kc) + `,"ExpressionAttributeValues":{":p":{"S":"p"}}}`
	}
	get := func(proj string) string {
		return `{"TableName":"TTT",` + key + `,"ProjectionExpression":` + jsonString(proj) + `}`
	}
	for _, c := range []struct {
		op, body, want string
	}{
		{"UpdateItem", update("SET z = b + :n - :n"), "ValidationException"},
		{"UpdateItem", update("SET z = b + (:n - :n)"), "ValidationException"},
		{"UpdateItem", update("SET z = ((b))"), "ValidationException"},
		{"UpdateItem", update("SET z = if_not_exists(b)"), "ValidationException"},
		{"UpdateItem", update("SET z = if_not_exists(:n, b)"), "ValidationException"},
		{"UpdateItem", update("SET z = list_append(l, :l, :l)"), "ValidationException"},
		{"UpdateItem", update("SET :n = z"), "ValidationException"},
		{"UpdateItem", update("ADD z b"), "ValidationException"},
		{"UpdateItem", update("SET _z = :n"), "ValidationException"},
		{"UpdateItem", update("SET l[2147483648] = :n"), "ValidationException"},
		{"UpdateItem", update("REMOVE l[01]"), "ValidationException"},
		{"UpdateItem", update("SET z = :n + :n + :n"), "ValidationException"},
		{"UpdateItem", update("SET z = ((:n + :n))"), "ValidationException"},
		{"UpdateItem", update("SET z = ((:n)) + :n"), "ValidationException"},
		{"UpdateItem", update("SET "), "ValidationException"},
		{"UpdateItem", update("REMOVE"), "ValidationException"},
		{"UpdateItem", update("SET z = :n" + strings.Repeat(" ", 4087)), "ValidationException"},
		{"UpdateItem", update("SET z = (:n + :n)"), ""},
		{"UpdateItem", update("SET z = (:n) + (:n)"), ""},
		{"UpdateItem", update("SET y = if_not_exists(a.b, a)"), ""},
		{"UpdateItem", update("SET w = :n" + strings.Repeat(" ", 4086)), ""},
		{"Query", query("((PK = :p))"), "ValidationException"},
		{"Query", query("PK = :p AND ((SK = :p))"), "ValidationException"},
		{"Query", query("PK = :p SK = :p"), "ValidationException"},
		{"Query", query("PK = :p" + strings.Repeat(" ", 4089)), ""}, // DynamoDB Local does not limit key conditions
		{"Query", query("(PK = :p)"), ""},
		{"Query", query("(PK) = :p"), ""},
		{"GetItem", get("(a)"), "ValidationException"},
		{"GetItem", get("a" + strings.Repeat(".b", 32)), "ValidationException"},
		{"GetItem", get("_a"), "ValidationException"},
		{"GetItem", get("l[01]"), "ValidationException"},
		{"GetItem", get("a" + strings.Repeat(" ", 4096)), "ValidationException"},
		{"GetItem", get("a" + strings.Repeat(" ", 4095)), ""},
	} {
		t.Run(fmt.Sprintf("%s %.60s", c.op, expressionRE.FindString(c.body)), func(t *testing.T) {
			w.call(c.op, c.body).check(t, c.want, -1)
		})
	}
	got := w.must("GetItem", `{"TableName":"TTT",`+key+`}`)
	var item map[string]map[string]any
	b, _ := json.Marshal(got.body["Item"])
	_ = json.Unmarshal(b, &item)
	if item["y"]["S"] != "A" || item["z"]["N"] != "2" {
		t.Fatalf("after the accepted updates: y = %v, z = %v; want y = A (if_not_exists of a path into a string) and z = 2", item["y"], item["z"])
	}
}

// opItem holds one attribute of each type for TestConditionOperatorsAsDynamoDB.
const opItem = `{"TableName":"TTT","Item":{"PK":{"S":"o"},"SK":{"S":"1"},"s":{"S":"abc"},"n":{"N":"5"},"b":{"B":"AQI="},
	"t":{"BOOL":true},"z":{"NULL":true},"l":{"L":[{"S":"a"},{"N":"1"}]},"m":{"M":{"k":{"S":"v"}}},
	"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ=="]}}}`

// opValues are the placeholders TestConditionOperatorsAsDynamoDB may use.
var opValues = map[string]string{
	":ts": `{"S":"S"}`, ":tn": `{"S":"N"}`, ":tb": `{"S":"B"}`, ":tbool": `{"S":"BOOL"}`, ":tnull": `{"S":"NULL"}`,
	":tl": `{"S":"L"}`, ":tm": `{"S":"M"}`, ":tss": `{"S":"SS"}`, ":tns": `{"S":"NS"}`, ":tbs": `{"S":"BS"}`,
	":one": `{"N":"1"}`, ":two": `{"N":"2"}`, ":three": `{"N":"3"}`, ":five": `{"N":"5"}`, ":sfive": `{"S":"5"}`,
	":sa": `{"S":"a"}`, ":sb": `{"S":"b"}`, ":sab": `{"S":"ab"}`, ":sx": `{"S":"x"}`, ":ba": `{"B":"AQ=="}`, ":bb": `{"B":"Ag=="}`,
	":po": `{"S":"o"}`, ":true": `{"BOOL":true}`, ":null": `{"NULL":true}`, ":ns": `{"NS":["2","1"]}`, ":l": `{"L":[{"S":"a"},{"N":"1"}]}`,
}

// TestConditionOperatorsAsDynamoDB: each function on each type, each
// comparison, IN, and the precedence of NOT over AND over OR, as DynamoDB
// Local evaluates them in a filter (a match or not). A function of an
// operand of the wrong type is false, and <> of it true.
func TestConditionOperatorsAsDynamoDB(t *testing.T) {
	w := ruleWire(t)
	w.must("PutItem", opItem)
	for _, c := range []struct {
		filter string
		match  bool
	}{
		{"attribute_type(s, :ts)", true}, {"attribute_type(n, :tn)", true}, {"attribute_type(b, :tb)", true},
		{"attribute_type(t, :tbool)", true}, {"attribute_type(z, :tnull)", true}, {"attribute_type(l, :tl)", true},
		{"attribute_type(m, :tm)", true}, {"attribute_type(ss, :tss)", true}, {"attribute_type(ns, :tns)", true},
		{"attribute_type(bs, :tbs)", true}, {"attribute_type(ss, :tl)", false}, {"attribute_type(x, :ts)", false},
		{"size(s) = :three", true}, {"size(l) = :two", true}, {"size(m) = :one", true}, {"size(ss) = :two", true},
		{"size(b) = :two", true}, {"size(bs) = :one", true}, {"size(n) = :one", false}, {"size(t) = :one", false},
		{"size(n) <> :one", true}, {"size(x) = :one", false},
		{"contains(s, :sb)", true}, {"contains(ss, :sa)", true}, {"contains(l, :sa)", true}, {"contains(l, :one)", true},
		{"contains(ns, :one)", true}, {"contains(bs, :ba)", true}, {"contains(m, :sa)", false}, {"contains(n, :one)", false},
		{"contains(ss, :sab)", false}, {"contains(s, :one)", false},
		{"begins_with(s, :sab)", true}, {"begins_with(b, :ba)", true}, {"begins_with(s, :sb)", false}, {"begins_with(l, :sa)", false},
		{"attribute_exists(m.k)", true}, {"attribute_not_exists(m.x)", true}, {"attribute_exists(l[1])", true},
		{"attribute_exists(l[2])", false}, {"attribute_exists(s.k)", false}, {"attribute_not_exists(z)", false},
		{"n = :sfive", false}, {"n <> :sfive", true}, {"n > :sfive", false}, {"n >= :five", true}, {"s < :sb", true},
		{"b < :bb", true}, {"b > :ba", true}, {"z = :null", true}, {"t = :true", true}, {"t <> :true", false},
		{"ns = :ns", true}, {"l = :l", true}, {"x <> :one", true}, {"x = :one", false},
		{"n IN (:one, :five)", true}, {"s IN (:one, :sx)", false}, {"n BETWEEN :one AND :five", true},
		{"n BETWEEN :sa AND :sb", false}, {"s BETWEEN :sa AND :sb", true},
		{"n = :five OR n = :one AND s = :sx", true}, {"(n = :five OR n = :one) AND s = :sx", false},
		{"NOT n = :one AND s = :sx", false}, {"NOT (n = :one AND s = :sx)", true}, {"NOT NOT n = :five", true},
		{"n = :one OR NOT s = :sx AND t = :true", true},
	} {
		t.Run(c.filter, func(t *testing.T) {
			want := 0
			if c.match {
				want = 1
			}
			w.call("Query", `{"TableName":"TTT","KeyConditionExpression":"PK = :po","FilterExpression":`+jsonString(c.filter)+
				valuesFrom(opValues, ":po "+c.filter)+`}`).check(t, "", want)
		})
	}
}

// TestEmptyExpressionsAreRefused: an expression sent empty is refused, as
// DynamoDB refuses it ("The expression can not be empty"), never read as
// one not sent.
func TestEmptyExpressionsAreRefused(t *testing.T) {
	w := ruleWire(t)
	key := `"Key":{"PK":{"S":"p"},"SK":{"S":"1"}}`
	for i, c := range []struct{ op, body string }{
		{"PutItem", `{"TableName":"TTT","Item":{"PK":{"S":"p"},"SK":{"S":"9"}},"ConditionExpression":""}`},
		{"DeleteItem", `{"TableName":"TTT",` + key + `,"ConditionExpression":""}`},
		{"UpdateItem", `{"TableName":"TTT",` + key + `,"UpdateExpression":""}`},
		{"UpdateItem", `{"TableName":"TTT",` + key + `,"UpdateExpression":"SET z = :n","ConditionExpression":"","ExpressionAttributeValues":{":n":{"N":"1"}}}`},
		{"GetItem", `{"TableName":"TTT",` + key + `,"ProjectionExpression":""}`},
		{"Scan", `{"TableName":"TTT","FilterExpression":""}`},
		{"Scan", `{"TableName":"TTT","ProjectionExpression":""}`},
		{"Query", `{"TableName":"TTT","KeyConditionExpression":""}`},
		{"Query", `{"TableName":"TTT","KeyConditionExpression":"PK = :p","FilterExpression":"","ExpressionAttributeValues":{":p":{"S":"p"}}}`},
		{"BatchGetItem", `{"RequestItems":{"TTT":{"Keys":[{"PK":{"S":"p"},"SK":{"S":"1"}}],"ProjectionExpression":""}}}`},
		{"TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"TTT",` + key + `,"ConditionExpression":""}}]}`},
		{"TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"TTT",` + key + `,"UpdateExpression":""}}]}`},
		{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"TTT",` + key + `,"ProjectionExpression":""}}]}`},
	} {
		t.Run(fmt.Sprintf("%d %s", i, c.op), func(t *testing.T) {
			w.call(c.op, c.body).expect(t, "ValidationException", "")
		})
	}
	w.call("GetItem", `{"TableName":"TTT","Key":{"PK":{"S":"p"},"SK":{"S":"9"}}}`).expect(t, "", `{"Item":null}`)
}
