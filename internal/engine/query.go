package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// maxPageBytes is DynamoDB's page: a Query or Scan stops once it has read
// this much.
const maxPageBytes = 1 << 20

// readParams are the parameters Query and Scan share.
type readParams struct {
	TableName                 string
	IndexName                 string
	FilterExpression          expression
	ProjectionExpression      expression
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues json.RawMessage
	ExclusiveStartKey         json.RawMessage
	Limit                     *int
	Select                    string
	ConsistentRead            bool
	// Legacy parameters are refused rather than ignored.
	KeyConditions, QueryFilter, ScanFilter, AttributesToGet, ConditionalOperator json.RawMessage
}

// scanPlan is a range read of the table or of one index.
type scanPlan struct {
	bucket  []byte
	lo, hi  []byte // [lo, hi); nil hi: to the end
	forward bool
	start   []byte // the exclusive start key, nil for none
	limit   int
	filter  *condition
	// filterNames are the attributes filter reads: the only ones of an
	// item decoded to evaluate it (decodeNamed).
	filterNames []string
	proj        *projection
	count       bool
	keys        []string // attributes of the LastEvaluatedKey
	// last is the key no item after can have (an inclusive bound of a
	// table Query in its direction): DynamoDB Local gives no
	// LastEvaluatedKey when a page ends on it.
	last []byte
	// fetch answers with the table's item of each index entry, and
	// filterItem filters it (indexread.go).
	fetch, filterItem bool
}

func (p *readParams) prepare(x *exprs) (*condition, *projection, error) {
	if err := checkTableName(p.TableName); err != nil {
		return nil, nil, err
	}
	if p.KeyConditions != nil || p.QueryFilter != nil || p.ScanFilter != nil || p.AttributesToGet != nil || p.ConditionalOperator != nil {
		return nil, nil, validation("the embedded engine does not support legacy parameters (KeyConditions, QueryFilter, ScanFilter, AttributesToGet, ConditionalOperator): use expressions")
	}
	if p.Limit != nil && *p.Limit < 1 {
		return nil, nil, validation("1 validation error detected: Value at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	}
	switch p.Select {
	case "", "ALL_ATTRIBUTES", "COUNT", "ALL_PROJECTED_ATTRIBUTES":
	case "SPECIFIC_ATTRIBUTES":
		if p.ProjectionExpression == "" {
			return nil, nil, validation("Select type SPECIFIC_ATTRIBUTES requires a ProjectionExpression or AttributesToGet")
		}
	default:
		return nil, nil, validation("1 validation error detected: Value at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]")
	}
	if p.Select == "COUNT" && p.ProjectionExpression != "" {
		return nil, nil, validation("Cannot specify the AttributesToGet or ProjectionExpression when choosing to get only the COUNT")
	}
	if err := p.checkSelect(); err != nil {
		return nil, nil, err
	}
	filter, err := x.compile("FilterExpression", string(p.FilterExpression))
	if err != nil {
		return nil, nil, err
	}
	proj, err := x.projection(string(p.ProjectionExpression))
	return filter, proj, err
}

// target picks the table or the index a read goes to, and the key
// attributes of its LastEvaluatedKey.
func (p *readParams) target(t tbl) (bucket []byte, keys keySchema, lek []string, err error) {
	if p.IndexName == "" {
		return bucketItems, t.meta.Keys, t.meta.Keys.attrs(), nil
	}
	ix := t.meta.index(p.IndexName)
	if ix == nil {
		return nil, keySchema{}, nil, validationf("The table does not have the specified index: %s", p.IndexName)
	}
	if p.ConsistentRead && !ix.Local {
		return nil, keySchema{}, nil, validation("Consistent reads are not supported on global secondary indexes")
	}
	lek = append(ix.Keys.attrs(), t.meta.Keys.attrs()...)
	if ix.Local {
		lek = append(ix.Keys.attrs(), t.meta.Keys.Range)
	}
	return indexBucket(ix.Name), ix.Keys, lek, nil
}

// startKey encodes an ExclusiveStartKey for the read's bucket.
func (p *readParams) startKey(t tbl, keys keySchema, lek []string) ([]byte, error) {
	if p.ExclusiveStartKey == nil {
		return nil, nil
	}
	esk, err := decodeItem(p.ExclusiveStartKey)
	if err != nil {
		return nil, err
	}
	bad := validation("The provided starting key is invalid: The provided key element does not match the schema")
	if len(esk) != len(dedupe(lek)) {
		return nil, bad
	}
	primary, err := t.keyOfAnySize(t.keyItem(esk))
	if err != nil {
		return nil, bad
	}
	if p.IndexName == "" {
		return primary, nil
	}
	ix := t.meta.index(p.IndexName)
	k := t.indexKey(ix, esk, primary)
	if k == nil {
		return nil, bad
	}
	for _, attr := range ix.Keys.attrs() {
		// An update may have indexed an item under a key of another type
		// (see indexKey); DynamoDB Local (2.9.30) reads on past none, in
		// a Query or a Scan, a local or a global index.
		if typeOf(esk[attr]) != t.meta.AttrTypes[attr] {
			return nil, validation("Type mismatch for attribute to update")
		}
	}
	return k, nil
}

func dedupe(attrs []string) []string {
	var out []string
	for _, a := range attrs {
		if !containsString(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// run reads the plan's range and writes Query's or Scan's answer.
func (db *DB) run(t tbl, plan *scanPlan) (json.RawMessage, error) {
	b := t.b.Bucket(plan.bucket)
	if b == nil {
		return nil, internalError("index bucket missing")
	}
	c := b.Cursor()
	var k, v []byte
	switch {
	case plan.forward && plan.start != nil:
		k, v = c.Seek(plan.start)
		if k != nil && bytes.Equal(k, plan.start) {
			k, v = c.Next()
		}
	case plan.forward:
		k, v = c.Seek(plan.lo)
	default:
		from := plan.hi
		if plan.start != nil {
			from = plan.start
		}
		if from == nil {
			k, v = c.Last()
		} else if k, v = c.Seek(from); k == nil {
			k, v = c.Last()
		}
		for k != nil && bytes.Compare(k, from) >= 0 {
			k, v = c.Prev()
		}
	}
	out := []byte(`{"Items":[`)
	if plan.count {
		out = []byte(`{`)
	}
	count, scanned, read := 0, 0, 0
	var last, lastKey []byte
	for ; k != nil; k, v = step(c, plan.forward) {
		if (plan.hi != nil && bytes.Compare(k, plan.hi) >= 0) || bytes.Compare(k, plan.lo) < 0 {
			break
		}
		size, js, err := splitRecord(v)
		if err != nil {
			return nil, err
		}
		scanned++
		read += size
		last, lastKey = v, k
		rec := v // what the filter reads and the answer holds
		if plan.fetch || plan.filterItem {
			if rec, err = t.tableRecord(v); err != nil {
				return nil, err
			}
			if _, js, err = splitRecord(rec); err != nil {
				return nil, err
			}
		}
		keep := true
		if plan.filter != nil {
			it, err := decodeNamed(js, plan.filterNames)
			if err != nil {
				return nil, err
			}
			keep = plan.filter.match(it)
		}
		if keep {
			if !plan.count {
				if !plan.fetch {
					rec = v
				}
				if js, err = projectRecord(rec, plan.proj); err != nil {
					return nil, err
				}
				if count > 0 {
					out = append(out, ',')
				}
				out = append(out, js...)
			}
			count++
		}
		if scanned == plan.limit || read >= maxPageBytes {
			break
		}
		last = nil
	}
	if !plan.count {
		out = append(out, "],"...)
	}
	out = append(out, `"Count":`...)
	out = strconv.AppendInt(out, int64(count), 10)
	out = append(out, `,"ScannedCount":`...)
	out = strconv.AppendInt(out, int64(scanned), 10)
	if last != nil && plan.last != nil && bytes.Equal(lastKey, plan.last) {
		last = nil
	}
	if last != nil {
		// Only the key attributes are decoded, as for a filter.
		_, js, err := splitRecord(last)
		if err != nil {
			return nil, err
		}
		it, err := decodeNamed(js, plan.keys)
		if err != nil {
			return nil, fmt.Errorf("corrupt record: %w", err)
		}
		lek := item{}
		for _, attr := range plan.keys {
			lek[attr] = it[attr]
		}
		out = append(out, `,"LastEvaluatedKey":`...)
		out = appendItem(out, lek)
	}
	return append(out, '}'), nil
}

func step(c *bolt.Cursor, forward bool) ([]byte, []byte) {
	if forward {
		return c.Next()
	}
	return c.Prev()
}

func query(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		readParams
		KeyConditionExpression expression
		ScanIndexForward       *bool
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	x, err := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	filter, proj, err := in.prepare(x)
	if err != nil {
		return nil, err
	}
	if err := x.use("KeyConditionExpression", string(in.KeyConditionExpression)); err != nil {
		return nil, err
	}
	if err := x.checkUnused(); err != nil {
		return nil, err
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	return db.read(&in.readParams, filter, proj, forward, func(t tbl, keys keySchema, plan *scanPlan) error {
		kc, err := x.keyCondition(string(in.KeyConditionExpression), keys, t.meta.AttrTypes)
		if err != nil {
			return err
		}
		if filter != nil {
			for _, name := range filter.names() {
				if name == keys.Hash || name == keys.Range {
					return validation("Filter Expression can only contain non-primary key attributes: Primary key attribute: " + name)
				}
			}
		}
		if err := in.planIndexRead(t, plan, true); err != nil {
			return err
		}
		plan.lo, plan.hi = kc.bounds()
		if plan.start != nil && (bytes.Compare(plan.start, plan.lo) < 0 || bytes.Compare(plan.start, plan.hi) >= 0) {
			return validation("The provided starting key does not match the range key predicate")
		}
		if in.IndexName == "" {
			plan.last = kc.lastKey(plan.forward)
		}
		return nil
	})
}

func scan(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		readParams
		Segment, TotalSegments *int
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if in.Segment != nil || in.TotalSegments != nil {
		return nil, validation("the embedded engine does not support parallel scans (Segment, TotalSegments)")
	}
	x, err := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	filter, proj, err := in.prepare(x)
	if err != nil {
		return nil, err
	}
	if err := x.checkUnused(); err != nil {
		return nil, err
	}
	return db.read(&in.readParams, filter, proj, true, func(t tbl, _ keySchema, plan *scanPlan) error {
		return in.planIndexRead(t, plan, false)
	})
}

// read runs a Query or a Scan: the table or index it reads, its start key
// and limit, then what refine adds (a Query's key range), in one snapshot.
func (db *DB) read(in *readParams, filter *condition, proj *projection, forward bool,
	refine func(t tbl, keys keySchema, plan *scanPlan) error) (json.RawMessage, error) {
	var out json.RawMessage
	err := db.view(func(tx *bolt.Tx) error {
		t, err := db.tbl(tx, in.TableName)
		if err != nil {
			return err
		}
		bucket, keys, lek, err := in.target(t)
		if err != nil {
			return err
		}
		if err := db.faults.indexFails(in.TableName, in.IndexName); err != nil {
			return err
		}
		plan := &scanPlan{bucket: bucket, forward: forward, filter: filter, proj: proj, count: in.Select == "COUNT", keys: lek}
		if filter != nil {
			plan.filterNames = filter.names()
		}
		if in.Limit != nil {
			plan.limit = *in.Limit
		}
		if plan.start, err = in.startKey(t, keys, lek); err != nil {
			return err
		}
		if err := refine(t, keys, plan); err != nil {
			return err
		}
		out, err = db.run(t, plan)
		return err
	})
	return out, err
}
