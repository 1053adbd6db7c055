package engine

import (
	"encoding/binary"
	"fmt"
)

// A stored record is an item's size as DynamoDB counts it (uvarint), then
// the item as DynamoDB JSON: answers copy the JSON as it is, pages add up
// sizes, and nothing is decoded unless a filter, projection or condition
// needs it.

func encodeRecord(it item) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 256), uint64(itemSize(it)))
	return appendItem(b, it)
}

// splitRecord returns a record's size and JSON.
func splitRecord(rec []byte) (int, []byte, error) {
	size, n := binary.Uvarint(rec)
	if n <= 0 {
		return 0, nil, fmt.Errorf("corrupt record header")
	}
	return int(size), rec[n:], nil
}

func decodeRecord(rec []byte) (item, error) {
	_, js, err := splitRecord(rec)
	if err != nil {
		return nil, err
	}
	it, err := decodeItem(js)
	if err != nil {
		return nil, fmt.Errorf("corrupt record: %w", err)
	}
	return it, nil
}
