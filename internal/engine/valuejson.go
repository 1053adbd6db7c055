package engine

import (
	"encoding/base64"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Writing items as DynamoDB JSON, for answers and stored records.

// appendItem writes an item as DynamoDB JSON, attributes in name order so
// that equal items encode equally.
func appendItem(b []byte, it item) []byte {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendAV(b, it[k])
	}
	return append(b, '}')
}

func appendAV(b []byte, a *av) []byte {
	switch {
	case a.S != nil:
		b = append(b, `{"S":`...)
		b = appendString(b, *a.S)
	case a.N != nil:
		b = append(b, `{"N":`...)
		b = appendString(b, *a.N)
	case a.BOOL != nil:
		b = append(b, `{"BOOL":`...)
		b = strconv.AppendBool(b, *a.BOOL)
	case a.NULL != nil:
		b = append(b, `{"NULL":true`...)
	case a.M != nil:
		b = append(b, `{"M":`...)
		b = appendItem(b, a.M)
	case a.L != nil:
		b = appendArray(append(b, `{"L":`...), a.L, appendAV)
	case a.SS != nil, a.NS != nil:
		set, typ := a.SS, "SS"
		if a.NS != nil {
			set, typ = a.NS, "NS"
		}
		b = appendArray(append(b, `{"`+typ+`":`...), set, func(b []byte, s *string) []byte { return appendString(b, *s) })
	case a.BS != nil:
		b = appendArray(append(b, `{"BS":`...), a.BS, appendBytes)
	default: // B, possibly empty
		b = append(b, `{"B":`...)
		b = appendBytes(b, a.B)
	}
	return append(b, '}')
}

// appendArray writes xs as a JSON array, each element by each.
func appendArray[T any](b []byte, xs []T, each func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, x)
	}
	return append(b, ']')
}

func appendBytes(b, s []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
