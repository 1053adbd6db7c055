package ddbread

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/valyala/fastjson"
)

// parsers are reused: a fastjson.Parser keeps its buffers between answers.
var parsers fastjson.ParserPool

// parse runs fn on the answer's top-level object.
func parse(data []byte, fn func(*fastjson.Object) (any, error)) (any, error) {
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(data)
	if err != nil {
		return nil, err
	}
	o, err := v.Object()
	if err != nil {
		return nil, err
	}
	return fn(o)
}

func decodeGetItem(data []byte) (any, error) {
	return parse(data, func(o *fastjson.Object) (any, error) {
		out := &dynamodb.GetItemOutput{}
		if v := o.Get("Item"); v != nil {
			it, err := decodeItem(v)
			if err != nil {
				return nil, fmt.Errorf("Item: %w", err)
			}
			out.Item = it
		}
		return out, nil
	})
}

func decodeBatchGetItem(data []byte) (any, error) {
	return parse(data, func(o *fastjson.Object) (any, error) {
		out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
		var err error
		if v := o.Get("Responses"); v != nil {
			err = eachField(v, func(table string, v *fastjson.Value) error {
				items, err := decodeItems(v)
				out.Responses[table] = items
				return err
			})
		}
		if v := o.Get("UnprocessedKeys"); v != nil && err == nil {
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{}
			err = eachField(v, func(table string, v *fastjson.Value) error {
				ka, err := decodeKeysAndAttributes(v)
				out.UnprocessedKeys[table] = ka
				return err
			})
		}
		return out, err
	})
}

func decodeKeysAndAttributes(v *fastjson.Value) (types.KeysAndAttributes, error) {
	var ka types.KeysAndAttributes
	keys, err := decodeItems(v.Get("Keys"))
	if err != nil {
		return ka, err
	}
	ka.Keys = keys
	if c := v.Get("ConsistentRead"); c != nil {
		b, err := c.Bool()
		if err != nil {
			return ka, err
		}
		ka.ConsistentRead = aws.Bool(b)
	}
	if p := v.GetStringBytes("ProjectionExpression"); p != nil {
		ka.ProjectionExpression = aws.String(string(p))
	}
	if names := v.Get("ExpressionAttributeNames"); names != nil {
		ka.ExpressionAttributeNames = map[string]string{}
		err = eachField(names, func(k string, v *fastjson.Value) error {
			s, err := v.StringBytes()
			ka.ExpressionAttributeNames[k] = string(s)
			return err
		})
	}
	return ka, err
}

func decodeQuery(data []byte) (any, error) {
	return parse(data, func(o *fastjson.Object) (any, error) {
		out := &dynamodb.QueryOutput{}
		var err error
		if v := o.Get("Items"); v != nil {
			if out.Items, err = decodeItems(v); err != nil {
				return nil, fmt.Errorf("Items: %w", err)
			}
		}
		if v := o.Get("LastEvaluatedKey"); v != nil {
			if out.LastEvaluatedKey, err = decodeItem(v); err != nil {
				return nil, fmt.Errorf("LastEvaluatedKey: %w", err)
			}
		}
		if v := o.Get("Count"); v != nil {
			n, err := v.Int()
			if err != nil {
				return nil, fmt.Errorf("Count: %w", err)
			}
			out.Count = int32(n)
		}
		if v := o.Get("ScannedCount"); v != nil {
			n, err := v.Int()
			if err != nil {
				return nil, fmt.Errorf("ScannedCount: %w", err)
			}
			out.ScannedCount = int32(n)
		}
		return out, nil
	})
}

// eachField calls fn on every field of an object, stopping at the first error.
func eachField(v *fastjson.Value, fn func(string, *fastjson.Value) error) error {
	o, err := v.Object()
	if err != nil {
		return err
	}
	o.Visit(func(k []byte, v *fastjson.Value) {
		if err == nil {
			err = fn(string(k), v)
		}
	})
	return err
}

func decodeItems(v *fastjson.Value) ([]map[string]types.AttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	arr, err := v.Array()
	if err != nil {
		return nil, err
	}
	items := make([]map[string]types.AttributeValue, len(arr))
	for i, v := range arr {
		if items[i], err = decodeItem(v); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func decodeItem(v *fastjson.Value) (map[string]types.AttributeValue, error) {
	o, err := v.Object()
	if err != nil {
		return nil, err
	}
	it := make(map[string]types.AttributeValue, o.Len())
	o.Visit(func(k []byte, v *fastjson.Value) {
		if err != nil {
			return
		}
		var av types.AttributeValue
		if av, err = decodeValue(v); err != nil {
			err = fmt.Errorf("%s: %w", k, err)
			return
		}
		it[string(k)] = av
	})
	return it, err
}

// decodeValue decodes one attribute value: an object with exactly one key
// naming its type.
func decodeValue(v *fastjson.Value) (types.AttributeValue, error) {
	o, err := v.Object()
	if err != nil {
		return nil, err
	}
	if o.Len() != 1 {
		return nil, fmt.Errorf("an attribute value has %d types, not one", o.Len())
	}
	var av types.AttributeValue
	o.Visit(func(k []byte, v *fastjson.Value) { av, err = decodeTyped(string(k), v) })
	return av, err
}

func decodeTyped(typ string, v *fastjson.Value) (types.AttributeValue, error) {
	switch typ {
	case "S":
		s, err := v.StringBytes()
		return &types.AttributeValueMemberS{Value: string(s)}, err
	case "N":
		s, err := v.StringBytes()
		return &types.AttributeValueMemberN{Value: string(s)}, err
	case "B":
		b, err := decodeBinary(v)
		return &types.AttributeValueMemberB{Value: b}, err
	case "BOOL":
		b, err := v.Bool()
		return &types.AttributeValueMemberBOOL{Value: b}, err
	case "NULL":
		b, err := v.Bool()
		return &types.AttributeValueMemberNULL{Value: b}, err
	case "SS", "NS":
		ss, err := stringArray(v)
		if typ == "SS" {
			return &types.AttributeValueMemberSS{Value: ss}, err
		}
		return &types.AttributeValueMemberNS{Value: ss}, err
	case "BS":
		arr, err := v.Array()
		if err != nil {
			return nil, err
		}
		bs := make([][]byte, len(arr))
		for i, v := range arr {
			if bs[i], err = decodeBinary(v); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberBS{Value: bs}, nil
	case "L":
		arr, err := v.Array()
		if err != nil {
			return nil, err
		}
		l := make([]types.AttributeValue, len(arr))
		for i, v := range arr {
			if l[i], err = decodeValue(v); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case "M":
		m, err := decodeItem(v)
		return &types.AttributeValueMemberM{Value: m}, err
	}
	return nil, fmt.Errorf("unknown attribute type %q", typ)
}

func stringArray(v *fastjson.Value) ([]string, error) {
	arr, err := v.Array()
	if err != nil {
		return nil, err
	}
	ss := make([]string, len(arr))
	for i, v := range arr {
		s, err := v.StringBytes()
		if err != nil {
			return nil, err
		}
		ss[i] = string(s)
	}
	return ss, nil
}

func decodeBinary(v *fastjson.Value) ([]byte, error) {
	s, err := v.StringBytes()
	if err != nil {
		return nil, err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, errors.New("a binary is not base64")
	}
	return b[:n], nil
}
