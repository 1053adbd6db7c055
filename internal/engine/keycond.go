package engine

import (
	"bytes"

	"github.com/truora/minidyn/interpreter/language"
)

// keyCond is a Query's key condition: the partition key's value and at most
// one condition on the sort key.
type keyCond struct {
	hash   *av
	op     string // "", "=", "<", "<=", ">", ">=", "BETWEEN" or "begins_with"
	v1, v2 *av
}

var mirrored = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyCondition reads a KeyConditionExpression against the keys it queries.
func (x *exprs) keyCondition(expr string, keys keySchema, types map[string]string) (*keyCond, error) {
	if expr == "" {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	if err := x.use("KeyConditionExpression", expr); err != nil {
		return nil, err
	}
	expr, err := x.alias("KeyConditionExpression", expr)
	if err != nil {
		return nil, err
	}
	p := language.NewParser(language.NewLexer(expr))
	ast := p.ParseConditionalExpression()
	if len(p.Errors()) > 0 || ast.Expression == nil {
		return nil, validation("Invalid KeyConditionExpression: Syntax error")
	}
	var parts []language.Expression
	var flatten func(e language.Expression) error
	flatten = func(e language.Expression) error {
		if in, ok := e.(*language.InfixExpression); ok && in.Operator == "AND" {
			if err := flatten(in.Left); err != nil {
				return err
			}
			return flatten(in.Right)
		}
		if in, ok := e.(*language.InfixExpression); ok && in.Operator == "OR" {
			return validation("Invalid operator used in KeyConditionExpression: OR")
		}
		if _, ok := e.(*language.PrefixExpression); ok {
			return validation("Invalid operator used in KeyConditionExpression: NOT")
		}
		parts = append(parts, e)
		return nil
	}
	if err := flatten(ast.Expression); err != nil {
		return nil, err
	}
	if len(parts) > 2 {
		return nil, validation("Conditions can be of length 1 or 2 only")
	}
	kc := &keyCond{}
	for _, part := range parts {
		attr, op, v1, v2, err := x.keyPart(part)
		if err != nil {
			return nil, err
		}
		switch attr {
		case keys.Hash:
			if op != "=" || kc.hash != nil {
				return nil, validation("Query key condition not supported")
			}
			kc.hash = v1
		case keys.Range:
			if kc.op != "" {
				return nil, validation("KeyConditionExpressions must only contain one condition per key")
			}
			kc.op, kc.v1, kc.v2 = op, v1, v2
		default:
			return nil, validationf("Query condition missed key schema element: %s", keys.Hash)
		}
	}
	if kc.hash == nil {
		return nil, validationf("Query condition missed key schema element: %s", keys.Hash)
	}
	for _, part := range []struct {
		attr string
		v    *av
	}{{keys.Hash, kc.hash}, {keys.Range, kc.v1}, {keys.Range, kc.v2}} {
		if part.v != nil && ((part.v.S != nil && *part.v.S == "") || (typeOf(part.v) == "B" && len(part.v.B) == 0)) {
			return nil, validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
				map[bool]string{true: "string", false: "binary"}[part.v.S != nil], part.attr)
		}
	}
	if typeOf(kc.hash) != types[keys.Hash] {
		return nil, validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	for _, v := range []*av{kc.v1, kc.v2} {
		if v != nil && typeOf(v) != types[keys.Range] {
			return nil, validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
	}
	if kc.op == "begins_with" && kc.v1.N != nil {
		return nil, validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
	}
	if kc.op == "BETWEEN" && compareKeyValues(kc.v1, kc.v2) > 0 {
		return nil, validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s", describeAV(kc.v1), describeAV(kc.v2))
	}
	return kc, nil
}

// keyPart reads one comparison of a key condition.
func (x *exprs) keyPart(e language.Expression) (attr, op string, v1, v2 *av, err error) {
	bad := validation("Invalid KeyConditionExpression: the condition is not of a supported form")
	switch n := e.(type) {
	case *language.InfixExpression:
		if _, ok := mirrored[n.Operator]; !ok {
			return "", "", nil, nil, validationf("Invalid operator used in KeyConditionExpression: %s", n.Operator)
		}
		l, r := x.operand(n.Left), x.operand(n.Right)
		switch {
		case l.name != "" && r.value != nil:
			return l.name, n.Operator, r.value, nil, nil
		case r.name != "" && l.value != nil:
			return r.name, mirrored[n.Operator], l.value, nil, nil
		}
	case *language.BetweenExpression:
		l, lo, hi := x.operand(n.Left), x.operand(n.Range[0]), x.operand(n.Range[1])
		if l.name != "" && lo.value != nil && hi.value != nil {
			return l.name, "BETWEEN", lo.value, hi.value, nil
		}
	case *language.CallExpression:
		fn, ok := n.Function.(*language.Identifier)
		if !ok || fn.Value != "begins_with" {
			return "", "", nil, nil, validationf("Invalid operator used in KeyConditionExpression: %s", n.Function.String())
		}
		if len(n.Arguments) == 2 {
			l, r := x.operand(n.Arguments[0]), x.operand(n.Arguments[1])
			if l.name != "" && r.value != nil {
				return l.name, "begins_with", r.value, nil, nil
			}
		}
	}
	return "", "", nil, nil, bad
}

type operand struct {
	name  string
	value *av
}

// operand reads an attribute name (resolving #placeholders) or a :value.
func (x *exprs) operand(e language.Expression) operand {
	id, ok := e.(*language.Identifier)
	if !ok || id.Value == "" {
		return operand{}
	}
	switch id.Value[0] {
	case ':':
		return operand{value: x.values[id.Value]}
	case '#':
		return operand{name: x.names[id.Value]}
	}
	return operand{name: id.Value}
}

// compareKeyValues orders two key values of one type.
func compareKeyValues(a, b *av) int {
	if a.N != nil {
		da, _ := parseDecimal(*a.N)
		db, _ := parseDecimal(*b.N)
		return da.cmp(db)
	}
	return bytes.Compare(prefixBytes(a), prefixBytes(b))
}

// bounds returns the byte range [lo, hi) of keys (or index entry keys, which
// continue after the index's keys) that meet the condition.
func (kc *keyCond) bounds() (lo, hi []byte) {
	p := appendKeyValue(nil, kc.hash)
	at := func(v *av) []byte { return appendKeyValue(append([]byte(nil), p...), v) }
	switch kc.op {
	case "=":
		return at(kc.v1), successor(at(kc.v1))
	case "<":
		return p, at(kc.v1)
	case "<=":
		return p, successor(at(kc.v1))
	case ">":
		return successor(at(kc.v1)), successor(p)
	case ">=":
		return at(kc.v1), successor(p)
	case "BETWEEN":
		return at(kc.v1), successor(at(kc.v2))
	case "begins_with":
		pre := appendEscaped(append([]byte(nil), p...), prefixBytes(kc.v1), false)
		return pre, successor(pre)
	}
	return p, successor(p)
}

// lastKey is the table key that ends the condition's range inclusively in
// the direction of travel, or nil when the range does not end on one value.
func (kc *keyCond) lastKey(forward bool) []byte {
	p := appendKeyValue(nil, kc.hash)
	switch {
	case forward && kc.op == "<=":
		return appendKeyValue(p, kc.v1)
	case forward && kc.op == "BETWEEN":
		return appendKeyValue(p, kc.v2)
	case !forward && (kc.op == ">=" || kc.op == "BETWEEN"):
		return appendKeyValue(p, kc.v1)
	}
	return nil
}
