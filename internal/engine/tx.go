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
	maxTransactItems   = 100
	maxTransactPayload = 4 << 20
	tokenWindow        = 10 * time.Minute
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
	// keyText is the key DynamoDB Local tells a transaction's items apart
	// by (see prepareAction).
	keyText string
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
		p.key, err = decodeItem(a.Item)
	} else {
		p.key, err = decodeItem(a.Key)
	}
	if err != nil {
		return nil, err
	}
	// A Put's item is normalised before DynamoDB Local compares keys; the
	// Key of the other actions is compared as sent (1E3 and 1000 differ).
	if !p.isPut {
		p.keyText = string(appendItem(nil, p.key)) // narrowed to the key attributes when run
	}
	normalizeTop(p.key)
	if p.isPut {
		p.keyText = string(appendItem(nil, p.key))
	}
	if p.isPut {
		if err = checkSize(p.key, false); err == nil {
			err = checkDepth(p.key)
		}
	}
	return p, err
}

// payload is what an action adds to a transaction's 4 MB, as DynamoDB Local
// counts it: the item of a Put or the key of another action, its
// expressions' lengths and its values' sizes.
func (p *prepared) payload() int {
	n := itemSize(p.key) + len(p.act.ConditionExpression)
	if p.act.UpdateExpression != nil {
		n += len(*p.act.UpdateExpression)
	}
	for _, v := range p.x.values {
		n += avSize(v)
	}
	return n
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
	payload := 0
	for i, r := range in.TransactItems {
		p, err := prepareAction(r)
		if err != nil {
			return nil, err
		}
		acts[i] = p
		payload += p.payload()
	}
	if payload > maxTransactPayload {
		return nil, validationf("Transaction payload size cannot exceed 4MB. Payload Size: %d", payload)
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

// txState is what a transaction's actions see: the table as it was, with
// the writes of the actions before them. DynamoDB Local applies a
// transaction's actions one after another and undoes them all when one
// fails; the engine keeps them here and writes them only at the end.
type txState struct {
	db      *DB
	tx      *bolt.Tx
	current map[string]item // by table and encoded key; nil: deleted
	touched []txWrite
}

type txWrite struct {
	t   tbl
	k   []byte
	old item // as stored before the transaction
	id  string
}

func (s *txState) get(t tbl, k []byte) (item, error) {
	id := t.meta.Name + "\x00" + string(k)
	if it, ok := s.current[id]; ok {
		return it, nil
	}
	return t.get(k)
}

func (s *txState) put(t tbl, k []byte, it item) error {
	id := t.meta.Name + "\x00" + string(k)
	if _, ok := s.current[id]; !ok {
		old, err := t.get(k)
		if err != nil {
			return err
		}
		s.touched = append(s.touched, txWrite{t: t, k: k, old: old, id: id})
	}
	s.current[id] = it
	return nil
}

// applyTransaction runs the actions in order as DynamoDB Local does: a
// failed condition, or an item whose key or index key has the wrong type,
// is a cancellation reason and the actions go on; an update of a key
// attribute cancels at once with that one reason; any other error fails
// the whole request; an action on an item an earlier action (with the same
// key, as written) changed fails it too. Only when every action succeeds
// is anything written.
func (db *DB) applyTransaction(tx *bolt.Tx, acts []*prepared, token string, sum []byte) error {
	st := &txState{db: db, tx: tx, current: map[string]item{}}
	reasons := make([]cancelReason, len(acts))
	seen := map[string]bool{}
	failed := false
	var err error
	for i, p := range acts {
		reason, err := st.run(p)
		if err != nil {
			return err
		}
		if reason != nil {
			reasons[i], failed = *reason, true
			continue
		}
		t, _ := db.tbl(tx, p.act.TableName)
		raw, _ := decodeItem(json.RawMessage(p.keyText))
		text := p.act.TableName + "\x00" + string(appendItem(nil, t.keyItem(raw)))
		if seen[text] {
			return validation("Transaction request cannot include multiple operations on one item")
		}
		seen[text] = true
		reasons[i] = cancelReason{Code: "None"}
	}
	if failed {
		// DynamoDB Local reads the items of failed conditions once every
		// action has run, so they show what later actions wrote.
		for i, r := range reasons {
			if r.Code == "ConditionalCheckFailed" && acts[i].act.ReturnValuesOnConditionCheckFailure == "ALL_OLD" {
				if reasons[i].Item, err = st.itemOf(acts[i]); err != nil {
					return err
				}
			}
		}
		codes := make([]string, len(reasons))
		for i, r := range reasons {
			codes[i] = r.Code
		}
		return &apiError{Type: "TransactionCanceledException", Status: http.StatusBadRequest, Reasons: reasons,
			Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"}
	}
	for _, w := range st.touched {
		if err := w.t.write(w.k, w.old, st.current[w.id]); err != nil {
			return err
		}
	}
	if token != "" {
		rec := binary.BigEndian.AppendUint64(append([]byte(nil), sum...), uint64(db.now().UnixNano()))
		return tx.Bucket(bucketTokens).Put([]byte(token), rec)
	}
	return nil
}

// itemOf reads an action's item as the transaction has left it.
func (st *txState) itemOf(p *prepared) (item, error) {
	t, err := st.db.tbl(st.tx, p.act.TableName)
	if err != nil {
		return nil, err
	}
	var k []byte
	if p.isPut {
		k, err = t.keyOfItem(p.key)
	} else {
		k, err = t.keyOf(p.key)
	}
	if err != nil {
		return nil, err
	}
	return st.get(t, k)
}

// run applies one action to the transaction's state: a cancellation reason,
// or an error for the whole request.
func (st *txState) run(p *prepared) (*cancelReason, error) {
	t, err := st.db.tbl(st.tx, p.act.TableName)
	if err != nil {
		return nil, err
	}
	invalid := func(err error) (*cancelReason, error) {
		if api, ok := err.(*apiError); ok && api.Type == "ValidationException" {
			return &cancelReason{Code: "ValidationError", Message: api.Message}, nil
		}
		return nil, err
	}
	var k []byte
	if p.isPut {
		if k, err = t.keyOfItem(p.key); err != nil {
			return invalid(err)
		}
		if err := t.checkIndexKeys(p.key); err != nil {
			return invalid(err)
		}
	} else if k, err = t.keyOf(p.key); err != nil {
		if api, ok := err.(*apiError); ok && api.Message == keyTooLong {
			return invalid(err) // a cancellation reason, as for a Put
		}
		return nil, err
	}
	old, err := st.get(t, k)
	if err != nil {
		return nil, err
	}
	if !p.cond.match(old) {
		r := &cancelReason{Code: "ConditionalCheckFailed", Message: "The conditional request failed"}
		if p.kind == "ConditionCheck" {
			r.Message += "."
		}
		return r, nil
	}
	switch p.kind {
	case "Put":
		return nil, st.put(t, k, p.key)
	case "Delete":
		return nil, st.put(t, k, nil)
	case "Update":
		if err := p.upd.checkKeys(t.meta.Keys.attrs()); err != nil {
			return nil, &apiError{Type: "TransactionCanceledException", Status: http.StatusBadRequest,
				Reasons: []cancelReason{{Code: "ValidationError", Message: err.(*apiError).Message}},
				Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"}
		}
		nw, err := applyUpdate(t, p.upd, p.key, old)
		if err != nil {
			if api, ok := err.(*apiError); ok && strings.Contains(api.Message, "size") {
				return invalid(err)
			}
			return nil, err
		}
		return nil, st.put(t, k, nw)
	}
	return nil, nil
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
