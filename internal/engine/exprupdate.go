package engine

// An UpdateExpression by DynamoDB's grammar: sections SET, REMOVE, ADD and
// DELETE, each at most once, of comma-separated actions. A SET's value is
// an operand, or two operands added or subtracted, or that in parentheses;
// ADD and DELETE take a :value. The engine applies updates through the
// interpreter (updateapply.go); this is what DynamoDB refuses first.

// checkUpdate refuses an update expression DynamoDB refuses before it
// reads an item.
func (x *exprs) checkUpdate(expr string) error {
	const label = "UpdateExpression"
	if err := checkLength(label, expr); err != nil {
		return err
	}
	p := newParser(x, label, expr)
	if err := p.update(); err != nil {
		return err.err
	}
	return nil
}

func (p *parser) update() *parseError {
	seen := map[string]bool{}
	for {
		t := p.peek()
		if t.kind != tokKeyword || (t.text != "SET" && t.text != "REMOVE" && t.text != "ADD" && t.text != "DELETE") {
			return p.syntaxError()
		}
		if seen[t.text] {
			return p.semantic("The %q section can only be used once in an update expression;", t.text)
		}
		seen[t.text] = true
		p.pos++
		for {
			if err := p.updateAction(t.text); err != nil {
				return err
			}
			if !p.is(tokPunct, ",") {
				break
			}
			p.pos++
		}
		if p.is(tokEOF, "") {
			return nil
		}
	}
}

func (p *parser) updateAction(section string) *parseError {
	if _, err := p.path(); err != nil {
		return err
	}
	switch section {
	case "REMOVE":
		return nil
	case "ADD", "DELETE":
		return p.expect(tokValue, "")
	}
	if err := p.expect(tokPunct, "="); err != nil {
		return err
	}
	v, err := p.setValue()
	if err != nil {
		return err
	}
	return p.checkSetValue(v)
}

// setValue is an operand, a sum or difference of two, or one of those in
// parentheses.
func (p *parser) setValue() (*node, *parseError) {
	if p.is(tokPunct, "(") {
		start := p.pos
		if sum, err := p.parenSum(); err == nil && p.endsAction() {
			return sum, nil
		}
		p.pos = start
	}
	left, err := p.operand()
	if err != nil || !p.is(tokPunct, "+") && !p.is(tokPunct, "-") {
		return left, err
	}
	op := p.peek().text
	p.pos++
	right, err := p.operand()
	if err != nil {
		return nil, err
	}
	return &node{kind: nodeArith, op: op, args: []*node{left, right}}, nil
}

// parenSum is ( sum ), the sum itself perhaps in parentheses again.
func (p *parser) parenSum() (*node, *parseError) {
	p.pos++ // (
	var sum *node
	var err *parseError
	if p.is(tokPunct, "(") {
		start := p.pos
		if sum, err = p.parenSum(); err != nil || !p.is(tokPunct, ")") {
			p.pos = start
			sum = nil
		}
	}
	if sum == nil {
		left, err := p.operand()
		if err != nil {
			return nil, err
		}
		if !p.is(tokPunct, "+") && !p.is(tokPunct, "-") {
			return nil, p.syntaxError()
		}
		op := p.peek().text
		p.pos++
		right, err := p.operand()
		if err != nil {
			return nil, err
		}
		sum = &node{kind: nodeArith, op: op, args: []*node{left, right}}
	}
	if err := p.expect(tokPunct, ")"); err != nil {
		return nil, err
	}
	if sum.parens {
		return nil, p.semantic("The expression has redundant parentheses;")
	}
	sum.parens = true
	return sum, nil
}

// endsAction reports whether the next token ends a SET action.
func (p *parser) endsAction() bool {
	t := p.peek()
	return t.kind == tokEOF || (t.kind == tokPunct && t.text == ",") || t.kind == tokKeyword
}

// checkSetValue checks a SET's value: the functions an update may use, with
// their operands, and the operands of + and -.
func (p *parser) checkSetValue(v *node) *parseError {
	switch v.kind {
	case nodeArith:
		for _, o := range v.args {
			if typ := staticType(o); o.kind == nodeValue && typ != "N" {
				return p.semantic("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", v.op, typ)
			}
			if err := p.checkSetValue(o); err != nil {
				return err
			}
		}
	case nodeFunc:
		want, ok := updateFunctions[v.op]
		if !ok {
			if _, known := conditionFunctions[v.op]; known || v.op == "size" {
				return p.semantic("The function is not allowed in an update expression; function: %s", v.op)
			}
			return p.semantic("Invalid function name; function: %s", v.op)
		}
		if len(v.args) != want {
			return p.semantic("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", v.op, len(v.args))
		}
		if v.op == "if_not_exists" && v.args[0].kind != nodePath {
			return p.semantic("Operator or function requires a document path; operator or function: if_not_exists")
		}
		for _, a := range v.args {
			if v.op == "list_append" && a.kind == nodeValue && typeOf(a.value) != "L" {
				return p.semantic("Incorrect operand type for operator or function; operator or function: list_append, operand type: %s", typeOf(a.value))
			}
			if err := p.checkSetValue(a); err != nil {
				return err
			}
		}
	}
	return nil
}
