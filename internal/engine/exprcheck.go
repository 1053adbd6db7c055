package engine

// What DynamoDB checks of a well-formed condition before it reads an item:
// functions known and used where they may be, their operand counts, the
// types of operands it knows (values, and size() being a number), and that
// no operand is compared with itself.

// conditionFunctions take their operand count; size is an operand, not a
// condition; the update functions belong to update expressions.
var (
	conditionFunctions = map[string]int{"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
		"begins_with": 2, "contains": 2}
	updateFunctions = map[string]int{"if_not_exists": 2, "list_append": 2}
)

// attributeTypes are the names attribute_type takes.
var attributeTypes = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "NULL": true,
	"M": true, "L": true, "SS": true, "NS": true, "BS": true}

// checkCondition checks a condition's nodes.
func (p *parser) checkCondition(n *node) *parseError {
	switch n.kind {
	case nodeAnd, nodeOr, nodeNot:
		for _, c := range n.args {
			if err := p.checkCondition(c); err != nil {
				return err
			}
		}
		return nil
	case nodeFunc:
		return p.checkFunction(n, true)
	}
	for _, o := range n.args {
		if err := p.checkOperand(o); err != nil {
			return err
		}
	}
	switch n.kind {
	case nodeCompare:
		if n.op != "=" && n.op != "<>" {
			if err := p.checkOrdered(n.op, n.args...); err != nil {
				return err
			}
		}
	case nodeBetween:
		if err := p.checkOrdered("BETWEEN", n.args...); err != nil {
			return err
		}
		if err := p.checkBounds(n.args[1].value, n.args[2].value); err != nil {
			return err
		}
	case nodeIn:
		if len(n.args)-1 > maxInOperands {
			return p.semantic("The IN operator is provided with too many operands; number of operands: %d", len(n.args)-1)
		}
	}
	return p.checkDistinct(n)
}

// checkOperand checks an operand: a function there must be size().
func (p *parser) checkOperand(o *node) *parseError {
	if o.kind != nodeFunc {
		return nil
	}
	if o.op != "size" {
		if err := p.checkFunctionName(o.op); err != nil {
			return err
		}
		return p.semantic("The function is not allowed to be used this way in an expression; function: %s", o.op)
	}
	return p.checkFunction(o, false)
}

func (p *parser) checkFunctionName(name string) *parseError {
	if _, ok := updateFunctions[name]; ok {
		return p.semantic("The function is not allowed in a condition expression; function: %s", name)
	}
	if _, ok := conditionFunctions[name]; !ok && name != "size" {
		return p.semantic("Invalid function name; function: %s", name)
	}
	return nil
}

// checkFunction checks a function used as a condition, or size() as an
// operand.
func (p *parser) checkFunction(n *node, asCondition bool) *parseError {
	if err := p.checkFunctionName(n.op); err != nil {
		return err
	}
	if asCondition && n.op == "size" {
		return p.semantic("The function is not allowed to be used this way in an expression; function: size")
	}
	want := conditionFunctions[n.op]
	if n.op == "size" {
		want = 1
	}
	if len(n.args) != want {
		return p.semantic("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", n.op, len(n.args))
	}
	for _, a := range n.args {
		if err := p.checkOperand(a); err != nil {
			return err
		}
	}
	switch n.op {
	case "attribute_exists", "attribute_not_exists":
		if n.args[0].kind != nodePath {
			return p.semantic("Operator or function requires a document path; operator or function: %s", n.op)
		}
	case "attribute_type":
		t := n.args[1]
		if t.kind != nodeValue {
			return p.semantic("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: %s", "{B,NULL,S,N,BS,SS,NS,BOOL,M,L}")
		}
		if typ := typeOf(t.value); typ != "S" {
			return p.semantic("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: %s", typ)
		}
		if !attributeTypes[*t.value.S] {
			return p.semantic("Invalid attribute type name found; type: %s, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}", *t.value.S)
		}
	case "begins_with":
		for _, a := range n.args {
			if typ := staticType(a); typ != "" && typ != "S" && typ != "B" {
				return p.semantic("Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s", typ)
			}
		}
	case "size":
		if typ := staticType(n.args[0]); typ == "N" || typ == "BOOL" || typ == "NULL" {
			return p.semantic("Incorrect operand type for operator or function; operator or function: size, operand type: %s", typ)
		}
	}
	if n.op == "begins_with" || n.op == "contains" {
		return p.checkDistinct(n)
	}
	return nil
}

// staticType is an operand's type when it is known before reading an item:
// a value's, or N for size(); "" for a path.
func staticType(o *node) string {
	switch o.kind {
	case nodeValue:
		return typeOf(o.value)
	case nodeFunc:
		return "N"
	}
	return ""
}

// checkOrdered requires operands an ordering compares to be of a type it
// orders (a string, a number or a binary) when their type is known.
func (p *parser) checkOrdered(op string, operands ...*node) *parseError {
	for _, o := range operands {
		if typ := staticType(o); typ != "" && typ != "S" && typ != "N" && typ != "B" {
			return p.semantic("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, typ)
		}
	}
	return nil
}

// checkBounds requires BETWEEN's bounds, when both are values, to be of
// one type and in order.
func (p *parser) checkBounds(lo, hi *av) *parseError {
	if lo == nil || hi == nil {
		return nil
	}
	if typeOf(lo) != typeOf(hi) {
		return p.semantic("The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
			describeAV(lo), describeAV(hi))
	}
	if compareKeyValues(lo, hi) > 0 {
		return p.semantic("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: %s, upper bound operand: AttributeValue: %s",
			describeAV(lo), describeAV(hi))
	}
	return nil
}

// checkDistinct refuses a first operand that is a path and is also one of
// the other operands.
func (p *parser) checkDistinct(n *node) *parseError {
	first := n.args[0]
	if first.kind != nodePath {
		return nil
	}
	for _, o := range n.args[1:] {
		if o.kind == nodePath && samePath(first.path, o.path) {
			op := n.op
			switch n.kind {
			case nodeBetween:
				op = "BETWEEN"
			case nodeIn:
				op = "IN"
			}
			return p.semantic("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s",
				op, describePath(first.path))
		}
	}
	return nil
}

func samePath(a, b path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// topNames are the attributes a condition reads, at the top level.
func (n *node) topNames(out []string) []string {
	if n.kind == nodePath {
		if !containsString(out, n.path[0].Key) {
			out = append(out, n.path[0].Key)
		}
		return out
	}
	for _, a := range n.args {
		out = a.topNames(out)
	}
	return out
}
