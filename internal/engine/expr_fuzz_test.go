package engine

import (
	"encoding/json"
	"testing"
)

// FuzzExpressions holds the expression parser to never panicking and never
// accepting what it then cannot evaluate, whatever a client sends:
//
//	go test ./internal/engine -run XXX -fuzz FuzzExpressions -fuzztime 1m
func FuzzExpressions(f *testing.F) {
	for _, s := range []string{
		"a = :v", "NOT (m.x BETWEEN :v AND :w)", "size(l[0]) IN (:v, :w)", "((a))", "(a) = :v AND (b < #n)",
		"attribute_type(a, :t) OR contains(ss, :v)", "begins_with(#n.x[3], :v)", "SET a = if_not_exists(b, :v) + :w REMOVE c[1]",
		"ADD n :v DELETE ss :w", "a, b.c[2], #n", "PK = :v AND SK BETWEEN :v AND :w", "SET a = (:v + :w), b = list_append(l, :l)",
		"a[01] = :v", "a.and = :v", "_a = :v", "", "(", ")", ":v", "#n", "SET", "a IN ()",
	} {
		f.Add(s)
	}
	it, err := decodeItem(json.RawMessage(`{"a":{"S":"x"},"b":{"N":"1"},"l":{"L":[{"N":"2"},{"M":{"x":{"S":"y"}}}]},"m":{"M":{"x":{"N":"3"}}},"ss":{"SS":["x"]}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		x := func() *exprs {
			x, err := newExprs(map[string]string{"#n": "m"}, json.RawMessage(`{":v":{"N":"1"},":w":{"S":"x"},":t":{"S":"N"},":l":{"L":[]}}`))
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		if c, err := x().compile("ConditionExpression", expr); err == nil && c != nil {
			c.match(it)
			c.match(nil)
			c.names()
		}
		_, _ = x().projection(expr)
		_, _ = x().keyCondition(expr, keySchema{Hash: "PK", Range: "SK"}, map[string]string{"PK": "N", "SK": "S"})
		if u, err := x().parseUpdate(&expr); err == nil && u != nil {
			_, _ = u.apply(it)
		}
	})
}
