package engine

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/truora/minidyn/types"
)

// av is an attribute value. The engine uses the type of the expression
// interpreter it evaluates conditions and updates with, so values are never
// converted back and forth.
type av = types.Item

// item is an item, or a key, or a map of expression attribute values.
type item = map[string]*av

// decodeItem reads a DynamoDB JSON map of attribute values, checking every
// value as DynamoDB does (valid numbers, sets neither empty nor with
// duplicates, exactly one type per value, at most maxValueDepth levels of
// lists and maps). Numbers keep the text they were sent with; normalizeTop
// gives an item's own numbers their canonical form.
//
// Most items take scanItem's fast path; what it gives up on (anything
// unusual, and every invalid item) is read here with encoding/json, which
// words the errors.
func decodeItem(raw json.RawMessage) (item, error) {
	if it, ok := scanItem(raw); ok {
		return it, nil
	}
	return decodeMap(raw, 0)
}

// decodeNamed decodes a stored item's attributes that names lists, for a
// filter that reads only those (condition.names): scanNamed, or when it
// gives up the whole item, which holds the same values under those names.
func decodeNamed(raw []byte, names []string) (item, error) {
	if it, ok := scanNamed(raw, names); ok {
		return it, nil
	}
	return decodeItem(raw)
}

// DynamoDB's limits on nesting: an item's attribute holds at most 31
// levels of lists and maps, an expression's value 32 (so an update can set
// one level less than it is sent with).
const (
	maxItemDepth  = 31
	maxValueDepth = 32
)

var errNesting = validation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")

func decodeMap(raw json.RawMessage, depth int) (item, error) {
	var fields map[string]json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, validation("Start of structure or map found where not expected")
	}
	it := make(item, len(fields))
	for name, v := range fields {
		a, err := decodeAV(v, depth)
		if err != nil {
			return nil, err
		}
		it[name] = a
	}
	return it, nil
}

// decodeAV reads a value at depth levels of lists and maps; a value deeper
// than DynamoDB takes anywhere is refused before the rest is read (each
// level is read again, so depth is work as well as size).
func decodeAV(raw json.RawMessage, depth int) (*av, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, validation("Supplied AttributeValue is not a structure")
	}
	if len(fields) == 0 {
		return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	}
	if len(fields) > 1 {
		return nil, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	}
	for typ, v := range fields {
		if (typ == "L" || typ == "M") && depth >= maxValueDepth {
			return nil, errNesting
		}
		return decodeTyped(typ, v, depth)
	}
	panic("unreachable")
}

func decodeTyped(typ string, v json.RawMessage, depth int) (*av, error) {
	bad := func() (*av, error) {
		return nil, validation("Supplied AttributeValue has an invalid " + typ + " value")
	}
	switch typ {
	case "S":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad()
		}
		return &av{S: &s}, nil
	case "N":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad()
		}
		if _, err := parseDecimal(s); err != nil {
			return nil, validation(err.Error())
		}
		return &av{N: &s}, nil // as sent: see normalizeTop
	case "B":
		var b []byte
		if json.Unmarshal(v, &b) != nil {
			return bad()
		}
		if b == nil {
			b = []byte{}
		}
		return &av{B: b}, nil
	case "BOOL":
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return bad()
		}
		return &av{BOOL: &b}, nil
	case "NULL":
		var b bool
		if json.Unmarshal(v, &b) != nil || !b {
			return nil, validation("One or more parameter values were invalid: Null attribute value types must have the value of true")
		}
		return &av{NULL: &b}, nil
	case "L":
		var raws []json.RawMessage
		if json.Unmarshal(v, &raws) != nil {
			return bad()
		}
		l := make([]*av, 0, len(raws))
		for _, r := range raws {
			e, err := decodeAV(r, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, e)
		}
		return &av{L: l}, nil
	case "M":
		m, err := decodeMap(v, depth+1)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = item{}
		}
		return &av{M: m}, nil
	case "SS", "NS", "BS":
		return decodeSet(typ, v)
	}
	return nil, validation("Supplied AttributeValue has an unknown data type: " + typ)
}

func decodeSet(typ string, v json.RawMessage) (*av, error) {
	if typ != "BS" {
		var ss []string
		if json.Unmarshal(v, &ss) != nil {
			return nil, validation("Supplied AttributeValue has an invalid " + typ + " value")
		}
		return stringSet(typ, ss)
	}
	var bs [][]byte
	if json.Unmarshal(v, &bs) != nil {
		return nil, validation("Supplied AttributeValue has an invalid BS value")
	}
	for i, b := range bs {
		if slices.ContainsFunc(bs[:i], func(o []byte) bool { return bytes.Equal(o, b) }) {
			return nil, errDuplicates
		}
	}
	if len(bs) == 0 {
		return nil, errEmptySet("binary")
	}
	return &av{BS: bs}, nil
}

var errDuplicates = validation("One or more parameter values were invalid: Input collection contains duplicates")

func errEmptySet(kind string) error {
	return validation("One or more parameter values were invalid: An " + kind + " set  may not be empty")
}

// stringSet checks a string or number set (typ SS or NS) as DynamoDB does:
// not empty, no duplicates, valid numbers.
func stringSet(typ string, ss []string) (*av, error) {
	var set av
	seen := map[string]bool{}
	for _, s := range ss {
		key := s
		if typ == "NS" {
			d, err := parseDecimal(s)
			if err != nil {
				return nil, validation(err.Error())
			}
			// DynamoDB Local keeps a number set as BigDecimal
			// writes it (1E2 as 1E+2); normalizeTop rewrites an
			// item's own sets plainly.
			u, scale, _ := javaDecimal(s)
			key, s = d.String(), javaString(u, scale)
		}
		if seen[key] {
			return nil, errDuplicates
		}
		seen[key] = true
		if typ == "NS" {
			set.NS = append(set.NS, &s)
		} else {
			set.SS = append(set.SS, &s)
		}
	}
	if len(ss) == 0 {
		return nil, errEmptySet(map[string]string{"SS": "string", "NS": "number"}[typ])
	}
	return &set, nil
}

// depthOf is the levels of lists and maps in a value.
func depthOf(v *av) int {
	d := 0
	switch {
	case v.M != nil:
		for _, e := range v.M {
			d = max(d, depthOf(e))
		}
	case v.L != nil:
		for _, e := range v.L {
			d = max(d, depthOf(e))
		}
	default:
		return 0
	}
	return d + 1
}

// checkDepth refuses an item with an attribute nested deeper than
// DynamoDB stores.
func checkDepth(it item) error {
	for _, v := range it {
		if depthOf(v) > maxItemDepth {
			return errNesting
		}
	}
	return nil
}

// itemSize is an item's size as DynamoDB counts it against the 400 KB limit
// and the 1 MB page: attribute names and values.
func itemSize(it item) int {
	n := 0
	for k, v := range it {
		n += len(k) + avSize(v)
	}
	return n
}

func avSize(a *av) int {
	switch {
	case a.S != nil:
		return len(*a.S)
	case a.N != nil:
		return numberSize(*a.N)
	case a.BOOL != nil, a.NULL != nil:
		return 1
	case a.M != nil:
		n := 3
		for k, v := range a.M {
			n += 1 + len(k) + avSize(v)
		}
		return n
	case a.L != nil:
		n := 3
		for _, v := range a.L {
			n += 1 + avSize(v)
		}
		return n
	case a.SS != nil:
		n := 0
		for _, s := range a.SS {
			n += len(*s)
		}
		return n
	case a.NS != nil:
		n := 0
		for _, s := range a.NS {
			n += numberSize(*s)
		}
		return n
	case a.BS != nil:
		n := 0
		for _, s := range a.BS {
			n += len(s)
		}
		return n
	}
	return len(a.B)
}

// numberSize is one byte per two significant digits, plus one.
func numberSize(s string) int {
	d, err := parseDecimal(s)
	if err != nil {
		return len(s)
	}
	return (len(d.digits)+1)/2 + 1
}

// typeOf names an attribute value's type as DynamoDB does.
func typeOf(a *av) string {
	switch {
	case a.S != nil:
		return "S"
	case a.N != nil:
		return "N"
	case a.BOOL != nil:
		return "BOOL"
	case a.NULL != nil:
		return "NULL"
	case a.M != nil:
		return "M"
	case a.L != nil:
		return "L"
	case a.SS != nil:
		return "SS"
	case a.NS != nil:
		return "NS"
	case a.BS != nil:
		return "BS"
	}
	return "B"
}

func describeAV(a *av) string { return string(appendAV(nil, a)) }

// normalizeTop writes an item's top-level numbers and number sets in their
// canonical form (1.500 as 1.5), as DynamoDB Local stores a PutItem's item
// and a key; numbers nested in lists and maps, and those an update sets,
// it keeps as sent.
func normalizeTop(it item) item {
	for k, v := range it {
		switch {
		case v.N != nil:
			d, _ := parseDecimal(*v.N)
			s := d.String()
			it[k] = &av{N: &s}
		case v.NS != nil:
			ns := make([]*string, len(v.NS))
			for i, n := range v.NS {
				d, _ := parseDecimal(*n)
				s := d.String()
				ns[i] = &s
			}
			it[k] = &av{NS: ns}
		}
	}
	return it
}

// checkNumbers refuses numbers out of DynamoDB's range in a value the
// interpreter computed.
func checkNumbers(v *av) error {
	switch {
	case v.N != nil:
		if _, err := parseDecimal(*v.N); err != nil {
			return validation(err.Error())
		}
	case v.M != nil:
		for _, e := range v.M {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	case v.L != nil:
		for _, e := range v.L {
			if err := checkNumbers(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueKey writes a key as DynamoDB Local compares keys in a batch write
// or a transaction's reads: numbers by value (-0 and 0, 1E3 and 1000 are
// one key).
func valueKey(key item) string {
	canon := item{}
	for k, v := range key {
		canon[k] = v
	}
	return string(appendItem(nil, normalizeTop(canon)))
}
