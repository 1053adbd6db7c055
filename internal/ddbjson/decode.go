package ddbjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UnmarshalItem parses one DynamoDB JSON object, such as
// {"PK":{"S":"USER#1"},"n":{"N":"3"}}, into an item. It rejects anything DynamoDB
// would reject (see the package documentation) as well as duplicate attribute
// names, invalid UTF-8 and anything but whitespace after the object. An empty
// object gives an empty, non-nil item.
func UnmarshalItem(data []byte) (map[string]types.AttributeValue, error) {
	d, err := newDecoder(data)
	if err != nil {
		return nil, err
	}
	item, err := d.attributes(1)
	if err != nil {
		return nil, err
	}
	return item, nil
}

// decoder walks the tokens of a JSON text already known to be valid.
type decoder struct {
	dec *json.Decoder
}

// newDecoder checks that data is one valid JSON value in UTF-8 and returns a
// decoder for its tokens.
func newDecoder(data []byte) (*decoder, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	if !json.Valid(data) {
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		if err == nil {
			err = errors.New("syntax error")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &decoder{dec: dec}, nil
}

// token returns the next token.
func (d *decoder) token() (json.Token, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return tok, nil
}

// open consumes the opening delimiter want ('{' or '[').
func (d *decoder) open(want json.Delim) error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("want %s, got %s", kind(want), kind(tok))
	}
	return nil
}

// close consumes the closing delimiter that must follow the last member.
func (d *decoder) close() error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('}') && tok != json.Delim(']') {
		return fmt.Errorf("want the end of an object or array, got %s", kind(tok))
	}
	return nil
}

// str returns the next token, which must be a string.
func (d *decoder) str() (string, error) {
	tok, err := d.token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %s", kind(tok))
	}
	return s, nil
}

// boolean returns the next token, which must be true or false.
func (d *decoder) boolean() (bool, error) {
	tok, err := d.token()
	if err != nil {
		return false, err
	}
	v, ok := tok.(bool)
	if !ok {
		return false, fmt.Errorf("want a boolean, got %s", kind(tok))
	}
	return v, nil
}

// stringArray returns the next value, which must be an array of strings.
func (d *decoder) stringArray() ([]string, error) {
	if err := d.open('['); err != nil {
		return nil, err
	}
	var ss []string
	for d.dec.More() {
		s, err := d.str()
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", len(ss), err)
		}
		ss = append(ss, s)
	}
	return ss, d.close()
}

// attributes parses an object of attribute names to values at level: an item
// (level 1) or the value of an M.
func (d *decoder) attributes(level int) (map[string]types.AttributeValue, error) {
	if err := d.open('{'); err != nil {
		return nil, err
	}
	item := make(map[string]types.AttributeValue)
	for d.dec.More() {
		name, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := checkName(name); err != nil {
			return nil, err
		}
		if _, dup := item[name]; dup {
			return nil, fmt.Errorf("duplicate attribute name %s", quote(name))
		}
		av, err := d.value(level)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", quote(name), err)
		}
		item[name] = av
	}
	return item, d.close()
}

// list parses the array of an L whose elements are at level.
func (d *decoder) list(level int) ([]types.AttributeValue, error) {
	if err := d.open('['); err != nil {
		return nil, err
	}
	l := []types.AttributeValue{}
	for d.dec.More() {
		av, err := d.value(level)
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", len(l), err)
		}
		l = append(l, av)
	}
	return l, d.close()
}

// knownTypes are the type keys of DynamoDB JSON.
var knownTypes = map[string]bool{
	"S": true, "N": true, "B": true, "BOOL": true, "NULL": true,
	"M": true, "L": true, "SS": true, "NS": true, "BS": true,
}

// value parses one attribute value object at level: {"<type>": <payload>}.
func (d *decoder) value(level int) (types.AttributeValue, error) {
	if level > maxDepth {
		return nil, errTooDeep
	}
	if err := d.open('{'); err != nil {
		return nil, fmt.Errorf("attribute value: %w", err)
	}
	if !d.dec.More() {
		return nil, errors.New("attribute value has no type key")
	}
	typ, err := d.str()
	if err != nil {
		return nil, err
	}
	if !knownTypes[typ] {
		return nil, fmt.Errorf("unknown type key %s", quote(typ))
	}
	av, err := d.payload(typ, level)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	if d.dec.More() {
		other, err := d.str()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("more than one type key (%s and %s)", quote(typ), quote(other))
	}
	return av, d.close()
}

// payload parses the JSON value of type key typ.
func (d *decoder) payload(typ string, level int) (types.AttributeValue, error) {
	switch typ {
	case "S":
		s, err := d.str()
		return &types.AttributeValueMemberS{Value: s}, err
	case "N":
		return d.number()
	case "B":
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		b, err := decodeBinary(s)
		return &types.AttributeValueMemberB{Value: b}, err
	case "BOOL":
		v, err := d.boolean()
		return &types.AttributeValueMemberBOOL{Value: v}, err
	case "NULL":
		v, err := d.boolean()
		if err == nil && !v {
			err = errors.New("want true, got false")
		}
		return &types.AttributeValueMemberNULL{Value: true}, err
	case "M":
		m, err := d.attributes(level + 1)
		return &types.AttributeValueMemberM{Value: m}, err
	case "L":
		l, err := d.list(level + 1)
		return &types.AttributeValueMemberL{Value: l}, err
	default:
		return d.set(typ)
	}
}

// number parses the string of an N.
func (d *decoder) number() (types.AttributeValue, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	if _, err := canonicalNumber(s); err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberN{Value: s}, nil
}

// set parses the array of an SS, NS or BS.
func (d *decoder) set(typ string) (types.AttributeValue, error) {
	ss, err := d.stringArray()
	if err != nil {
		return nil, err
	}
	switch typ {
	case "SS":
		return &types.AttributeValueMemberSS{Value: ss}, checkStringSet(ss)
	case "NS":
		return &types.AttributeValueMemberNS{Value: ss}, checkNumberSet(ss)
	}
	bs := make([][]byte, len(ss))
	for i, s := range ss {
		if bs[i], err = decodeBinary(s); err != nil {
			return nil, fmt.Errorf("index %d: %w", i, err)
		}
	}
	return &types.AttributeValueMemberBS{Value: bs}, checkBinarySet(bs)
}

// kind describes a token for an error message.
func kind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return fmt.Sprintf("%q", t.String())
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}
