package engine

import (
	"encoding/json"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// DynamoDB's limits on indexes.
const (
	maxLocalIndexes  = 5
	maxGlobalIndexes = 20
)

func createTable(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TableName              string
		KeySchema              []wireKeyElement
		AttributeDefinitions   []wireAttrDef
		LocalSecondaryIndexes  []wireIndex
		GlobalSecondaryIndexes []wireIndex
		BillingMode            string
		ProvisionedThroughput  *wireThroughput
		StreamSpecification    *wireStreams
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := in.StreamSpecification.check(); err != nil {
		return nil, err
	}
	m := &tableMeta{Name: in.TableName, AttrTypes: map[string]string{}, Billing: in.BillingMode, Created: db.now()}
	var err error
	if m.Keys, err = parseKeySchema(in.KeySchema, "keySchema"); err != nil {
		return nil, err
	}
	switch {
	case m.Billing == "" || m.Billing == "PROVISIONED":
		if in.ProvisionedThroughput == nil {
			return nil, validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
		}
		m.Billing, m.RCU, m.WCU = "PROVISIONED", in.ProvisionedThroughput.ReadCapacityUnits, in.ProvisionedThroughput.WriteCapacityUnits
	case m.Billing != "PAY_PER_REQUEST":
		return nil, validation("1 validation error detected: Value at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
	}
	for _, d := range in.AttributeDefinitions {
		if d.AttributeType != "S" && d.AttributeType != "N" && d.AttributeType != "B" {
			return nil, validationf("1 validation error detected: Value '%s' at 'attributeDefinitions.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]", d.AttributeType)
		}
		m.AttrTypes[d.AttributeName] = d.AttributeType
	}
	if len(in.LocalSecondaryIndexes) > maxLocalIndexes || len(in.GlobalSecondaryIndexes) > maxGlobalIndexes {
		return nil, validation("One or more parameter values were invalid: too many secondary indexes")
	}
	for _, w := range in.LocalSecondaryIndexes {
		ix, err := parseIndex(w, true)
		if err != nil {
			return nil, err
		}
		if ix.Keys.Hash != m.Keys.Hash || ix.Keys.Range == "" || m.Keys.Range == "" {
			return nil, validation("One or more parameter values were invalid: Table KeySchema does not have a range key, or the local secondary index does not share the table's hash key")
		}
		m.Indexes = append(m.Indexes, ix)
	}
	for _, w := range in.GlobalSecondaryIndexes {
		ix, err := parseIndex(w, false)
		if err != nil {
			return nil, err
		}
		m.Indexes = append(m.Indexes, ix)
	}
	if err := checkDefinitions(m); err != nil {
		return nil, err
	}
	err = db.update(func(tx *bolt.Tx) error {
		tables := tx.Bucket(bucketTables)
		if tables.Get([]byte(m.Name)) != nil {
			return inUse("Cannot create preexisting table")
		}
		data := tx.Bucket(bucketData)
		id, err := data.NextSequence()
		if err != nil {
			return err
		}
		m.ID = id
		b, err := data.CreateBucket(idKey(id))
		if err != nil {
			return err
		}
		if _, err := b.CreateBucket(bucketItems); err != nil {
			return err
		}
		for _, ix := range m.Indexes {
			if _, err := b.CreateBucket(indexBucket(ix.Name)); err != nil {
				return err
			}
		}
		return tables.Put([]byte(m.Name), marshalMeta(m))
	})
	if err != nil {
		return nil, err
	}
	return rawJSON(map[string]any{"TableDescription": m.description("ACTIVE", 0, 0, nil)}), nil
}

// checkDefinitions requires every key attribute to be defined, and every
// definition to be a key attribute, with unique index names.
func checkDefinitions(m *tableMeta) error {
	used := map[string]bool{}
	names := map[string]bool{}
	for _, ks := range append([]keySchema{m.Keys}, indexKeys(m)...) {
		for _, a := range ks.attrs() {
			if _, ok := m.AttrTypes[a]; !ok {
				return validation("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [" + a + "], AttributeDefinitions: " + definedNames(m))
			}
			used[a] = true
		}
	}
	for a := range m.AttrTypes {
		if !used[a] {
			return validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
		}
	}
	for _, ix := range m.Indexes {
		if names[ix.Name] {
			return validation("One or more parameter values were invalid: Duplicate index name: " + ix.Name)
		}
		names[ix.Name] = true
	}
	return nil
}

func indexKeys(m *tableMeta) []keySchema {
	var out []keySchema
	for _, ix := range m.Indexes {
		out = append(out, ix.Keys)
	}
	return out
}

func definedNames(m *tableMeta) string {
	return "[" + joinSorted(m.AttrTypes) + "]"
}

func joinSorted(m map[string]string) string {
	names := sortedNames(m)
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

func describeTable(db *DB, body []byte) (json.RawMessage, error) {
	var in struct{ TableName string }
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	var out json.RawMessage
	err := db.view(func(tx *bolt.Tx) error {
		m, b, err := db.table(tx, in.TableName)
		if err != nil {
			return notFound("Cannot do operations on a non-existent table")
		}
		ixStats := map[string][2]int64{}
		for _, ix := range m.Indexes {
			ixStats[ix.Name] = stats(b, indexBucket(ix.Name))
		}
		st := stats(b, bucketItems)
		out = rawJSON(map[string]any{"Table": m.description("ACTIVE", st[0], st[1], ixStats)})
		return nil
	})
	return out, err
}

func deleteTable(db *DB, body []byte) (json.RawMessage, error) {
	var in struct{ TableName string }
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	var m *tableMeta
	err := db.update(func(tx *bolt.Tx) error {
		var err error
		if m, _, err = db.table(tx, in.TableName); err != nil {
			return notFound("Cannot do operations on a non-existent table")
		}
		if err := tx.Bucket(bucketData).DeleteBucket(idKey(m.ID)); err != nil {
			return err
		}
		return tx.Bucket(bucketTables).Delete([]byte(in.TableName))
	})
	if err != nil {
		return nil, err
	}
	return rawJSON(map[string]any{"TableDescription": m.description("DELETING", 0, 0, nil)}), nil
}

func listTables(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		ExclusiveStartTableName string
		Limit                   int
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if in.Limit <= 0 || in.Limit > 100 {
		in.Limit = 100
	}
	names := []string{}
	var last string
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketTables).Cursor()
		for k, _ := c.Seek([]byte(in.ExclusiveStartTableName)); k != nil; k, _ = c.Next() {
			if string(k) == in.ExclusiveStartTableName {
				continue
			}
			if len(names) == in.Limit {
				last = names[len(names)-1]
				break
			}
			names = append(names, string(k))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"TableNames": names}
	if last != "" {
		out["LastEvaluatedTableName"] = last
	}
	return rawJSON(out), nil
}

// updateTable adds or removes global secondary indexes (filling a new one
// from the table's items in the same transaction) and changes billing.
func updateTable(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TableName                   string
		AttributeDefinitions        []wireAttrDef
		BillingMode                 string
		ProvisionedThroughput       *wireThroughput
		GlobalSecondaryIndexUpdates []struct {
			Create *wireIndex
			Delete *struct{ IndexName string }
			Update *wireIndex
		}
		StreamSpecification *wireStreams
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := in.StreamSpecification.check(); err != nil {
		return nil, err
	}
	var m tableMeta
	err := db.update(func(tx *bolt.Tx) error {
		cur, b, err := db.table(tx, in.TableName)
		if err != nil {
			return notFound("Cannot do operations on a non-existent table")
		}
		m = *cur
		m.AttrTypes = copyStrings(cur.AttrTypes)
		m.Indexes = slices.Clone(cur.Indexes)
		for _, d := range in.AttributeDefinitions {
			m.AttrTypes[d.AttributeName] = d.AttributeType
		}
		if in.BillingMode != "" {
			m.Billing = in.BillingMode
		}
		var created []index
		for _, u := range in.GlobalSecondaryIndexUpdates {
			switch {
			case u.Create != nil:
				ix, err := parseIndex(*u.Create, false)
				if err != nil {
					return err
				}
				if m.index(ix.Name) != nil {
					return validation("One or more parameter values were invalid: Index already exists: " + ix.Name)
				}
				m.Indexes = append(m.Indexes, ix)
				created = append(created, ix)
			case u.Delete != nil:
				i := slices.IndexFunc(m.Indexes, func(ix index) bool { return ix.Name == u.Delete.IndexName && !ix.Local })
				if i < 0 {
					return notFound("Requested resource not found: Index: " + u.Delete.IndexName)
				}
				m.Indexes = slices.Delete(m.Indexes, i, i+1)
				if err := b.DeleteBucket(indexBucket(u.Delete.IndexName)); err != nil {
					return err
				}
				if err := b.Delete(statsKey(indexBucket(u.Delete.IndexName))); err != nil {
					return err
				}
			}
		}
		for _, ix := range created {
			if err := backfill(b, &m, ix); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketTables).Put([]byte(m.Name), marshalMeta(&m))
	})
	if err != nil {
		return nil, err
	}
	return rawJSON(map[string]any{"TableDescription": m.description("ACTIVE", 0, 0, nil)}), nil
}

func copyStrings(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// backfill creates a new index's bucket and adds every item that has its keys.
func backfill(b *bolt.Bucket, m *tableMeta, ix index) error {
	ib, err := b.CreateBucket(indexBucket(ix.Name))
	if err != nil {
		return err
	}
	t := tbl{meta: m, b: b}
	return b.Bucket(bucketItems).ForEach(func(k, v []byte) error {
		it, err := decodeRecord(v)
		if err != nil {
			return err
		}
		if ik := t.indexKey(&ix, it, k); ik != nil {
			p := m.project(&ix, it)
			if err := addStats(b, indexBucket(ix.Name), 1, int64(itemSize(p))); err != nil {
				return err
			}
			return ib.Put(ik, encodeRecord(p))
		}
		return nil
	})
}
