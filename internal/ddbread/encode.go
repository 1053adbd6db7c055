package ddbread

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/ddbjson"
)

// object writes a JSON object field by field, straight into bytes: a view
// sends tens of requests, and encoding/json's reflection over request structs
// (re-checking every item's JSON) cost more than sending them. Attribute
// values are written by ddbjson, which checks them as DynamoDB would.
type object struct {
	b     []byte
	first []bool // per open object, whether no field is written yet
	err   error
}

// newObject starts an object of about size bytes: grown from nothing, a
// Query's few hundred bytes took seven allocations and copies.
func newObject(size int) *object {
	o := &object{b: make([]byte, 1, size), first: make([]bool, 1, 4)}
	o.b[0], o.first[0] = '{', true
	return o
}

// requestBytes is about what a request takes besides its keys, and keyBytes
// what each key of a BatchGetItem adds (a partition and a sort key).
const (
	requestBytes = 512
	keyBytes     = 160
)

// key starts a field.
func (o *object) key(name string) {
	if !o.first[len(o.first)-1] {
		o.b = append(o.b, ',')
	}
	o.first[len(o.first)-1] = false
	o.b = ddbjson.AppendString(o.b, name)
	o.b = append(o.b, ':')
}

// begin starts a field holding an object; end closes it.
func (o *object) begin(name string) {
	o.key(name)
	o.b = append(o.b, '{')
	o.first = append(o.first, true)
}

func (o *object) end() {
	o.b = append(o.b, '}')
	o.first = o.first[:len(o.first)-1]
}

func (o *object) str(name string, v *string) {
	if v != nil {
		o.key(name)
		o.b = ddbjson.AppendString(o.b, *v)
	}
}

func (o *object) boolean(name string, v *bool) {
	if v != nil {
		o.key(name)
		o.b = strconv.AppendBool(o.b, *v)
	}
}

func (o *object) int32(name string, v *int32) {
	if v != nil {
		o.key(name)
		o.b = strconv.AppendInt(o.b, int64(*v), 10)
	}
}

// names writes expression attribute names, when there are some.
func (o *object) names(name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	o.begin(name)
	var scratch [16]string
	for _, k := range ddbjson.SortedNames(m, scratch[:0]) {
		v := m[k]
		o.str(k, &v)
	}
	o.end()
}

// item writes an item (a key, expression values), when it has attributes
// or required is set.
func (o *object) item(name string, it map[string]types.AttributeValue, required bool) {
	if len(it) == 0 && !required {
		return
	}
	o.key(name)
	o.appendItem(it)
}

func (o *object) appendItem(it map[string]types.AttributeValue) {
	var err error
	if o.b, err = ddbjson.AppendItem(o.b, it); err != nil && o.err == nil {
		o.err = err
	}
}

// bytes closes the object and returns it, or the first error met.
func (o *object) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, fmt.Errorf("ddbread: encode the request: %w", o.err)
	}
	return append(o.b, '}'), nil
}

// errUnsupported refuses an input field this package does not send, so
// that a caller setting one learns it at once instead of getting an answer
// that ignored it.
func errUnsupported(op, field string) error {
	return fmt.Errorf("ddbread: %s with %s is not supported; use the SDK client", op, field)
}

func encodeGetItem(v any) ([]byte, error) {
	in := v.(*dynamodb.GetItemInput)
	switch {
	case in.AttributesToGet != nil:
		return nil, errUnsupported("GetItem", "AttributesToGet")
	case in.ReturnConsumedCapacity != "":
		return nil, errUnsupported("GetItem", "ReturnConsumedCapacity")
	case in.TableName == nil:
		return nil, fmt.Errorf("ddbread: GetItem without TableName")
	}
	o := newObject(requestBytes)
	o.str("TableName", in.TableName)
	o.item("Key", in.Key, true)
	o.boolean("ConsistentRead", in.ConsistentRead)
	o.str("ProjectionExpression", in.ProjectionExpression)
	o.names("ExpressionAttributeNames", in.ExpressionAttributeNames)
	return o.bytes()
}

func encodeBatchGetItem(v any) ([]byte, error) {
	in := v.(*dynamodb.BatchGetItemInput)
	if in.ReturnConsumedCapacity != "" {
		return nil, errUnsupported("BatchGetItem", "ReturnConsumedCapacity")
	}
	keys := 0
	for _, ka := range in.RequestItems {
		keys += len(ka.Keys)
	}
	o := newObject(requestBytes + keys*keyBytes)
	o.begin("RequestItems")
	for _, table := range slices.Sorted(maps.Keys(in.RequestItems)) {
		ka := in.RequestItems[table]
		if ka.AttributesToGet != nil {
			return nil, errUnsupported("BatchGetItem", "AttributesToGet")
		}
		o.begin(table)
		o.key("Keys")
		o.b = append(o.b, '[')
		for i, k := range ka.Keys {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.appendItem(k)
		}
		o.b = append(o.b, ']')
		o.boolean("ConsistentRead", ka.ConsistentRead)
		o.str("ProjectionExpression", ka.ProjectionExpression)
		o.names("ExpressionAttributeNames", ka.ExpressionAttributeNames)
		o.end()
	}
	o.end()
	return o.bytes()
}

func encodeQuery(v any) ([]byte, error) {
	in := v.(*dynamodb.QueryInput)
	switch {
	case in.AttributesToGet != nil:
		return nil, errUnsupported("Query", "AttributesToGet")
	case in.KeyConditions != nil || in.QueryFilter != nil || in.ConditionalOperator != "":
		return nil, errUnsupported("Query", "legacy conditions")
	case in.Select != "":
		return nil, errUnsupported("Query", "Select")
	case in.ReturnConsumedCapacity != "":
		return nil, errUnsupported("Query", "ReturnConsumedCapacity")
	case in.TableName == nil:
		return nil, fmt.Errorf("ddbread: Query without TableName")
	}
	o := newObject(requestBytes)
	o.str("TableName", in.TableName)
	o.str("IndexName", in.IndexName)
	o.boolean("ConsistentRead", in.ConsistentRead)
	o.str("KeyConditionExpression", in.KeyConditionExpression)
	o.str("FilterExpression", in.FilterExpression)
	o.str("ProjectionExpression", in.ProjectionExpression)
	o.names("ExpressionAttributeNames", in.ExpressionAttributeNames)
	o.item("ExpressionAttributeValues", in.ExpressionAttributeValues, false)
	o.item("ExclusiveStartKey", in.ExclusiveStartKey, false)
	o.int32("Limit", in.Limit)
	o.boolean("ScanIndexForward", in.ScanIndexForward)
	return o.bytes()
}
