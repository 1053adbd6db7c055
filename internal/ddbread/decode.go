package ddbread

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

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
			it, err := decodeItem(v, nil)
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
			if out.LastEvaluatedKey, err = decodeItem(v, nil); err != nil {
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
	r := repeatsPool.Get().(*repeats)
	defer r.release()
	for i, v := range arr {
		if items[i], err = decodeItem(v, r); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// repeats holds, while a list of items is decoded, each attribute's last
// string or number value, by its name's index (attrName): an item whose value
// is the one before's shares its string instead of allocating its own. A
// calendar's entries repeat about half of theirs (partition key, calendar,
// entity type, kind, zone, author), which were a third of a cold view's
// allocations. Sharing costs nothing in what the view cache counts: an
// entry's strings are counted as its own whoever else holds them.
type repeats struct{ last []string }

var repeatsPool = sync.Pool{New: func() any { return new(repeats) }}

// value returns text as a string: the last value of the attribute whose
// name has index i if it is the same, else a new one, kept as the last. A
// nil r, or a name without an index, shares nothing.
func (r *repeats) value(i int, text []byte) string {
	if r == nil || i < 0 {
		return string(text)
	}
	if i >= len(r.last) {
		r.last = append(r.last, make([]string, i+1-len(r.last))...)
	}
	if s := r.last[i]; s == string(text) {
		return s
	}
	s := string(text)
	r.last[i] = s
	return s
}

// release forgets the values (the pool must not keep them alive) and puts r
// back in the pool.
func (r *repeats) release() {
	clear(r.last)
	repeatsPool.Put(r)
}

// decodeItem decodes an item. A view decodes hundreds of items of a dozen or
// two attributes each, and one allocation per attribute name, per value and
// per string was most of the decoder's cost: the names are interned (see
// attrName), and the item's string and number members share one slab each,
// so an item costs about one allocation per string. (The strings are not cut
// from one string per item: what the view cache keeps of an entry would then
// hold on to the whole item's text, keys included, and its size in bytes
// could not be counted from the entry.) Values of other types (sets, lists,
// maps, binaries) are decoded one by one, as decodeValue does.
func decodeItem(v *fastjson.Value, r *repeats) (map[string]types.AttributeValue, error) {
	o, err := v.Object()
	if err != nil {
		return nil, err
	}
	// One pass over the attributes finds the scalars and sizes the slabs.
	var nS, nN int
	fp := fieldPool.Get().(*[]field)
	defer fieldPool.Put(fp)
	fields := (*fp)[:0]
	defer func() { clear(fields); *fp = fields[:0] }()
	o.Visit(func(k []byte, v *fastjson.Value) {
		f := field{name: k, v: v}
		f.typ, f.text, _ = scalar(v)
		switch f.typ {
		case 'S':
			nS++
		case 'N':
			nN++
		}
		fields = append(fields, f)
	})
	ss := make([]types.AttributeValueMemberS, 0, nS)
	ns := make([]types.AttributeValueMemberN, 0, nN)
	it := make(map[string]types.AttributeValue, len(fields))
	for _, f := range fields {
		name, index := attrName(f.name)
		var value string
		if f.typ != 0 {
			value = r.value(index, f.text)
		}
		switch f.typ {
		case 'S':
			ss = append(ss, types.AttributeValueMemberS{Value: value})
			it[name] = &ss[len(ss)-1]
		case 'N':
			ns = append(ns, types.AttributeValueMemberN{Value: value})
			it[name] = &ns[len(ns)-1]
		default:
			av, err := decodeValue(f.v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			it[name] = av
		}
	}
	return it, nil
}

// fieldPool keeps decodeItem's scratch lists of fields between items.
var fieldPool = sync.Pool{New: func() any { return new([]field) }}

// field is one attribute of an item being decoded: typ is 'S' or 'N' for a
// string or number, with its text; 0 for any other value, decoded from v.
type field struct {
	name []byte
	v    *fastjson.Value
	typ  byte
	text []byte
}

// scalar reports whether v is a well-formed string ('S') or number ('N')
// attribute value, and its text. Anything else, malformed ones included, is
// left to decodeValue, which says what is wrong with it.
func scalar(v *fastjson.Value) (typ byte, s []byte, ok bool) {
	o, err := v.Object()
	if err != nil || o.Len() != 1 {
		return 0, nil, false
	}
	o.Visit(func(k []byte, v *fastjson.Value) {
		if len(k) != 1 || (k[0] != 'S' && k[0] != 'N') {
			return
		}
		if s, err = v.StringBytes(); err == nil {
			typ, ok = k[0], true
		}
	})
	return typ, s, ok
}

// maxNames bounds the attribute names attrName keeps: calgraph's items use a
// few dozen; names beyond the bound are allocated per use, as before.
const maxNames = 1024

// names holds the attribute names met so far, each with its index (the
// order it was met in), copied on write (rarely: the set stops growing after
// the first reads), so lookups take no lock.
var (
	names   atomic.Pointer[map[string]attrKey]
	namesMu sync.Mutex
)

// attrKey is an attribute name as every item shares it, and its index.
type attrKey struct {
	name  string
	index int
}

// attrName returns k as a string, the same string for every item, and its
// index: -1 for names beyond maxNames, which are not kept.
func attrName(k []byte) (string, int) {
	if m := names.Load(); m != nil {
		if a, ok := (*m)[string(k)]; ok {
			return a.name, a.index
		}
	}
	namesMu.Lock()
	defer namesMu.Unlock()
	old := names.Load()
	n := 0
	if old != nil {
		if a, ok := (*old)[string(k)]; ok {
			return a.name, a.index
		}
		if n = len(*old); n >= maxNames {
			return string(k), -1
		}
	}
	m := make(map[string]attrKey, 1+n)
	if old != nil {
		for name, a := range *old {
			m[name] = a
		}
	}
	a := attrKey{string(k), n}
	m[a.name] = a
	names.Store(&m)
	return a.name, a.index
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
		m, err := decodeItem(v, nil)
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
