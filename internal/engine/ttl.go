package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

func describeTTL(db *DB, body []byte) (json.RawMessage, error) {
	var in struct{ TableName string }
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	var out json.RawMessage
	err := db.view(func(tx *bolt.Tx) error {
		m, _, err := db.table(tx, in.TableName)
		if err != nil {
			return notFound("Requested resource not found: Table: " + in.TableName + " not found")
		}
		d := map[string]any{"TimeToLiveStatus": "DISABLED"}
		if m.TTLAttr != "" {
			d = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": m.TTLAttr}
		}
		out = rawJSON(map[string]any{"TimeToLiveDescription": d})
		return nil
	})
	return out, err
}

func updateTTL(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TableName               string
		TimeToLiveSpecification struct {
			AttributeName string
			Enabled       *bool
		}
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	if spec.AttributeName == "" || spec.Enabled == nil {
		return nil, validation("1 validation error detected: TimeToLiveSpecification must have AttributeName and Enabled")
	}
	err := db.update(func(tx *bolt.Tx) error {
		cur, b, err := db.table(tx, in.TableName)
		if err != nil {
			return notFound("Requested resource not found: Table: " + in.TableName + " not found")
		}
		switch {
		case *spec.Enabled && cur.TTLAttr != "":
			return validation("TimeToLive is already enabled")
		case !*spec.Enabled && cur.TTLAttr == "":
			return validation("TimeToLive is already disabled")
		}
		m := *cur
		m.TTLAttr = ""
		if b.Bucket(ttlBucket) != nil {
			if err := b.DeleteBucket(ttlBucket); err != nil {
				return err
			}
		}
		if *spec.Enabled {
			m.TTLAttr = spec.AttributeName
			if err := backfillTTL(b, &m); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketTables).Put([]byte(m.Name), marshalMeta(&m))
	})
	if err != nil {
		return nil, err
	}
	return rawJSON(map[string]any{"TimeToLiveSpecification": map[string]any{"AttributeName": spec.AttributeName, "Enabled": *spec.Enabled}}), nil
}

// sweepBatch bounds the items one sweep transaction deletes, so that a
// sweep never holds up writers for long.
const sweepBatch = 200

// ttlBucket indexes a table's items by their TTL attribute (epoch seconds,
// encoded as a key): a sweep reads only what has expired.
var ttlBucket = []byte("ttl")

// ttlKey is an item's entry in the TTL index, nil when its TTL attribute is
// missing or not a positive number.
func ttlKey(m *tableMeta, it item, primary []byte) []byte {
	if m.TTLAttr == "" || it == nil {
		return nil
	}
	v, ok := it[m.TTLAttr]
	if !ok || v.N == nil {
		return nil
	}
	d, err := parseDecimal(*v.N)
	if err != nil || d.neg || d.isZero() {
		return nil
	}
	return append(d.appendKey(nil), primary...)
}

// SweepExpired deletes items whose TTL attribute (epoch seconds) is in the
// past, as DynamoDB's TTL does some time after expiry (times more than five
// years past are left alone, as DynamoDB leaves them), and forgets
// ClientRequestTokens older than their window. It returns how many items it
// deleted.
func (db *DB) SweepExpired(ctx context.Context) (int, error) {
	now := db.now()
	var names []string
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTables).ForEach(func(k, _ []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	lo := mustDecimal(strconv.FormatInt(now.Add(-5*365*24*time.Hour).Unix(), 10)).appendKey(nil)
	hi := mustDecimal(strconv.FormatInt(now.Unix(), 10)).appendKey(nil)
	deleted := 0
	for _, name := range names {
		for {
			if ctx.Err() != nil {
				return deleted, ctx.Err()
			}
			n, err := db.sweepSome(name, lo, hi)
			deleted += n
			if err != nil {
				return deleted, err
			}
			if n < sweepBatch {
				break
			}
		}
	}
	return deleted, db.update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketTokens).Cursor()
		for k, v := c.First(); k != nil; {
			if len(v) < 8 || now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(v[len(v)-8:])))) > tokenWindow {
				if err := c.Delete(); err != nil {
					return err
				}
				k, v = c.Seek(k)
				continue
			}
			k, v = c.Next()
		}
		return nil
	})
}

// sweepSome deletes up to sweepBatch items of a table whose TTL index entry
// lies in [lo, hi).
func (db *DB) sweepSome(name string, lo, hi []byte) (int, error) {
	deleted := 0
	err := db.update(func(tx *bolt.Tx) error {
		deleted = 0
		m, b, err := db.table(tx, name)
		if err != nil || m.TTLAttr == "" {
			return nil // gone, or no TTL
		}
		t := tbl{meta: m, b: b}
		ttl := b.Bucket(ttlBucket)
		if ttl == nil {
			return nil
		}
		var expired [][]byte
		c := ttl.Cursor()
		for k, _ := c.Seek(lo); k != nil && bytes.Compare(k, hi) < 0 && len(expired) < sweepBatch; k, _ = c.Next() {
			expired = append(expired, bytes.Clone(k))
		}
		for _, ek := range expired {
			primary := ek[len(keyPrefixOfNumber(ek)):]
			old, err := t.get(primary)
			if err != nil {
				return err
			}
			if old == nil || !bytes.Equal(ttlKey(m, old, primary), ek) {
				if err := ttl.Delete(ek); err != nil { // a stale entry
					return err
				}
				continue
			}
			if err := t.write(primary, old, nil); err != nil {
				return err
			}
			deleted++
		}
		return nil
	})
	return deleted, err
}

// keyPrefixOfNumber returns the leading number encoding of a key.
func keyPrefixOfNumber(k []byte) []byte {
	switch k[0] {
	case 0x02:
		return k[:1]
	case 0x03:
		return k[:bytes.IndexByte(k[3:], 0x00)+4]
	}
	return k[:bytes.IndexByte(k[3:], 0xff)+4]
}

func mustDecimal(s string) decimal {
	d, err := parseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// backfillTTL builds the TTL index of a table whose TTL was just enabled.
func backfillTTL(b *bolt.Bucket, m *tableMeta) error {
	ttl, err := b.CreateBucket(ttlBucket)
	if err != nil {
		return err
	}
	return b.Bucket(bucketItems).ForEach(func(k, v []byte) error {
		it, err := decodeRecord(v)
		if err != nil {
			return err
		}
		if tk := ttlKey(m, it, k); tk != nil {
			return ttl.Put(tk, nil)
		}
		return nil
	})
}
