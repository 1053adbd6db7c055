package engine

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanItem is decodeItem's fast path: one pass over the bytes, no
// encoding/json, for the JSON calgraph's own records and the SDK's requests
// are made of (every stored item is decoded this way whenever a filter,
// projection or condition reads it). It gives up — ok false — on anything
// it does not take exactly as decodeItem would: a validation error (so that
// decodeItem's slow path words it), a duplicate name, a null where a value
// should be, an escape it does not know, a binary set, invalid UTF-8.
// TestScanItemAgreesWithDecode compares the two on generated items.
func scanItem(b []byte) (it item, ok bool) {
	s := scanner{b: b}
	s.space()
	it, ok = s.object(0)
	if !ok {
		return nil, false
	}
	s.space()
	return it, s.i == len(s.b)
}

// scanner reads b from i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and consumes c, reporting whether it was there.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// object reads a map of attribute values at depth levels of lists and maps.
func (s *scanner) object(depth int) (item, bool) {
	if !s.next('{') {
		return nil, false
	}
	it := item{}
	if s.next('}') {
		return it, true
	}
	for {
		name, ok := s.str()
		if !ok || !s.next(':') {
			return nil, false
		}
		if _, dup := it[name]; dup {
			return nil, false
		}
		v, ok := s.value(depth)
		if !ok {
			return nil, false
		}
		it[name] = v
		if s.next('}') {
			return it, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

// value reads one attribute value, {"<type>": ...}.
func (s *scanner) value(depth int) (*av, bool) {
	if !s.next('{') {
		return nil, false
	}
	typ, ok := s.str()
	if !ok || !s.next(':') {
		return nil, false
	}
	var v *av
	switch typ {
	case "S":
		str, ok := s.str()
		if !ok {
			return nil, false
		}
		v = &av{S: &str}
	case "N":
		n, ok := s.str()
		if !ok {
			return nil, false
		}
		if _, err := parseDecimal(n); err != nil {
			return nil, false
		}
		v = &av{N: &n}
	case "B":
		b, ok := s.bytes()
		if !ok {
			return nil, false
		}
		v = &av{B: b}
	case "BOOL", "NULL":
		t, ok := s.boolean()
		if !ok || (typ == "NULL" && !t) {
			return nil, false
		}
		if typ == "NULL" {
			v = &av{NULL: &t}
		} else {
			v = &av{BOOL: &t}
		}
	case "M":
		if depth >= maxValueDepth {
			return nil, false
		}
		m, ok := s.object(depth + 1)
		if !ok {
			return nil, false
		}
		v = &av{M: m}
	case "L":
		if depth >= maxValueDepth {
			return nil, false
		}
		l, ok := s.list(depth + 1)
		if !ok {
			return nil, false
		}
		v = &av{L: l}
	case "SS", "NS":
		ss, ok := s.strings()
		if !ok {
			return nil, false
		}
		set, err := stringSet(typ, ss)
		if err != nil {
			return nil, false
		}
		v = set
	default:
		return nil, false
	}
	return v, s.next('}')
}

func (s *scanner) list(depth int) ([]*av, bool) {
	if !s.next('[') {
		return nil, false
	}
	l := []*av{}
	if s.next(']') {
		return l, true
	}
	for {
		v, ok := s.value(depth)
		if !ok {
			return nil, false
		}
		l = append(l, v)
		if s.next(']') {
			return l, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

func (s *scanner) strings() ([]string, bool) {
	if !s.next('[') {
		return nil, false
	}
	var out []string
	if s.next(']') {
		return out, true
	}
	for {
		str, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, str)
		if s.next(']') {
			return out, true
		}
		if !s.next(',') {
			return nil, false
		}
	}
}

func (s *scanner) boolean() (bool, bool) {
	s.space()
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// bytes reads a base64 string as encoding/json reads a []byte.
func (s *scanner) bytes() ([]byte, bool) {
	text, ok := s.str()
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, false
	}
	return b, true
}

// str reads a JSON string: at once when it holds no escape, else through
// the escapes appendString writes and the other one-letter ones; a
// surrogate pair, a control character or invalid UTF-8 gives up.
func (s *scanner) str() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start, ascii := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			seg := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(seg) {
				return "", false
			}
			return string(seg), true
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return "", false
}

// escaped finishes reading a string that began at start and holds an
// escape at i.
func (s *scanner) escaped(start int) (string, bool) {
	out := append(make([]byte, 0, s.i-start+16), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(out) {
				return "", false
			}
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return "", false
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			if s.i+4 > len(s.b) {
				return "", false
			}
			r, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			s.i += 4
		default:
			return "", false
		}
	}
	return "", false
}

// scanNamed is scanItem for the attributes in names alone, for a filter,
// which reads no other (condition.names): the others are stepped over
// without being decoded or allocated. A Query's filter reads one or two
// attributes of items of a dozen, and decoding them all made half of the
// engine's CPU on a cold week view. It gives up — ok false — where
// scanItem would on a named attribute, and on a name it would have to
// unescape or a value it cannot step over (unbalanced, or nested past
// maxSkipDepth); decodeNamed then decodes the whole item.
func scanNamed(b []byte, names []string) (it item, ok bool) {
	s := scanner{b: b}
	if !s.next('{') {
		return nil, false
	}
	it = item{}
	if !s.next('}') {
		for {
			raw, ok := s.plainStr()
			if !ok || !s.next(':') {
				return nil, false
			}
			if name, wanted := lookup(names, raw); !wanted {
				if !s.skip(0) {
					return nil, false
				}
			} else {
				if _, dup := it[name]; dup {
					return nil, false
				}
				if it[name], ok = s.value(0); !ok {
					return nil, false
				}
			}
			if s.next('}') {
				break
			}
			if !s.next(',') {
				return nil, false
			}
		}
	}
	s.space()
	return it, s.i == len(s.b)
}

// lookup returns the name in names that raw spells, without allocating.
func lookup(names []string, raw []byte) (string, bool) {
	for _, n := range names {
		if n == string(raw) {
			return n, true
		}
	}
	return "", false
}

// plainStr reads a JSON string that holds no escape, as the bytes between
// its quotes (no copy); ok is false for one that holds an escape or a
// control character.
func (s *scanner) plainStr() ([]byte, bool) {
	if !s.next('"') {
		return nil, false
	}
	for start := s.i; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// maxSkipDepth bounds the nesting skip steps into: an attribute value of
// maxItemDepth levels of lists and maps is two JSON levels a level.
const maxSkipDepth = 2*maxValueDepth + 4

// skip steps over one JSON value without decoding it: strings to their
// closing quote (escapes stepped over whole), objects and arrays to their
// closing bracket, numbers and literals to the next delimiter. It checks
// structure only: a value it skips is never read.
func (s *scanner) skip(depth int) bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		return s.skipStr()
	case '{', '[':
		if depth >= maxSkipDepth {
			return false
		}
		end := byte(']')
		if c == '{' {
			end = '}'
		}
		s.i++
		if s.next(end) {
			return true
		}
		for {
			if c == '{' && (!s.skipStr() || !s.next(':')) {
				return false
			}
			if !s.skip(depth + 1) {
				return false
			}
			if s.next(end) {
				return true
			}
			if !s.next(',') {
				return false
			}
		}
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.i > start
		}
		s.i++
	}
	return false
}

// skipStr steps over a JSON string: to the next quote at once (a stored
// string rarely holds an escape), byte by byte past escapes.
func (s *scanner) skipStr() bool {
	if !s.next('"') {
		return false
	}
	for s.i < len(s.b) {
		q := bytes.IndexByte(s.b[s.i:], '"')
		if q < 0 {
			return false
		}
		if e := bytes.IndexByte(s.b[s.i:s.i+q], '\\'); e >= 0 {
			s.i += e + 2 // the escape and the byte it escapes, a quote maybe
			continue
		}
		s.i += q + 1
		return true
	}
	return false
}
