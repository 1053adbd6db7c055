package engine

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// transactGetItems reads up to 100 items in one snapshot.
func transactGetItems(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TransactItems []struct {
			Get *struct {
				TableName                string
				Key                      json.RawMessage
				ProjectionExpression     expression
				ExpressionAttributeNames map[string]string
			}
		}
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if len(in.TransactItems) == 0 || len(in.TransactItems) > maxTransactItems {
		return nil, validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100")
	}
	type get struct {
		table string
		key   item
		proj  *projection
	}
	gets := make([]get, len(in.TransactItems))
	seen := map[string]bool{}
	for i, r := range in.TransactItems {
		if r.Get == nil {
			return nil, validation("TransactItems can only contain Get")
		}
		x, err := newExprs(r.Get.ExpressionAttributeNames, nil)
		if err != nil {
			return nil, err
		}
		g := get{table: r.Get.TableName}
		if g.proj, err = x.projection(string(r.Get.ProjectionExpression)); err != nil {
			return nil, err
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
		if g.key, err = decodeItem(r.Get.Key); err != nil {
			return nil, err
		}
		if id := g.table + "\x00" + valueKey(g.key); seen[id] {
			return nil, validation("Transaction request cannot include multiple operations on one item")
		} else {
			seen[id] = true
		}
		gets[i] = g
	}
	out := []byte(`{"Responses":[`)
	err := db.view(func(tx *bolt.Tx) error {
		for i, g := range gets {
			t, err := db.tbl(tx, g.table)
			if err != nil {
				return err
			}
			k, err := t.keyOf(g.key)
			if err != nil {
				return err
			}
			if i > 0 {
				out = append(out, ',')
			}
			js, err := answerItem(t.items().Get(k), g.proj)
			if err != nil {
				return err
			}
			out = append(out, js...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(out, "]}"...), nil
}
