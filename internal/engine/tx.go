package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Transaction limits and the ClientRequestToken window, as DynamoDB has them.
const (
	maxTransactItems = 100
	tokenWindow      = 10 * time.Minute
)

type txAction struct {
	writeParams
	Key              json.RawMessage
	Item             json.RawMessage
	UpdateExpression *string
}

type txRequest struct {
	Put, Update, Delete, ConditionCheck *txAction
}

// prepared is one action checked before the transaction runs.
type prepared struct {
	kind  string // Put, Update, Delete or ConditionCheck
	act   *txAction
	x     *exprs
	cond  *condition
	upd   *updateExpr
	key   item // Key, or the Put's item
	isPut bool
}

func prepareAction(r txRequest) (*prepared, error) {
	p := &prepared{}
	n := 0
	for kind, a := range map[string]*txAction{"Put": r.Put, "Update": r.Update, "Delete": r.Delete, "ConditionCheck": r.ConditionCheck} {
		if a != nil {
			p.kind, p.act = kind, a
			n++
		}
	}
	if n != 1 {
		return nil, validation("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	a := p.act
	if a.ReturnValues != "" {
		return nil, validation("ReturnValues is not supported in transactions: use ReturnValuesOnConditionCheckFailure")
	}
	var err error
	if p.x, p.cond, err = a.check(); err != nil {
		return nil, err
	}
	if p.kind == "ConditionCheck" && a.ConditionExpression == "" {
		return nil, validation("The ConditionExpression parameter is required for ConditionCheck")
	}
	if p.kind == "Update" {
		if a.UpdateExpression == nil {
			return nil, validation("The UpdateExpression parameter is required in an Update of a transaction")
		}
		if p.upd, err = p.x.parseUpdate(a.UpdateExpression); err != nil {
			return nil, err
		}
	}
	if err := p.x.checkUnused(); err != nil {
		return nil, err
	}
	if p.kind == "Put" {
		p.isPut = true
		if p.key, err = decodeItem(a.Item); err == nil {
			err = checkSize(normalizeTop(p.key), false)
		}
	} else if p.key, err = decodeItem(a.Key); err == nil {
		normalizeTop(p.key)
	}
	return p, err
}

func transactWriteItems(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TransactItems      []txRequest
		ClientRequestToken string
	}
	if err := decodeRequest(body, &in); err != nil {
		return nil, err
	}
	if len(in.TransactItems) == 0 || len(in.TransactItems) > maxTransactItems {
		return nil, validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100")
	}
	if len(in.ClientRequestToken) > 36 {
		return nil, validation("1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
	}
	acts := make([]*prepared, len(in.TransactItems))
	for i, r := range in.TransactItems {
		p, err := prepareAction(r)
		if err != nil {
			return nil, err
		}
		acts[i] = p
	}
	sum, err := requestHash(body)
	if err != nil {
		return nil, err
	}
	err = db.update(func(tx *bolt.Tx) error {
		if in.ClientRequestToken != "" {
			replay, err := db.checkToken(tx, in.ClientRequestToken, sum[:])
			if err != nil || replay {
				return err
			}
		}
		return db.applyTransaction(tx, acts, in.ClientRequestToken, sum[:])
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}

type txWrite struct {
	t        tbl
	k        []byte
	old, new item
}

// applyTransaction checks every action's condition and, when all hold,
// writes them all; otherwise nothing.
func (db *DB) applyTransaction(tx *bolt.Tx, acts []*prepared, token string, sum []byte) error {
	reasons := make([]cancelReason, len(acts))
	var writes []txWrite
	seen := map[string]bool{}
	failed, duplicate := false, false
	for i, p := range acts {
		t, err := db.tbl(tx, p.act.TableName)
		if err != nil {
			return err
		}
		var k []byte
		if p.isPut {
			if k, err = t.keyOfItem(p.key); err == nil {
				err = t.checkIndexKeys(p.key)
			}
		} else {
			k, err = t.keyOf(p.key)
		}
		if err != nil {
			return err
		}
		// Two actions on one key as sent are refused before anything is
		// read; on one item under two spellings (1E3 and 1000) only when
		// no condition fails.
		text := p.act.TableName + "\x00" + string(appendItem(nil, t.keyItem(p.key)))
		if seen[text] {
			return validation("Transaction request cannot include multiple operations on one item")
		}
		seen[text] = true
		id := p.act.TableName + "\x00" + string(k)
		duplicate = duplicate || seen[id]
		seen[id] = true
		if p.kind == "Update" {
			if err := p.upd.checkKeys(t.meta.Keys.attrs()); err != nil {
				// DynamoDB Local cancels the whole transaction with this
				// one reason, unless the update cannot be applied at all.
				if cur, getErr := t.get(k); getErr == nil {
					if _, updErr := applyUpdate(t, p.upd, p.key, cur); updErr != nil {
						return updErr
					}
				}
				api := err.(*apiError)
				return &apiError{Type: "TransactionCanceledException", Status: http.StatusBadRequest,
					Reasons: []cancelReason{{Code: "ValidationError", Message: api.Message}},
					Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"}
			}
		}
		old, err := t.get(k)
		if err != nil {
			return err
		}
		reasons[i] = cancelReason{Code: "None"}
		ok, err := p.cond.match(old)
		if err != nil {
			return err
		}
		if !ok {
			failed = true
			reasons[i] = cancelReason{Code: "ConditionalCheckFailed", Message: "The conditional request failed"}
			if p.act.ReturnValuesOnConditionCheckFailure == "ALL_OLD" {
				reasons[i].Item = old
			}
			continue
		}
		w := txWrite{t: t, k: k, old: old}
		switch p.kind {
		case "Put":
			w.new = p.key
		case "Update":
			// An update the item cannot take fails the whole request, as
			// in DynamoDB, not as a cancellation reason.
			if w.new, err = applyUpdate(t, p.upd, p.key, old); err != nil {
				return err
			}
		}
		if p.kind == "ConditionCheck" || (p.kind == "Delete" && old == nil) {
			continue
		}
		writes = append(writes, w)
	}
	if duplicate && !failed {
		return validation("Transaction request cannot include multiple operations on one item")
	}
	if failed {
		codes := make([]string, len(reasons))
		for i, r := range reasons {
			codes[i] = r.Code
		}
		return &apiError{Type: "TransactionCanceledException", Status: http.StatusBadRequest, Reasons: reasons,
			Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"}
	}
	for _, w := range writes {
		if err := w.t.write(w.k, w.old, w.new); err != nil {
			return err
		}
	}
	if token != "" {
		rec := binary.BigEndian.AppendUint64(append([]byte(nil), sum...), uint64(db.now().UnixNano()))
		return tx.Bucket(bucketTokens).Put([]byte(token), rec)
	}
	return nil
}

// requestHash hashes a request's JSON in a canonical form (object keys
// sorted at every level): the SDK writes maps in no set order, so a resend
// of one request need not repeat its bytes.
func requestHash(body []byte) ([sha256.Size]byte, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return [sha256.Size]byte{}, validation("the request is not JSON")
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(canonical), nil
}

// checkToken reports whether a transaction with this token was applied in
// the last 10 minutes; the same token with another request is refused.
func (db *DB) checkToken(tx *bolt.Tx, token string, sum []byte) (bool, error) {
	rec := tx.Bucket(bucketTokens).Get([]byte(token))
	if len(rec) != sha256.Size+8 {
		return false, nil
	}
	at := time.Unix(0, int64(binary.BigEndian.Uint64(rec[sha256.Size:])))
	if db.now().Sub(at) > tokenWindow {
		return false, nil
	}
	if string(rec[:sha256.Size]) != string(sum) {
		return false, &apiError{Type: "IdempotentParameterMismatchException", Status: http.StatusBadRequest,
			Message: "The request uses the same client token as a previous, but non-identical request."}
	}
	return true, nil
}

func transactGetItems(db *DB, body []byte) (json.RawMessage, error) {
	var in struct {
		TransactItems []struct {
			Get *struct {
				TableName                string
				Key                      json.RawMessage
				ProjectionExpression     string
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
		if g.proj, err = x.projection(r.Get.ProjectionExpression); err != nil {
			return nil, err
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
		if g.key, err = decodeItem(r.Get.Key); err != nil {
			return nil, err
		}
		if id := g.table + "\x00" + string(appendItem(nil, g.key)); seen[id] {
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
