package engine

import "bytes"

// Keys in the key-value store are the encodings of DynamoDB key values,
// chosen so that byte order is DynamoDB's order: strings and binaries by
// their bytes, numbers by value. Every encoding is self-delimiting (no value's
// encoding is a prefix of another's), so a partition key followed by a sort
// key sorts by partition, then sort key, and a partition is one key range.

// appendKeyValue appends the order-preserving encoding of a key value.
func appendKeyValue(b []byte, a *av) []byte {
	switch {
	case a.S != nil:
		return appendEscaped(b, []byte(*a.S), true)
	case a.N != nil:
		d, _ := parseDecimal(*a.N) // values are checked before they are keys
		return d.appendKey(b)
	}
	return appendEscaped(b, a.B, true)
}

// appendEscaped writes bytes with 0x00 escaped as 0x00 0xff and, when
// terminated, a 0x00 0x01 terminator that sorts before any continuation.
func appendEscaped(b, s []byte, terminated bool) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, 0xff)
		s = s[i+1:]
	}
	b = append(b, s...)
	if terminated {
		b = append(b, 0x00, 0x01)
	}
	return b
}

// prefixBytes returns the raw bytes of a string or binary value, for
// begins_with.
func prefixBytes(a *av) []byte {
	if a.S != nil {
		return []byte(*a.S)
	}
	return a.B
}

// successor returns the smallest key greater than every key that starts
// with prefix (nil when there is none).
func successor(prefix []byte) []byte {
	s := bytes.Clone(prefix)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}
