package engine

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// writeParams are the parameters every single-item write shares.
type writeParams struct {
	TableName                           string
	ConditionExpression                 expression
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           json.RawMessage
	ReturnValues                        string
	ReturnValuesOnConditionCheckFailure string
	// Legacy parameters are refused rather than ignored.
	Expected, ConditionalOperator, AttributeUpdates json.RawMessage
}

func (p *writeParams) check(returnValues ...string) (*exprs, *condition, error) {
	if err := checkTableName(p.TableName); err != nil {
		return nil, nil, err
	}
	if p.Expected != nil || p.ConditionalOperator != nil || p.AttributeUpdates != nil {
		return nil, nil, validation("the embedded engine does not support legacy parameters (Expected, ConditionalOperator, AttributeUpdates): use expressions")
	}
	if err := checkReturnValues(p.ReturnValues, returnValues...); err != nil {
		return nil, nil, err
	}
	if err := checkReturnValues(p.ReturnValuesOnConditionCheckFailure, "NONE", "ALL_OLD"); err != nil {
		return nil, nil, err
	}
	x, err := newExprs(p.ExpressionAttributeNames, p.ExpressionAttributeValues)
	if err != nil {
		return nil, nil, err
	}
	cond, err := x.compile("ConditionExpression", string(p.ConditionExpression))
	return x, cond, err
}

func checkReturnValues(v string, allowed ...string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return validation("Return values set to invalid value")
}

// failed is the error of a condition that did not hold.
func (p *writeParams) failed(old item) error {
	if p.ReturnValuesOnConditionCheckFailure == "ALL_OLD" && old != nil {
		return conditionFailed(old)
	}
	return conditionFailed(nil)
}

func attributesAnswer(attrs item) json.RawMessage {
	if attrs == nil {
		return json.RawMessage(`{}`)
	}
	b := append([]byte(`{"Attributes":`), appendItem(nil, attrs)...)
	return append(b, '}')
}

func getItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TableName                string
		Key                      json.RawMessage
		ProjectionExpression     expression
		ExpressionAttributeNames map[string]string
		ConsistentRead           bool
		AttributesToGet          json.RawMessage
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if err := checkTableName(in.TableName); err != nil {
		return nil, err
	}
	key, err := decodeItem(in.Key)
	if err != nil {
		return nil, err
	}
	x, err := newExprs(in.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	proj, err := x.projection(string(in.ProjectionExpression))
	if err != nil {
		return nil, err
	}
	if err := x.checkUnused(); err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = db.view(func(tx *bolt.Tx) error {
		t, err := db.tbl(tx, in.TableName)
		if err != nil {
			return err
		}
		k, err := t.keyOf(key)
		if err != nil {
			return err
		}
		out, err = answerItem(t.items().Get(k), proj)
		return err
	})
	return out, err
}

// answerItem is GetItem's answer for a stored record (nil: none).
func answerItem(rec []byte, proj *projection) (json.RawMessage, error) {
	if rec == nil {
		return json.RawMessage(`{}`), nil
	}
	js, err := projectRecord(rec, proj)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"Item":`), js...)
	return append(b, '}'), nil
}

// projectRecord returns a record's JSON, projected when asked.
func projectRecord(rec []byte, proj *projection) ([]byte, error) {
	if proj == nil {
		_, js, err := splitRecord(rec)
		return js, err
	}
	it, err := decodeRecord(rec)
	if err != nil {
		return nil, err
	}
	p, err := proj.apply(it)
	if err != nil {
		return nil, err
	}
	return appendItem(nil, p), nil
}

func putItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		writeParams
		Item json.RawMessage
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	nw, err := decodeItem(in.Item)
	if err != nil {
		return nil, err
	}
	normalizeTop(nw)
	if err := checkSize(nw, false); err != nil {
		return nil, err
	}
	if err := checkDepth(nw); err != nil {
		return nil, err
	}
	return replaceItem(db, &in.writeParams, nw, func(t tbl) ([]byte, error) {
		k, err := t.keyOfItem(nw)
		if err != nil {
			return nil, err
		}
		return k, t.checkIndexKeys(nw)
	})
}

func deleteItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		writeParams
		Key json.RawMessage
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	key, err := decodeItem(in.Key)
	if err != nil {
		return nil, err
	}
	return replaceItem(db, &in.writeParams, nil, func(t tbl) ([]byte, error) { return t.keyOf(key) })
}

// replaceItem is PutItem (nw is the item) and DeleteItem (nw is nil): the
// item at the key keyOf finds, if the condition holds, is replaced.
func replaceItem(db *DB, in *writeParams, nw item, keyOf func(tbl) ([]byte, error)) (json.RawMessage, error) {
	x, cond, err := in.check("NONE", "ALL_OLD")
	if err != nil {
		return nil, err
	}
	if err := x.checkUnused(); err != nil {
		return nil, err
	}
	var old item
	err = db.update(func(tx *bolt.Tx) error {
		t, err := db.tbl(tx, in.TableName)
		if err != nil {
			return err
		}
		k, err := keyOf(t)
		if err != nil {
			return err
		}
		if old, err = t.get(k); err != nil {
			return err
		}
		if !cond.match(old) {
			return in.failed(old)
		}
		if old == nil && nw == nil {
			return nil
		}
		return t.write(k, old, nw)
	})
	if err != nil {
		return nil, err
	}
	if in.ReturnValues == "ALL_OLD" {
		return attributesAnswer(old), nil
	}
	return json.RawMessage(`{}`), nil
}

func updateItem(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		writeParams
		Key              json.RawMessage
		UpdateExpression *string
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	x, cond, err := in.check("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
	if err != nil {
		return nil, err
	}
	upd, err := x.parseUpdate(in.UpdateExpression)
	if err != nil {
		return nil, err
	}
	if err := x.checkUnused(); err != nil {
		return nil, err
	}
	key, err := decodeItem(in.Key)
	if err != nil {
		return nil, err
	}
	normalizeTop(key)
	var old, nw item
	err = db.update(func(tx *bolt.Tx) error {
		t, err := db.tbl(tx, in.TableName)
		if err != nil {
			return err
		}
		k, err := t.keyOf(key)
		if err != nil {
			return err
		}
		if old, err = t.get(k); err != nil {
			return err
		}
		if !cond.match(old) {
			return in.failed(old)
		}
		if err := upd.checkKeys(t.meta.Keys.attrs()); err != nil {
			return err
		}
		if nw, err = applyUpdate(t, upd, key, old); err != nil {
			return err
		}
		return t.write(k, old, nw)
	})
	if err != nil {
		return nil, err
	}
	return attributesAnswer(returned(in.ReturnValues, upd, old, nw)), nil
}

// applyUpdate computes an UpdateItem's new item and checks it.
func applyUpdate(t tbl, upd *updateExpr, key, old item) (item, error) {
	base := item{}
	for k, v := range old {
		base[k] = v
	}
	for k, v := range key {
		base[k] = v
	}
	nw := base
	if upd != nil {
		var err error
		if nw, err = upd.apply(base); err != nil {
			return nil, err
		}
	}
	if err := checkSize(nw, true); err != nil {
		return nil, err
	}
	if checkDepth(nw) != nil {
		return nil, validation("Nesting Levels have exceeded supported limits")
	}
	// DynamoDB Local checks that an index key an update sets is a string,
	// number or binary and not empty, but not that it is of the index's
	// type: an item whose index key has another type is left out of that
	// index.
	for _, ix := range t.meta.Indexes {
		for _, attr := range ix.Keys.attrs() {
			v, ok := nw[attr]
			if !ok || (old != nil && old[attr] != nil && equalAV(old[attr], v)) {
				continue
			}
			switch t := typeOf(v); {
			case t != "S" && t != "N" && t != "B":
				return nil, validation("Invalid attribute value type")
			case (v.S != nil && *v.S == "") || (t == "B" && len(v.B) == 0):
				return nil, validationf("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
					map[bool]string{true: "string", false: "binary"}[v.S != nil], ix.Name, attr)
			}
		}
	}
	return nw, nil
}

// returned picks what UpdateItem's ReturnValues asks for: UPDATED_OLD and
// UPDATED_NEW are the paths the update names, before and after.
func returned(mode string, upd *updateExpr, old, nw item) item {
	some := func(it item) item {
		if upd == nil || it == nil {
			return nil
		}
		if out := project(it, upd.returnedPaths(it)); len(out) > 0 {
			return out
		}
		return nil
	}
	switch mode {
	case "ALL_OLD":
		return old
	case "ALL_NEW":
		return nw
	case "UPDATED_OLD":
		return some(old)
	case "UPDATED_NEW":
		return some(nw)
	}
	return nil
}
