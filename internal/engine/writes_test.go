package engine_test

import (
	"testing"
)

// wItem is the item the write tests find in table WRT before each case.
const wItem = `{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"}}`

// TestSingleWritesAsDynamoDB: PutItem, DeleteItem and UpdateItem with
// conditions and ReturnValues answer as DynamoDB Local does (a failed
// condition returns the old item when asked), items are checked and their
// numbers normalised as DynamoDB does, and what is refused or fails writes
// nothing (after: the item p/1, or p/2, as it is then; null for none).
func TestSingleWritesAsDynamoDB(t *testing.T) {
	w := openWire(t)
	keyTable(w, "WRT", "S")
	const k1, k2 = `"Key":{"PK":{"S":"p"},"SK":{"S":"1"}}`, `"Key":{"PK":{"S":"p"},"SK":{"S":"2"}}`
	const ccf = "ConditionalCheckFailedException"
	for _, c := range []struct{ name, op, params, wantType, want, after string }{
		{"put returns the old item", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ReturnValues":"ALL_OLD"`,
			"", `{"Attributes":` + wItem + `}`, `{"PK":{"S":"p"},"SK":{"S":"1"}}`},
		{"put of a new item returns none", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"2"}},"ReturnValues":"ALL_OLD"`,
			"", `{"Attributes":null}`, wItem},
		{"put cannot return the new item", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ReturnValues":"ALL_NEW"`, "ValidationException", ``, wItem},
		{"put cannot return updated values", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ReturnValues":"UPDATED_OLD"`, "ValidationException", ``, wItem},
		{"delete returns the old item", "DeleteItem", k1 + `,"ReturnValues":"ALL_OLD"`, "", `{"Attributes":` + wItem + `}`, `null`},
		{"delete of no item returns none", "DeleteItem", k2 + `,"ReturnValues":"ALL_OLD"`, "", `{"Attributes":null}`, wItem},
		{"a failed put", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ConditionExpression":"attribute_not_exists(PK)"`, ccf, ``, wItem},
		{"a failed put returns the item", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ConditionExpression":"attribute_not_exists(PK)",
			"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`, ccf, `{"Item":` + wItem + `}`, wItem},
		{"a failed delete", "DeleteItem", k1 + `,"ConditionExpression":"v = :two","ExpressionAttributeValues":{":two":{"N":"2"}},
			"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`, ccf, `{"Item":` + wItem + `}`, wItem},
		{"a failed update creates nothing", "UpdateItem", k2 + `,"UpdateExpression":"SET v = :two","ConditionExpression":"attribute_exists(PK)",
			"ExpressionAttributeValues":{":two":{"N":"2"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`, ccf, `{"Item":null}`, `null`},
		{"an update creates", "UpdateItem", k2 + `,"UpdateExpression":"SET v = :two","ConditionExpression":"attribute_not_exists(PK)",
			"ExpressionAttributeValues":{":two":{"N":"2"}}`, "", ``, `{"PK":{"S":"p"},"SK":{"S":"2"},"v":{"N":"2"}}`},
		{"an unknown ReturnValuesOnConditionCheckFailure", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"}},"ReturnValuesOnConditionCheckFailure":"ALL_NEW"`,
			"ValidationException", ``, wItem},
		{"numbers normalised", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"01.500"},"z":{"N":"-0"},"e":{"N":"1E+2"},"ns":{"NS":["1.0","2"]}}`,
			"", ``, `{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1.5"},"z":{"N":"0"},"e":{"N":"100"},"ns":{"NS":["1","2"]}}`},
		{"an empty string", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"s":{"S":""},"b":{"B":""}}`,
			"", ``, `{"PK":{"S":"p"},"SK":{"S":"1"},"s":{"S":""},"b":{"B":""}}`},
		{"an empty key", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":""}}`, "ValidationException", ``, wItem},
		{"a key of another type", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"N":"1"}}`, "ValidationException", ``, wItem},
		{"no sort key", "PutItem", `"Item":{"PK":{"S":"p"},"v":{"N":"1"}}`, "ValidationException", ``, wItem},
		{"an empty set", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"ss":{"SS":[]}}`, "ValidationException", ``, wItem},
		{"a set with a duplicate", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"ns":{"NS":["1","1.0"]}}`, "ValidationException", ``, wItem},
		{"a number that is not one", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1x"}}`, "ValidationException", ``, wItem},
		{"a value of two types", "PutItem", `"Item":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1","S":"1"}}`, "ValidationException", ``, wItem},
		{"a delete with more than the key", "DeleteItem", `"Key":{"PK":{"S":"p"},"SK":{"S":"1"},"v":{"N":"1"}}`, "ValidationException", ``, wItem},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.must("PutItem", `{"TableName":"WRT","Item":`+wItem+`}`)
			w.call("DeleteItem", `{"TableName":"WRT",`+k2+`}`)
			w.call(c.op, `{"TableName":"WRT",`+c.params+`}`).expect(t, c.wantType, c.want)
			key := k1
			if c.op == "UpdateItem" {
				key = k2
			}
			w.call("GetItem", `{"TableName":"WRT",`+key+`}`).expect(t, "", `{"Item":`+c.after+`}`)
		})
	}
}
