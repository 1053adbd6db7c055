package ddbread

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/ddbjson"
)

// item is a DynamoDB item encoded in DynamoDB JSON, as a request carries
// keys and expression values.
type item map[string]types.AttributeValue

func (it item) MarshalJSON() ([]byte, error) { return ddbjson.MarshalItem(it) }

// The request bodies: only the fields a read on calgraph's path sends.
type (
	getItemRequest struct {
		TableName                string            `json:"TableName"`
		Key                      item              `json:"Key"`
		ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
		ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
		ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
	}
	keysAndAttributes struct {
		Keys                     []item            `json:"Keys"`
		ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
		ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
		ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
	}
	batchGetItemRequest struct {
		RequestItems map[string]keysAndAttributes `json:"RequestItems"`
	}
	queryRequest struct {
		TableName                 string            `json:"TableName"`
		IndexName                 *string           `json:"IndexName,omitempty"`
		ConsistentRead            *bool             `json:"ConsistentRead,omitempty"`
		KeyConditionExpression    *string           `json:"KeyConditionExpression,omitempty"`
		FilterExpression          *string           `json:"FilterExpression,omitempty"`
		ProjectionExpression      *string           `json:"ProjectionExpression,omitempty"`
		ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
		ExpressionAttributeValues item              `json:"ExpressionAttributeValues,omitempty"`
		ExclusiveStartKey         item              `json:"ExclusiveStartKey,omitempty"`
		Limit                     *int32            `json:"Limit,omitempty"`
		ScanIndexForward          *bool             `json:"ScanIndexForward,omitempty"`
	}
)

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
	return json.Marshal(getItemRequest{
		TableName: *in.TableName, Key: in.Key, ConsistentRead: in.ConsistentRead,
		ProjectionExpression: in.ProjectionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
	})
}

func encodeBatchGetItem(v any) ([]byte, error) {
	in := v.(*dynamodb.BatchGetItemInput)
	if in.ReturnConsumedCapacity != "" {
		return nil, errUnsupported("BatchGetItem", "ReturnConsumedCapacity")
	}
	req := batchGetItemRequest{RequestItems: make(map[string]keysAndAttributes, len(in.RequestItems))}
	for table, ka := range in.RequestItems {
		if ka.AttributesToGet != nil {
			return nil, errUnsupported("BatchGetItem", "AttributesToGet")
		}
		keys := make([]item, len(ka.Keys))
		for i, k := range ka.Keys {
			keys[i] = k
		}
		req.RequestItems[table] = keysAndAttributes{
			Keys: keys, ConsistentRead: ka.ConsistentRead,
			ProjectionExpression: ka.ProjectionExpression, ExpressionAttributeNames: ka.ExpressionAttributeNames,
		}
	}
	return json.Marshal(req)
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
	return json.Marshal(queryRequest{
		TableName: *in.TableName, IndexName: in.IndexName, ConsistentRead: in.ConsistentRead,
		KeyConditionExpression: in.KeyConditionExpression, FilterExpression: in.FilterExpression,
		ProjectionExpression: in.ProjectionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues: in.ExpressionAttributeValues, ExclusiveStartKey: in.ExclusiveStartKey,
		Limit: in.Limit, ScanIndexForward: in.ScanIndexForward,
	})
}
