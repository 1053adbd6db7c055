package engine

import (
	"bytes"
	"crypto/sha1"
)

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

// Items with equal index keys come out of an index in the order DynamoDB
// Local gives them, which is neither their table key's order nor their
// writes': it keeps with each item salted SHA-1 hashes of its keys, and
// sorts such ties by the hash of the table's keys that are not keys of the
// index: the sort key for a local index, the partition key for a global
// index sorted by the table's sort key, both keys (hashed together) for
// other global indexes, the partition key hashed twice for a table without
// a sort key. An index entry's key is the index's keys, that tie-breaker,
// then the item's primary key. TestIndexTiesInDynamoDBLocalsOrder holds
// each case to DynamoDB Local's order.

// tieBreaker is the item's tie-breaking hash in an index.
func (t tbl) tieBreaker(ix *index, it item) []byte {
	hashOf := func(attr string) []byte { return localHash(localKeyBytes(it[attr])) }
	keys := t.meta.Keys
	switch {
	case ix.Local:
		return hashOf(keys.Range)
	case keys.Range == "":
		return localHash(hashOf(keys.Hash))
	case ix.Keys.Range == keys.Range && ix.Keys.Hash != keys.Hash:
		return hashOf(keys.Hash)
	case ix.Keys.Range == keys.Hash && ix.Keys.Hash != keys.Range:
		return hashOf(keys.Range)
	}
	return localHash(hashOf(keys.Hash), hashOf(keys.Range))
}

func localHash(parts ...[]byte) []byte {
	h := sha1.New()
	h.Write([]byte("LocalDdb"))
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// localKeyBytes are the bytes DynamoDB Local hashes for a key value: a
// string's UTF-8, a binary's bytes, a number in base 100 (so 1000 and 1E3
// are one value).
func localKeyBytes(a *av) []byte {
	switch {
	case a == nil:
		return nil
	case a.S != nil:
		return []byte(*a.S)
	case a.N != nil:
		d, _ := parseDecimal(*a.N)
		return d.base100()
	}
	return a.B
}

// base100 is DynamoDB Local's encoding of a number: zero is 0x80; otherwise
// the number as 0.d1d2…dk × 100^E in base-100 digits, written as 0xC0+E and
// each digit plus one, all inverted (101 minus the digit) for a negative
// number, which ends with 0x66 when it has fewer than 20 digits.
func (d decimal) base100() []byte {
	if d.isZero() {
		return []byte{0x80}
	}
	digits, e := d.digits, d.exp
	if e%2 != 0 {
		digits, e = "0"+digits, e+1
	}
	if len(digits)%2 != 0 {
		digits += "0"
	}
	var pairs []byte
	for i := 0; i < len(digits); i += 2 {
		pairs = append(pairs, (digits[i]-'0')*10+digits[i+1]-'0')
	}
	for len(pairs) > 0 && pairs[len(pairs)-1] == 0 {
		pairs = pairs[:len(pairs)-1]
	}
	head := byte(0xC0 + e/2)
	if !d.neg {
		out := []byte{head}
		for _, p := range pairs {
			out = append(out, p+1)
		}
		return out
	}
	out := []byte{^head}
	for _, p := range pairs {
		out = append(out, 101-p)
	}
	if len(pairs) < 20 {
		out = append(out, 0x66)
	}
	return out
}
