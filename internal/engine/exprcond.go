package engine

// The grammar of conditions (ConditionExpression, FilterExpression and
// KeyConditionExpression): OR of ANDs of NOTs of predicates, each a
// comparison, a BETWEEN, an IN or a function, or a condition in
// parentheses. NOT binds tighter than AND, AND than OR.

// condition: disjunctions of conjunctions of negations of predicates.
func (p *parser) condition() (*node, *parseError) {
	left, err := p.conjunction()
	for err == nil && p.is(tokKeyword, "OR") {
		p.pos++
		var right *node
		if right, err = p.conjunction(); err == nil {
			left, err = &node{kind: nodeOr, args: []*node{left, right}}, p.countOperator()
		}
	}
	return left, err
}

func (p *parser) conjunction() (*node, *parseError) {
	left, err := p.negation()
	for err == nil && p.is(tokKeyword, "AND") {
		p.pos++
		var right *node
		if right, err = p.negation(); err == nil {
			left, err = &node{kind: nodeAnd, args: []*node{left, right}}, p.countOperator()
		}
	}
	return left, err
}

func (p *parser) negation() (*node, *parseError) {
	if !p.is(tokKeyword, "NOT") {
		return p.primary()
	}
	p.pos++
	c, err := p.negation()
	if err != nil {
		return nil, err
	}
	return &node{kind: nodeNot, args: []*node{c}}, p.countOperator()
}

// primary is a condition in parentheses or a predicate. A parenthesis may
// also open an operand ("(a) = :v"): the grouping is tried first, then the
// predicate, and the error that got further is the one reported.
func (p *parser) primary() (*node, *parseError) {
	if !p.is(tokPunct, "(") {
		return p.predicate()
	}
	start, ops := p.pos, p.ops
	group, gerr := p.grouping()
	if gerr == nil && !p.startsPredicateTail() {
		return group, nil
	}
	p.pos, p.ops = start, ops
	pred, perr := p.predicate()
	if perr == nil {
		return pred, nil
	}
	if gerr != nil && gerr.at > perr.at {
		return nil, gerr
	}
	return nil, perr
}

func (p *parser) grouping() (*node, *parseError) {
	p.pos++ // (
	c, err := p.condition()
	if err != nil {
		return nil, err
	}
	if err := p.expect(tokPunct, ")"); err != nil {
		return nil, err
	}
	if c.parens {
		return nil, p.semantic("The expression has redundant parentheses;")
	}
	c.parens = true
	return c, nil
}

// startsPredicateTail reports whether the next token continues an operand
// into a comparison, BETWEEN or IN.
func (p *parser) startsPredicateTail() bool {
	t := p.peek()
	return (t.kind == tokPunct && isComparator(t.text)) || (t.kind == tokKeyword && (t.text == "BETWEEN" || t.text == "IN"))
}

func isComparator(s string) bool {
	switch s {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// predicate is a comparison, a BETWEEN, an IN, or a function on its own.
func (p *parser) predicate() (*node, *parseError) {
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tokPunct && isComparator(t.text):
		p.pos++
		right, err := p.operand()
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeCompare, op: t.text, args: []*node{left, right}}, p.countOperator()
	case t.kind == tokKeyword && t.text == "BETWEEN":
		p.pos++
		lo, err := p.operand()
		if err == nil {
			err = p.expect(tokKeyword, "AND")
		}
		var hi *node
		if err == nil {
			hi, err = p.operand()
		}
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeBetween, args: []*node{left, lo, hi}}, p.countOperator()
	case t.kind == tokKeyword && t.text == "IN":
		p.pos++
		list, err := p.operandList()
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeIn, args: append([]*node{left}, list...)}, p.countOperator()
	case left.kind == nodeFunc && !left.parens:
		return left, nil // a function as a condition; checked later
	}
	return nil, p.syntaxError()
}

// operandList is ( operand, ... ) with at least one operand.
func (p *parser) operandList() ([]*node, *parseError) {
	if err := p.expect(tokPunct, "("); err != nil {
		return nil, err
	}
	var list []*node
	for {
		o, err := p.operand()
		if err != nil {
			return nil, err
		}
		list = append(list, o)
		if !p.is(tokPunct, ",") {
			break
		}
		p.pos++
	}
	return list, p.expect(tokPunct, ")")
}
