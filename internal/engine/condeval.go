package engine

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Evaluating a checked condition against an item, as DynamoDB does: a
// comparison or function whose operand the item lacks, or whose operands
// are of different types, is false (<> true); numbers compare by value at
// any depth, strings and binaries by their bytes, sets as sets.

// holds evaluates a condition against an item (nil: there is none).
func (n *node) holds(it item) bool {
	switch n.kind {
	case nodeAnd:
		return n.args[0].holds(it) && n.args[1].holds(it)
	case nodeOr:
		return n.args[0].holds(it) || n.args[1].holds(it)
	case nodeNot:
		return !n.args[0].holds(it)
	case nodeCompare:
		return compareValues(n.op, n.args[0].eval(it), n.args[1].eval(it))
	case nodeBetween:
		v, lo, hi := n.args[0].eval(it), n.args[1].eval(it), n.args[2].eval(it)
		return compareValues(">=", v, lo) && compareValues("<=", v, hi)
	case nodeIn:
		v := n.args[0].eval(it)
		for _, c := range n.args[1:] {
			if compareValues("=", v, c.eval(it)) {
				return true
			}
		}
		return false
	case nodeFunc:
		return n.call(it)
	}
	return false
}

// eval is an operand's value in an item; nil when it has none.
func (n *node) eval(it item) *av {
	switch n.kind {
	case nodeValue:
		return n.value
	case nodePath:
		return valueAt(it, n.path)
	case nodeFunc: // size, the only function that is an operand
		return sizeOf(n.args[0].eval(it))
	}
	return nil
}

func (n *node) call(it item) bool {
	a := n.args[0].eval(it)
	switch n.op {
	case "attribute_exists":
		return a != nil
	case "attribute_not_exists":
		return a == nil
	}
	b := n.args[1].eval(it)
	if a == nil || b == nil {
		return false
	}
	switch n.op {
	case "attribute_type":
		return b.S != nil && typeOf(a) == *b.S
	case "begins_with":
		switch {
		case a.S != nil && b.S != nil:
			return strings.HasPrefix(*a.S, *b.S)
		case typeOf(a) == "B" && typeOf(b) == "B":
			return bytes.HasPrefix(a.B, b.B)
		}
		return false
	}
	return contains(a, b)
}

// contains is contains(a, b): a substring, a member of a set, an element
// of a list.
func contains(a, b *av) bool {
	switch tb := typeOf(b); {
	case a.S != nil && b.S != nil:
		return strings.Contains(*a.S, *b.S)
	case typeOf(a) == "B" && tb == "B":
		return bytes.Contains(a.B, b.B)
	case a.SS != nil && b.S != nil:
		return slices.ContainsFunc(a.SS, func(s *string) bool { return *s == *b.S })
	case a.NS != nil && b.N != nil:
		return slices.ContainsFunc(a.NS, func(s *string) bool { return compareKeyValues(&av{N: s}, b) == 0 })
	case a.BS != nil && tb == "B":
		return slices.ContainsFunc(a.BS, func(s []byte) bool { return bytes.Equal(s, b.B) })
	case a.L != nil:
		for _, e := range a.L {
			if sameValue(e, b) {
				return true
			}
		}
	}
	return false
}

// sizeOf is size(v): a string's length in UTF-16 units (as DynamoDB Local
// counts it), a binary's bytes, a set's, list's or map's elements; nil for
// other types.
func sizeOf(v *av) *av {
	if v == nil {
		return nil
	}
	var n int
	switch typeOf(v) {
	case "S":
		n = len(utf16.Encode([]rune(*v.S)))
	case "B":
		n = len(v.B)
	case "SS":
		n = len(v.SS)
	case "NS":
		n = len(v.NS)
	case "BS":
		n = len(v.BS)
	case "L":
		n = len(v.L)
	case "M":
		n = len(v.M)
	default:
		return nil
	}
	s := strconv.Itoa(n)
	return &av{N: &s}
}

// compareValues applies a comparator; an operand missing, or operands of
// types the comparator does not relate, make it false (and <> true).
func compareValues(op string, a, b *av) bool {
	if a == nil || b == nil {
		return op == "<>"
	}
	switch op {
	case "=":
		return sameValue(a, b)
	case "<>":
		return !sameValue(a, b)
	}
	ta := typeOf(a)
	if ta != typeOf(b) || (ta != "S" && ta != "N" && ta != "B") {
		return false
	}
	c := compareKeyValues(a, b)
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// sameValue is DynamoDB's equality: same type, numbers by value at any
// depth, sets as sets.
func sameValue(a, b *av) bool {
	t := typeOf(a)
	if t != typeOf(b) {
		return false
	}
	switch t {
	case "N":
		return compareKeyValues(a, b) == 0
	case "L":
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !sameValue(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case "M":
		if len(a.M) != len(b.M) {
			return false
		}
		for k, v := range a.M {
			if w, ok := b.M[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case "SS", "NS", "BS":
		ka, _, _ := setMembers(a)
		kb, _, _ := setMembers(b)
		return sameStrings(toPointers(ka), toPointers(kb))
	}
	return equalAV(a, b)
}

func toPointers(ss []string) []*string {
	out := make([]*string, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}
