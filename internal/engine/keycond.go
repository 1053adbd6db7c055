package engine

import "bytes"

// keyCond is a Query's key condition: the partition key's value and at most
// one condition on the sort key.
type keyCond struct {
	hash   *av
	op     string // "", "=", "<", "<=", ">", ">=", "BETWEEN" or "begins_with"
	v1, v2 *av
}

var mirrored = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyCondition reads a KeyConditionExpression against the keys it queries.
// DynamoDB Local does not hold key conditions to the 4 KB other expressions
// have.
func (x *exprs) keyCondition(expr string, keys keySchema, types map[string]string) (*keyCond, error) {
	const label = "KeyConditionExpression"
	if expr == "" {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	if err := x.use(label, expr); err != nil {
		return nil, err
	}
	p := newParser(x, label, expr)
	root, perr := p.condition()
	if perr == nil {
		perr = p.end()
	}
	if perr != nil {
		return nil, perr.err
	}
	var parts []*node
	var flatten func(n *node) error
	flatten = func(n *node) error {
		switch n.kind {
		case nodeAnd:
			if err := flatten(n.args[0]); err != nil {
				return err
			}
			return flatten(n.args[1])
		case nodeOr:
			return validation("Invalid operator used in KeyConditionExpression: OR")
		case nodeNot:
			return validation("Invalid operator used in KeyConditionExpression: NOT")
		}
		parts = append(parts, n)
		return nil
	}
	if err := flatten(root); err != nil {
		return nil, err
	}
	if len(parts) > 2 {
		return nil, validation("Conditions can be of length 1 or 2 only")
	}
	kc := &keyCond{}
	for _, part := range parts {
		attr, op, v1, v2, err := keyPart(part)
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
	return kc, kc.check(keys, types)
}

// check refuses key values DynamoDB refuses: empty, of the wrong type, a
// sort key over 1,024 bytes, begins_with of a number, BETWEEN out of order.
func (kc *keyCond) check(keys keySchema, types map[string]string) error {
	for _, part := range []struct {
		attr string
		v    *av
	}{{keys.Hash, kc.hash}, {keys.Range, kc.v1}, {keys.Range, kc.v2}} {
		if part.v != nil && ((part.v.S != nil && *part.v.S == "") || (typeOf(part.v) == "B" && len(part.v.B) == 0)) {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
				map[bool]string{true: "string", false: "binary"}[part.v.S != nil], part.attr)
		}
	}
	if typeOf(kc.hash) != types[keys.Hash] {
		return validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	for _, v := range []*av{kc.v1, kc.v2} {
		if v != nil && typeOf(v) != types[keys.Range] {
			return validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		if v != nil && keyValueSize(v) > maxRangeKeyBytes {
			return validation("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		}
	}
	if kc.op == "begins_with" && kc.v1.N != nil {
		return validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
	}
	if kc.op == "BETWEEN" && compareKeyValues(kc.v1, kc.v2) > 0 {
		return validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s", describeAV(kc.v1), describeAV(kc.v2))
	}
	return nil
}

// keyPart reads one comparison of a key condition: a key attribute and
// values.
func keyPart(n *node) (attr, op string, v1, v2 *av, err error) {
	bad := validation("Invalid KeyConditionExpression: the condition is not of a supported form")
	switch n.kind {
	case nodeCompare:
		if _, ok := mirrored[n.op]; !ok {
			return "", "", nil, nil, validationf("Invalid operator used in KeyConditionExpression: %s", n.op)
		}
		l, r := keyOperand(n.args[0]), keyOperand(n.args[1])
		switch {
		case l.name != "" && r.value != nil:
			return l.name, n.op, r.value, nil, nil
		case r.name != "" && l.value != nil:
			return r.name, mirrored[n.op], l.value, nil, nil
		}
	case nodeBetween:
		l, lo, hi := keyOperand(n.args[0]), keyOperand(n.args[1]), keyOperand(n.args[2])
		if l.name != "" && lo.value != nil && hi.value != nil {
			return l.name, "BETWEEN", lo.value, hi.value, nil
		}
	case nodeFunc:
		if n.op != "begins_with" {
			return "", "", nil, nil, validationf("Invalid operator used in KeyConditionExpression: %s", n.op)
		}
		if len(n.args) == 2 {
			l, r := keyOperand(n.args[0]), keyOperand(n.args[1])
			if l.name != "" && r.value != nil {
				return l.name, "begins_with", r.value, nil, nil
			}
		}
	case nodeIn:
		return "", "", nil, nil, validation("Invalid operator used in KeyConditionExpression: IN")
	}
	return "", "", nil, nil, bad
}

type operand struct {
	name  string
	value *av
}

// keyOperand reads a top-level attribute name or a :value.
func keyOperand(n *node) operand {
	switch {
	case n.kind == nodePath && len(n.path) == 1:
		return operand{name: n.path[0].Key}
	case n.kind == nodeValue:
		return operand{value: n.value}
	}
	return operand{}
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
