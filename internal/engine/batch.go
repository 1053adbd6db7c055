package engine

import (
	"encoding/json"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// DynamoDB's batch limits: keys, writes, and the items a BatchGetItem
// answers (counted whole, whatever the projection), past which the rest of
// its keys come back as UnprocessedKeys.
const (
	maxBatchGetKeys  = 100
	maxBatchWrites   = 25
	maxBatchGetBytes = 16 << 20
)

type batchGetTable struct {
	Keys                     []json.RawMessage
	ProjectionExpression     expression
	ExpressionAttributeNames map[string]string
	ConsistentRead           bool
	AttributesToGet          json.RawMessage
}

func batchGetItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct{ RequestItems map[string]batchGetTable }
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	type request struct {
		keys []item
		proj *projection
	}
	reqs := map[string]*request{}
	total := 0
	for name, tr := range in.RequestItems {
		if err := checkTableName(name); err != nil {
			return nil, err
		}
		if tr.AttributesToGet != nil {
			return nil, validation("the embedded engine does not support legacy parameters (AttributesToGet): use expressions")
		}
		if len(tr.Keys) == 0 {
			return nil, validation("1 validation error detected: Value at 'requestItems." + name + ".member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		x, err := newExprs(tr.ExpressionAttributeNames, nil)
		if err != nil {
			return nil, err
		}
		r := &request{}
		if r.proj, err = x.projection(string(tr.ProjectionExpression)); err != nil {
			return nil, err
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
		for _, raw := range tr.Keys {
			k, err := decodeItem(raw)
			if err != nil {
				return nil, err
			}
			r.keys = append(r.keys, k)
		}
		total += len(r.keys)
		reqs[name] = r
	}
	if total > maxBatchGetKeys {
		return nil, validation("Too many items requested for the BatchGetItem call")
	}
	out := []byte(`{"Responses":{`)
	unprocessed := map[string][]item{}
	err := db.view(func(tx *bolt.Tx) error {
		for _, name := range sortedNames(reqs) { // every table must exist first
			if _, err := db.tbl(tx, name); err != nil {
				return err
			}
		}
		first, full, total := true, false, 0
		for _, name := range sortedNames(reqs) {
			r := reqs[name]
			t, err := db.tbl(tx, name)
			if err != nil {
				return err
			}
			var encoded, texts [][]byte
			for _, key := range r.keys {
				k, err := t.keyOf(key)
				if err != nil {
					return err
				}
				// Duplicates are keys as sent (1E3 and 1000 differ), as
				// DynamoDB Local tells them.
				text := appendItem(nil, key)
				if slices.ContainsFunc(texts, func(e []byte) bool { return string(e) == string(text) }) {
					return validation("Provided list of item keys contains duplicates")
				}
				texts = append(texts, text)
				encoded = append(encoded, k)
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = appendString(out, name)
			out = append(out, ":["...)
			n := 0
			for i, k := range encoded {
				if full || db.faults.leaveUnprocessed(name, i, r.keys[i]) {
					unprocessed[name] = append(unprocessed[name], r.keys[i])
					continue
				}
				rec := t.items().Get(k)
				if rec == nil {
					continue
				}
				size, _, err := splitRecord(rec)
				if err != nil {
					return err
				}
				if total += size; total > maxBatchGetBytes {
					full = true // this key and every one after it, as DynamoDB Local leaves them
					unprocessed[name] = append(unprocessed[name], r.keys[i])
					continue
				}
				js, err := projectRecord(rec, r.proj)
				if err != nil {
					return err
				}
				if n > 0 {
					out = append(out, ',')
				}
				out = append(out, js...)
				n++
			}
			out = append(out, ']')
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out = append(out, `},"UnprocessedKeys":{`...)
	first := true
	for _, name := range sortedNames(unprocessed) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendString(out, name)
		out = append(out, `:{"Keys":[`...)
		for i, k := range unprocessed[name] {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendItem(out, k)
		}
		out = append(out, ']')
		if tr := in.RequestItems[name]; tr.ProjectionExpression != "" {
			out = append(out, `,"ProjectionExpression":`...)
			out = appendString(out, string(tr.ProjectionExpression))
			if tr.ExpressionAttributeNames != nil {
				out = append(out, `,"ExpressionAttributeNames":`...)
				out = append(out, rawJSON(tr.ExpressionAttributeNames)...)
			}
		}
		out = append(out, '}')
	}
	return append(out, "}}"...), nil
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

type writeRequest struct {
	PutRequest *struct {
		Item json.RawMessage
	} `json:",omitempty"`
	DeleteRequest *struct {
		Key json.RawMessage
	} `json:",omitempty"`
}

func batchWriteItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		RequestItems map[string][]writeRequest
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if len(in.RequestItems) == 0 {
		return nil, validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	type write struct {
		table   string
		key, it item // it is nil for a delete
		raw     writeRequest
	}
	var writes []write
	for _, name := range sortedNames(in.RequestItems) {
		if err := checkTableName(name); err != nil {
			return nil, err
		}
		if len(in.RequestItems[name]) == 0 {
			return nil, validation("The batch write request list for a table cannot be null or empty: " + name)
		}
		for _, wr := range in.RequestItems[name] {
			w := write{table: name, raw: wr}
			var err error
			switch {
			case wr.PutRequest != nil && wr.DeleteRequest == nil:
				if w.it, err = decodeItem(wr.PutRequest.Item); err == nil {
					err = checkSize(normalizeTop(w.it), false)
				}
				if err == nil {
					err = checkDepth(w.it)
				}
			case wr.DeleteRequest != nil && wr.PutRequest == nil:
				w.key, err = decodeItem(wr.DeleteRequest.Key)
			default:
				err = validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if err != nil {
				return nil, err
			}
			writes = append(writes, w)
		}
	}
	if len(writes) > maxBatchWrites {
		return nil, validation("Too many items requested for the BatchWriteItem call")
	}
	unprocessed := map[string][]writeRequest{}
	err := db.update(func(tx *bolt.Tx) error {
		type planned struct {
			t        tbl
			k        []byte
			old, new item
		}
		var plan []planned
		seen := map[string]bool{}
		position := map[string]int{}
		// Duplicate keys are refused before a missing table, as DynamoDB
		// Local mostly answers (it goes through the tables in the order the
		// request lists them, which the SDK does not fix).
		tables := map[string]tbl{}
		var missing error
		for _, w := range writes {
			t, err := db.tbl(tx, w.table)
			if err != nil {
				missing = err
				continue
			}
			tables[w.table] = t
			key := w.key
			if key == nil {
				if key = t.keyItem(w.it); lacksKey(key) {
					// Refused before a missing table, as DynamoDB Local does.
					return validation("One of the required keys was not given a value")
				}
			}
			if id := w.table + "\x00" + valueKey(key); seen[id] {
				return validation("Provided list of item keys contains duplicates")
			} else {
				seen[id] = true
			}
		}
		if missing != nil {
			return missing
		}
		for _, w := range writes {
			t := tables[w.table]
			var err error
			var k []byte
			if w.it != nil {
				k, err = t.keyOfItem(w.it)
				if err == nil {
					err = t.checkIndexKeys(w.it)
				}
			} else {
				k, err = t.keyOf(w.key)
			}
			if err != nil {
				return err
			}
			key := w.key
			if key == nil {
				key = t.keyItem(w.it)
			}
			n := position[w.table]
			position[w.table]++
			if db.faults.leaveUnprocessed(w.table, n, key) {
				unprocessed[w.table] = append(unprocessed[w.table], w.raw)
				continue
			}
			old, err := t.get(k)
			if err != nil {
				return err
			}
			plan = append(plan, planned{t, k, old, w.it})
		}
		for _, p := range plan {
			if err := p.t.write(p.k, p.old, p.new); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := []byte(`{"UnprocessedItems":`)
	if len(unprocessed) == 0 {
		return append(out, "{}}"...), nil
	}
	return append(append(out, rawJSON(unprocessed)...), '}'), nil
}

// lacksKey reports whether a key lacks one of its attributes.
func lacksKey(key item) bool {
	for _, v := range key {
		if v == nil {
			return true
		}
	}
	return false
}
