package ddbjson

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MarshalItem returns the DynamoDB JSON object for one item, such as
// {"PK":{"S":"USER#1"},"n":{"N":"3"}}. Attribute names, at every level, are
// sorted, so equal items give equal output. The item must obey the rules
// UnmarshalItem enforces (valid numbers, non-empty sets without duplicates,
// NULL only true, UTF-8 strings, at most 32 levels), so that the output always
// parses back to the same item; a nil B value is written as the empty binary.
func MarshalItem(item map[string]types.AttributeValue) ([]byte, error) {
	return appendItem(nil, item, 1)
}

// AppendItem is MarshalItem appending to b, for callers that build a larger
// JSON text around items.
func AppendItem(b []byte, item map[string]types.AttributeValue) ([]byte, error) {
	return appendItem(b, item, 1)
}

// AppendString appends s, which must be valid UTF-8, as a JSON string.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// SortedNames appends m's keys to names (whose spare capacity a caller may
// keep on its stack) and sorts them: requests are encoded in one order, so
// that the same request is the same bytes.
func SortedNames[V any](m map[string]V, names []string) []string {
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// appendItem appends the JSON object of item, whose values are at level.
func appendItem(b []byte, item map[string]types.AttributeValue, level int) ([]byte, error) {
	b = append(b, '{')
	var scratch [32]string // an item's names, sorted without allocating for most items
	for i, name := range SortedNames(item, scratch[:0]) {
		if err := checkName(name); err != nil {
			return b, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, item[name], level); err != nil {
			return b, fmt.Errorf("attribute %s: %w", quote(name), err)
		}
	}
	return append(b, '}'), nil
}

// appendValue appends the JSON object of one attribute value.
func appendValue(b []byte, av types.AttributeValue, level int) ([]byte, error) {
	if level > maxDepth {
		return b, errTooDeep
	}
	switch v := av.(type) {
	case nil:
		return b, errors.New("nil attribute value")
	case *types.AttributeValueMemberS, *types.AttributeValueMemberN,
		*types.AttributeValueMemberB, *types.AttributeValueMemberBOOL,
		*types.AttributeValueMemberNULL:
		return appendScalar(b, v)
	case *types.AttributeValueMemberM:
		if v != nil {
			return appendMap(b, v.Value, level)
		}
	case *types.AttributeValueMemberL:
		if v != nil {
			return appendList(b, v.Value, level)
		}
	case *types.AttributeValueMemberSS:
		if v != nil {
			return appendStringSet(b, v.Value)
		}
	case *types.AttributeValueMemberNS:
		if v != nil {
			return appendNumberSet(b, v.Value)
		}
	case *types.AttributeValueMemberBS:
		if v != nil {
			return appendBinarySet(b, v.Value)
		}
	default:
		return b, fmt.Errorf("unsupported attribute value type %T", av)
	}
	return b, fmt.Errorf("nil %T", av)
}

// appendScalar appends an S, N, B, BOOL or NULL value.
func appendScalar(b []byte, av types.AttributeValue) ([]byte, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if v != nil {
			if !utf8.ValidString(v.Value) {
				return b, fmt.Errorf("S: %s is not valid UTF-8", quote(v.Value))
			}
			return append(appendString(append(b, `{"S":`...), v.Value), '}'), nil
		}
	case *types.AttributeValueMemberN:
		if v != nil {
			if _, err := canonicalNumber(v.Value); err != nil {
				return b, fmt.Errorf("N: %w", err)
			}
			return append(appendString(append(b, `{"N":`...), v.Value), '}'), nil
		}
	case *types.AttributeValueMemberB:
		if v != nil {
			return append(appendBase64(append(b, `{"B":`...), v.Value), '}'), nil
		}
	case *types.AttributeValueMemberBOOL:
		if v != nil {
			if v.Value {
				return append(b, `{"BOOL":true}`...), nil
			}
			return append(b, `{"BOOL":false}`...), nil
		}
	case *types.AttributeValueMemberNULL:
		if v != nil {
			if !v.Value {
				return b, errors.New("NULL: value is false, want true")
			}
			return append(b, `{"NULL":true}`...), nil
		}
	}
	return b, fmt.Errorf("nil %T", av)
}

// appendMap appends an M value whose members are at level+1.
func appendMap(b []byte, m map[string]types.AttributeValue, level int) ([]byte, error) {
	b, err := appendItem(append(b, `{"M":`...), m, level+1)
	if err != nil {
		return b, fmt.Errorf("M: %w", err)
	}
	return append(b, '}'), nil
}

// appendList appends an L value whose elements are at level+1.
func appendList(b []byte, l []types.AttributeValue, level int) ([]byte, error) {
	b = append(b, `{"L":[`...)
	for i, av := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, av, level+1); err != nil {
			return b, fmt.Errorf("L: index %d: %w", i, err)
		}
	}
	return append(b, "]}"...), nil
}

// appendStringSet appends an SS value.
func appendStringSet(b []byte, ss []string) ([]byte, error) {
	if err := checkStringSet(ss); err != nil {
		return b, fmt.Errorf("SS: %w", err)
	}
	b = append(b, `{"SS":[`...)
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, "]}"...), nil
}

// appendNumberSet appends an NS value.
func appendNumberSet(b []byte, ns []string) ([]byte, error) {
	if err := checkNumberSet(ns); err != nil {
		return b, fmt.Errorf("NS: %w", err)
	}
	b = append(b, `{"NS":[`...)
	for i, s := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, "]}"...), nil
}

// appendBinarySet appends a BS value.
func appendBinarySet(b []byte, bs [][]byte) ([]byte, error) {
	if err := checkBinarySet(bs); err != nil {
		return b, fmt.Errorf("BS: %w", err)
	}
	b = append(b, `{"BS":[`...)
	for i, v := range bs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBase64(b, v)
	}
	return append(b, "]}"...), nil
}

// appendBase64 appends data as a JSON string of padded standard base64.
func appendBase64(b, data []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s, which must be valid UTF-8, as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	// Most strings (keys, IDs, times) need no escape: they are copied whole,
	// up to their first byte that does.
	clean := 0
	for clean < len(s) && s[clean] >= 0x20 && s[clean] != '"' && s[clean] != '\\' {
		clean++
	}
	b = append(b, s[:clean]...)
	for i := clean; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
