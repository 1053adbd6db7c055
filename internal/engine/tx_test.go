package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// Actions of the transaction tests on table DOC, whose item p/1 has v = 1.
const (
	txPut      = `{"Put":{"TableName":"DOC","Item":{"PK":{"S":"p"},"SK":{"S":"2"}}}}`
	txDelete   = `{"Delete":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"3"}}}}`
	txFails    = `{"ConditionCheck":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"ConditionExpression":"attribute_not_exists(v)"}}`
	txFailsOld = `{"ConditionCheck":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"ConditionExpression":"attribute_not_exists(v)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}`
	txMissing  = `{"Update":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"4"}},"UpdateExpression":"SET v = :n","ConditionExpression":"attribute_exists(v)","ExpressionAttributeValues":{":n":{"N":"1"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}`
	txBadType  = `{"Update":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"UpdateExpression":"SET w = u + :n","ExpressionAttributeValues":{":n":{"N":"1"}}}}`
	txPasses   = `{"ConditionCheck":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"ConditionExpression":"attribute_exists(v)"}}`
	txRaise    = `{"Update":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}},"UpdateExpression":"SET v = v + :n","ExpressionAttributeValues":{":n":{"N":"1"}}}}`
)

// txOf writes a TransactWriteItems body of actions.
func txOf(actions ...string) string {
	return `{"TransactItems":[` + strings.Join(actions, ",") + `]}`
}

// TestTransactionsCancelAsDynamoDB: a cancelled transaction names a reason
// for each action, in order (None for those that would have passed, the
// old item when asked for), writes nothing, and a transaction DynamoDB
// refuses whole (an item twice, more than 100 actions) is a
// ValidationException. DynamoDB Local checks conditions before it looks
// for an item named twice.
func TestTransactionsCancelAsDynamoDB(t *testing.T) {
	const (
		none = `{"Code":"None"}`
		// DynamoDB Local ends the message of a failed check with a full
		// stop, not that of a failed update.
		failed = `{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}`
		check  = `{"Code":"ConditionalCheckFailed","Message":"The conditional request failed."}`
		old    = `{"Code":"ConditionalCheckFailed","Message":"The conditional request failed.","Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"},"u":{"S":"x"}}}`
	)
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf(`{"Put":{"TableName":"DOC","Item":{"PK":{"S":"m"},"SK":{"S":"%d"}}}}`, i)
	}
	for _, c := range []struct{ name, body, wantType, reasons string }{
		{"one fails", txOf(txPut, txFails, txDelete), "TransactionCanceledException", none + "," + check + "," + none},
		{"one fails with its item", txOf(txPut, txFailsOld), "TransactionCanceledException", none + "," + old},
		{"missing item", txOf(txMissing, txPut), "TransactionCanceledException", failed + "," + none},
		{"two fail", txOf(txMissing, txFails), "TransactionCanceledException", failed + "," + check},
		{"a type error applying an update", txOf(txPut, txBadType), "ValidationException", ``},
		{"an item twice", txOf(txRaise, txPasses), "ValidationException", ``},
		{"an item twice, one failing", txOf(txRaise, txFails), "TransactionCanceledException", none + "," + check},
		{"101 actions", txOf(many...), "ValidationException", ``},
		{"100 actions", txOf(many[:100]...), "", ``},
		{"no actions", txOf(), "ValidationException", ``},
		{"a check without a condition", txOf(`{"ConditionCheck":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}}`), "ValidationException", ``},
		{"two kinds in an action", txOf(`{"Put":{"TableName":"DOC","Item":{"PK":{"S":"p"},"SK":{"S":"5"}}},"Delete":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"6"}}}}`), "ValidationException", ``},
		{"a key without its sort key", txOf(`{"Delete":{"TableName":"DOC","Key":{"PK":{"S":"p"}}}}`), "ValidationException", ``},
		{"an unknown table", txOf(txPut, `{"Delete":{"TableName":"NOPE","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}}`), "ResourceNotFoundException", ``},
		{"all pass", txOf(txPut, txRaise, txDelete), "", ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := openWire(t)
			keyTable(w, "DOC", "S")
			w.must("PutItem", `{"TableName":"DOC","Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"},"u":{"S":"x"}}}`)
			w.must("PutItem", `{"TableName":"DOC","Item":{"PK":{"S":"p"},"SK":{"S":"3"}}}`)
			a := w.call("TransactWriteItems", c.body)
			a.expect(t, c.wantType, "")
			if c.reasons != "" {
				a.expectReasons(t, `[`+c.reasons+`]`)
			}
			written := c.wantType == ""
			put, deleted := written && strings.Contains(c.body, txPut), written && strings.Contains(c.body, txDelete)
			for sk, want := range map[string]bool{"2": put, "3": !deleted, "4": false} {
				got := w.must("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"`+sk+`"}}}`).body["Item"] != nil
				if got != want {
					t.Errorf("after it, item p/%s is there: %v, want %v", sk, got, want)
				}
			}
			v := `{"N":"1"}`
			if written && strings.Contains(c.body, txRaise) {
				v = `{"N":"2"}`
			}
			w.call("GetItem", `{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"1"}}}`).expectAttrs(t, `{"v":`+v+`}`)
		})
	}
}

// TestTransactGetsAsDynamoDB: TransactGetItems answers each get in order,
// an empty response for an item that does not exist, projections applied;
// an item got twice is refused.
func TestTransactGetsAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "DOC", "S")
	w.must("PutItem", `{"TableName":"DOC","Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"},"u":{"S":"x"}}}`)
	get := func(sk, proj string) string {
		if proj != "" {
			proj = `,"ProjectionExpression":"` + proj + `"`
		}
		return `{"Get":{"TableName":"DOC","Key":{"PK":{"S":"p"},"SK":{"S":"` + sk + `"}}` + proj + `}}`
	}
	w.call("TransactGetItems", txOf(get("9", ""), get("1", "u"))).expect(t, "", `{"Responses":[{},{"Item":{"u":{"S":"x"}}}]}`)
	w.call("TransactGetItems", txOf(get("1", ""))).expect(t, "", `{"Responses":[{"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"},"u":{"S":"x"}}}]}`)
	w.call("TransactGetItems", txOf(get("1", ""), get("1", "v"))).expect(t, "ValidationException", "")
	w.call("TransactGetItems", txOf()).expect(t, "ValidationException", "")
}
