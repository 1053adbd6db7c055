package ddbdiff

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// outcome is one engine's answer to one request, normalised: either a result
// or an error code with its details. Two engines agree when their outcomes
// marshal to the same JSON; the message is printed, never compared.
type outcome struct {
	Result  any    `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	Details any    `json:"details,omitempty"` // the item of a failed condition, a cancellation's reasons
	message string
}

func (o outcome) json() string {
	b, err := json.Marshal(o)
	if err != nil {
		panic(fmt.Sprintf("marshal outcome: %v", err)) // plain data always marshals
	}
	return string(b)
}

// failure turns an SDK error into an outcome: its code, and for a failed
// condition or a cancelled transaction what DynamoDB returns with it.
func failure(err error) outcome {
	o := outcome{Error: fmt.Sprintf("client %T", err), message: err.Error()}
	if apiErr, ok := errors.AsType[smithy.APIError](err); ok {
		o.Error, o.message = apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	if c, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		o.Details = plain(c.Item)
	}
	if c, ok := errors.AsType[*types.TransactionCanceledException](err); ok {
		reasons := []any{}
		for _, r := range c.CancellationReasons {
			reasons = append(reasons, map[string]any{"Code": aws.ToString(r.Code), "Item": plain(r.Item)})
		}
		o.Details = reasons
	}
	return o
}

// ignoredFields are left out of every comparison: the SDK's metadata, and the
// capacity and item-collection statistics the generator never asks for (DynamoDB
// Local sends some of them anyway).
var ignoredFields = map[string]bool{"ResultMetadata": true, "ConsumedCapacity": true, "ItemCollectionMetrics": true}

// plain turns an SDK input or output into data that marshals to JSON the way
// DynamoDB writes it: attribute values as {"S": "x"}, binaries in base64, sets
// sorted. Struct fields that are nil or empty, unexported fields and
// the ignored fields are left out.
func plain(v any) any { return plainValue(reflect.ValueOf(v)) }

func plainValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if av, ok := v.Interface().(types.AttributeValue); ok {
			return attr(av)
		}
		return plainValue(v.Elem())
	}
	switch v.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || ignoredFields[f.Name] || f.Type.Kind() == reflect.String && v.Field(i).String() == "" {
				continue // unset enums are empty strings
			}
			if x := plainValue(v.Field(i)); !isEmpty(x) {
				m[f.Name] = x
			}
		}
		return m
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = plainValue(it.Value())
		}
		return m
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		l := make([]any, v.Len())
		for i := range l {
			l[i] = plainValue(v.Index(i))
		}
		return l
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	panic(fmt.Sprintf("plain: unexpected %s", v.Type()))
}

func isEmpty(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// attr writes one attribute value; empty lists and maps stay empty, not absent.
func attr(av types.AttributeValue) any {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": a.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": a.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(a.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": a.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": a.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(a.Value))
		for i, x := range a.Value {
			l[i] = attr(x)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, x := range a.Value {
			m[k] = attr(x)
		}
		return map[string]any{"M": m}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": sorted(a.Value)}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": sorted(a.Value)}
	case *types.AttributeValueMemberBS:
		enc := make([]string, len(a.Value))
		for i, b := range a.Value {
			enc[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": sorted(enc)}
	}
	return map[string]any{"invalid attribute value": fmt.Sprintf("%T", av)} // a nil one, say
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// sortItems orders items by their JSON: for results whose order is not
// DynamoDB's promise (BatchGetItem, the items of a whole Scan).
func sortItems(items []any) {
	slices.SortFunc(items, func(a, b any) int {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return slices.Compare(x, y)
	})
}

// indent writes v as indented JSON for a failure report.
func indent(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}
