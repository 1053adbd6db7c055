package engine

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// DynamoDB's limits on an item and on its key values.
const (
	maxItemSize      = 400 * 1024
	maxHashKeyBytes  = 2048
	maxRangeKeyBytes = 1024
)

// keyTooLong is the error of a key value over its limit.
const keyTooLong = "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes"

// keyValueSize is a key value's size as its limit counts it (a string's
// UTF-8 bytes).
func keyValueSize(v *av) int { return avSize(v) }

// keyLimit is the size limit of a key attribute of the given schema.
func (k keySchema) keyLimit(attr string) int {
	if attr == k.Hash {
		return maxHashKeyBytes
	}
	return maxRangeKeyBytes
}

// tbl is a table inside one transaction.
type tbl struct {
	meta *tableMeta
	b    *bolt.Bucket
}

func (db *DB) tbl(tx *bolt.Tx, name string) (tbl, error) {
	m, b, err := db.table(tx, name)
	if err != nil {
		return tbl{}, err
	}
	if db.faults.tableFails(name, "") {
		return tbl{}, internalError("The server encountered an internal error trying to fulfill the request.")
	}
	return tbl{meta: m, b: b}, nil
}

func (t tbl) items() *bolt.Bucket { return t.b.Bucket(bucketItems) }

// keyOf encodes a Key parameter, which must hold exactly the key attributes.
func (t tbl) keyOf(key item) ([]byte, error) {
	k, err := t.keyOfAnySize(key)
	if err == nil {
		err = t.checkKeySize(key)
	}
	return k, err
}

// keyOfAnySize is keyOf without the limit on key sizes, which DynamoDB Local
// does not apply to an ExclusiveStartKey.
func (t tbl) keyOfAnySize(key item) ([]byte, error) {
	attrs := t.meta.Keys.attrs()
	if len(key) != len(attrs) {
		return nil, validation("The provided key element does not match the schema")
	}
	return t.encodeKey(key, func(attr string) error {
		return validation("The provided key element does not match the schema")
	}, func(attr, want, got string) error {
		return validation("The provided key element does not match the schema")
	})
}

// checkKeySize refuses key values over DynamoDB's limits.
func (t tbl) checkKeySize(it item) error {
	for _, attr := range t.meta.Keys.attrs() {
		if keyValueSize(it[attr]) > t.meta.Keys.keyLimit(attr) {
			return validation(keyTooLong)
		}
	}
	return nil
}

// keyOfItem encodes the key of a whole item (PutItem).
func (t tbl) keyOfItem(it item) ([]byte, error) {
	k, err := t.keyOfItemAnySize(it)
	if err == nil {
		err = t.checkKeySize(it)
	}
	return k, err
}

func (t tbl) keyOfItemAnySize(it item) ([]byte, error) {
	return t.encodeKey(it, func(attr string) error {
		return validationf("One or more parameter values were invalid: Missing the key %s in the item", attr)
	}, func(attr, want, got string) error {
		return validationf("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", attr, want, got)
	})
}

func (t tbl) encodeKey(it item, missing func(string) error, mismatch func(attr, want, got string) error) ([]byte, error) {
	var k []byte
	for _, attr := range t.meta.Keys.attrs() {
		v, ok := it[attr]
		if !ok {
			return nil, missing(attr)
		}
		want := t.meta.AttrTypes[attr]
		if got := typeOf(v); got != want {
			return nil, mismatch(attr, want, got)
		}
		if (v.S != nil && *v.S == "") || (v.S == nil && v.N == nil && len(v.B) == 0) {
			return nil, validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
				map[bool]string{true: "string", false: "binary"}[v.S != nil], attr)
		}
		k = appendKeyValue(k, v)
	}
	return k, nil
}

// keyItem returns the key attributes of an item.
func (t tbl) keyItem(it item) item {
	k := item{}
	for _, attr := range t.meta.Keys.attrs() {
		k[attr] = it[attr]
	}
	return k
}

// get reads an item by its encoded key; nil when there is none.
func (t tbl) get(k []byte) (item, error) {
	rec := t.items().Get(k)
	if rec == nil {
		return nil, nil
	}
	return decodeRecord(rec)
}

// indexKey returns an item's entry key in an index, or nil when the item
// lacks the index's key attributes. An update may give an index key a type
// other than the index's (DynamoDB Local does not check it); the item is
// indexed under it all the same, as DynamoDB Local indexes it.
func (t tbl) indexKey(ix *index, it item, primary []byte) []byte {
	if it == nil {
		return nil
	}
	var k []byte
	for _, attr := range ix.Keys.attrs() {
		v, ok := it[attr]
		if !ok {
			return nil
		}
		if tp := typeOf(v); tp != "S" && tp != "N" && tp != "B" {
			return nil
		}
		k = appendKeyValue(k, v)
	}
	k = append(k, t.tieBreaker(ix, it)...)
	return append(k, primary...)
}

// checkIndexKeys refuses an item whose index key attributes have the wrong
// type or are empty, as DynamoDB does.
func (t tbl) checkIndexKeys(it item) error {
	for _, ix := range t.meta.Indexes {
		for _, attr := range ix.Keys.attrs() {
			v, ok := it[attr]
			if !ok {
				continue
			}
			want := t.meta.AttrTypes[attr]
			if got := typeOf(v); got != want {
				return validationf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", attr, want, got, ix.Name)
			}
			if (v.S != nil && *v.S == "") || (v.S == nil && v.N == nil && len(v.B) == 0) {
				return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", ix.Name, attr)
			}
			if keyValueSize(v) > ix.Keys.keyLimit(attr) {
				return validation("One or more parameter values were invalid: Size limit exceeded")
			}
		}
	}
	return nil
}

// checkSize refuses an item over DynamoDB's limit.
func checkSize(it item, update bool) error {
	if itemSize(it) <= maxItemSize {
		return nil
	}
	if update {
		return validation("Item size to update has exceeded the maximum allowed size")
	}
	return validation("Item size has exceeded the maximum allowed size")
}

// write replaces the item at key k (old is what is there now, nil for none)
// with nw (nil deletes it), keeping every index in step, in the caller's
// transaction.
func (t tbl) write(k []byte, old, nw item) error {
	for i := range t.meta.Indexes {
		ix := &t.meta.Indexes[i]
		b := t.b.Bucket(indexBucket(ix.Name))
		if b == nil {
			return fmt.Errorf("index %s has no bucket", ix.Name)
		}
		oldK, newK := t.indexKey(ix, old, k), t.indexKey(ix, nw, k)
		if oldK != nil && !bytes.Equal(oldK, newK) {
			if err := b.Delete(oldK); err != nil {
				return err
			}
		}
		if newK != nil {
			if err := b.Put(newK, encodeRecord(t.meta.project(ix, nw))); err != nil {
				return err
			}
		}
		var oldP, newP item
		if oldK != nil {
			oldP = t.meta.project(ix, old)
		}
		if newK != nil {
			newP = t.meta.project(ix, nw)
		}
		n, size := change(oldP, newP, func(item) bool { return true })
		if err := addStats(t.b, indexBucket(ix.Name), n, size); err != nil {
			return err
		}
	}
	n, size := change(old, nw, func(item) bool { return true })
	if err := addStats(t.b, bucketItems, n, size); err != nil {
		return err
	}
	if ttl := t.b.Bucket(ttlBucket); ttl != nil {
		oldK, newK := ttlKey(t.meta, old, k), ttlKey(t.meta, nw, k)
		if oldK != nil && !bytes.Equal(oldK, newK) {
			if err := ttl.Delete(oldK); err != nil {
				return err
			}
		}
		if newK != nil {
			if err := ttl.Put(newK, nil); err != nil {
				return err
			}
		}
	}
	if nw == nil {
		return t.items().Delete(k)
	}
	return t.items().Put(k, encodeRecord(nw))
}
