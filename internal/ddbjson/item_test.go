package ddbjson

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestRoundTrip(t *testing.T) {
	want := sampleItem()
	data, err := MarshalItem(want)
	if err != nil {
		t.Fatalf("MarshalItem: got error %v, want none", err)
	}
	got, err := UnmarshalItem(data)
	if err != nil {
		t.Fatalf("UnmarshalItem(%s): got error %v, want none", data, err)
	}
	checkItem(t, got, want)
	again, err := MarshalItem(got)
	if err != nil {
		t.Fatalf("MarshalItem again: got error %v, want none", err)
	}
	if string(again) != string(data) {
		t.Errorf("got second marshal %s, want %s", again, data)
	}
}

func TestMarshalItemOutput(t *testing.T) {
	item := map[string]types.AttributeValue{
		"z":  &types.AttributeValueMemberNULL{Value: true},
		"PK": &types.AttributeValueMemberS{Value: "USER#1"},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"b": &types.AttributeValueMemberBOOL{Value: true},
			"a": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberB{Value: []byte("hello")},
				&types.AttributeValueMemberNS{Value: []string{"2", "1"}},
			}},
		}},
		"n": &types.AttributeValueMemberM{},
	}
	want := `{"PK":{"S":"USER#1"},"m":{"M":{"a":{"L":[{"B":"aGVsbG8="},{"NS":["2","1"]}]},` +
		`"b":{"BOOL":true}}},"n":{"M":{}},"z":{"NULL":true}}`
	for range 5 {
		got, err := MarshalItem(item)
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		if string(got) != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

func TestUnmarshalItemValid(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]types.AttributeValue
	}{
		{"empty item", `{}`, map[string]types.AttributeValue{}},
		{"whitespace", " \n{ \"a\" : { \"S\" : \"x\" } }\t\r\n", map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberS{Value: "x"}}},
		{"escapes", `{"\u00e9":{"S":"\ud83d\ude00\n\/"}}`, map[string]types.AttributeValue{
			"é": &types.AttributeValueMemberS{Value: "😀\n/"}}},
		{"BOOL false", `{"a":{"BOOL":false}}`, map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberBOOL{Value: false}}},
		{"empty B", `{"a":{"B":""}}`, map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberB{Value: []byte{}}}},
		{"example", `{"PK":{"S":"USER#1"},"version":{"N":"3"},"tags":{"SS":["a","b"]},"blob":{"B":"aGVsbG8="},` +
			`"flag":{"BOOL":true},"none":{"NULL":true},"m":{"M":{"x":{"L":[{"S":"y"},{"N":"1.5"}]}}}}`,
			map[string]types.AttributeValue{
				"PK":      &types.AttributeValueMemberS{Value: "USER#1"},
				"version": &types.AttributeValueMemberN{Value: "3"},
				"tags":    &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
				"blob":    &types.AttributeValueMemberB{Value: []byte("hello")},
				"flag":    &types.AttributeValueMemberBOOL{Value: true},
				"none":    &types.AttributeValueMemberNULL{Value: true},
				"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
					"x": &types.AttributeValueMemberL{Value: []types.AttributeValue{
						&types.AttributeValueMemberS{Value: "y"},
						&types.AttributeValueMemberN{Value: "1.5"},
					}},
				}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UnmarshalItem([]byte(tt.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			checkItem(t, got, tt.want)
		})
	}
}

func TestDepthLimit(t *testing.T) {
	for _, list := range []bool{false, true} {
		if _, err := UnmarshalItem([]byte(nested(32, list))); err != nil {
			t.Errorf("depth 32 (list %v): got error %v, want none", list, err)
		}
		_, err := UnmarshalItem([]byte(nested(33, list)))
		checkErr(t, err, "nested deeper than 32 levels")
	}
	if _, err := MarshalItem(nestedItem(32)); err != nil {
		t.Errorf("MarshalItem depth 32: got error %v, want none", err)
	}
	_, err := MarshalItem(nestedItem(33))
	checkErr(t, err, "nested deeper than 32 levels")
	_, err = UnmarshalItem([]byte(strings.Repeat(`{"a":{"M":`, 100000)))
	checkErr(t, err, "invalid JSON")
}

func TestUnmarshalItemInvalid(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty input", ``, "invalid JSON"},
		{"not an object", `[]`, "want an object, got an array"},
		{"string", `"x"`, "want an object, got a string"},
		{"null", `null`, "want an object, got null"},
		{"trailing garbage", `{"a":{"S":"x"}} x`, "invalid JSON"},
		{"second object", `{"a":{"S":"x"}}{}`, "invalid JSON"},
		{"syntax error", `{"a":{"S":"x"}`, "invalid JSON"},
		{"invalid UTF-8", "{\"a\":{\"S\":\"\xff\"}}", "invalid UTF-8"},
		{"empty name", `{"":{"S":"x"}}`, "empty attribute name"},
		{"empty name in M", `{"a":{"M":{"":{"S":"x"}}}}`, `attribute "a": M: empty attribute name`},
		{"duplicate name", `{"a":{"S":"x"},"a":{"S":"y"}}`, `duplicate attribute name "a"`},
		{"value not an object", `{"a":"x"}`, `attribute "a": attribute value: want an object, got a string`},
		{"value null", `{"a":null}`, "want an object, got null"},
		{"unknown type", `{"a":{"X":"1"}}`, `unknown type key "X"`},
		{"lower-case type", `{"a":{"s":"1"}}`, `unknown type key "s"`},
		{"two type keys", `{"a":{"S":"x","N":"1"}}`, `more than one type key ("S" and "N")`},
		{"repeated type key", `{"a":{"S":"x","S":"y"}}`, "more than one type key"},
		{"no type key", `{"a":{}}`, "no type key"},
		{"S number", `{"a":{"S":1}}`, "S: want a string, got a number"},
		{"S null", `{"a":{"S":null}}`, "S: want a string, got null"},
		{"N number", `{"a":{"N":1}}`, "N: want a string, got a number"},
		{"N empty", `{"a":{"N":""}}`, "invalid number"},
		{"N bad", `{"a":{"N":"abc"}}`, `invalid number "abc"`},
		{"B bad base64", `{"a":{"B":"!!!!"}}`, "B: invalid base64"},
		{"B unpadded", `{"a":{"B":"aGVsbG8"}}`, "invalid base64"},
		{"B line break", `{"a":{"B":"aGVs\nbG8="}}`, "invalid base64"},
		{"B number", `{"a":{"B":1}}`, "want a string"},
		{"BOOL string", `{"a":{"BOOL":"true"}}`, "BOOL: want a boolean, got a string"},
		{"NULL false", `{"a":{"NULL":false}}`, "NULL: want true, got false"},
		{"NULL string", `{"a":{"NULL":"true"}}`, "NULL: want a boolean"},
		{"NULL null", `{"a":{"NULL":null}}`, "NULL: want a boolean, got null"},
		{"M array", `{"a":{"M":[]}}`, "M: want an object, got an array"},
		{"L object", `{"a":{"L":{}}}`, "L: want an array, got an object"},
		{"L bad element", `{"a":{"L":[{"S":"x"},"y"]}}`, "L: index 1: attribute value"},
		{"L element bad number", `{"a":{"L":[{"N":"1x"}]}}`, "L: index 0: N: invalid number"},
		{"empty SS", `{"a":{"SS":[]}}`, "SS: empty set"},
		{"duplicate SS member", `{"a":{"SS":["x","y","x"]}}`, `SS: duplicate member "x"`},
		{"SS number member", `{"a":{"SS":["x",1]}}`, "SS: index 1: want a string, got a number"},
		{"SS not array", `{"a":{"SS":"x"}}`, "SS: want an array"},
		{"empty NS", `{"a":{"NS":[]}}`, "NS: empty set"},
		{"NS bad member", `{"a":{"NS":["1","x"]}}`, `NS: invalid number "x"`},
		{"duplicate NS member", `{"a":{"NS":["1","2","1.0"]}}`, `NS: duplicate member "1.0" (equal to "1")`},
		{"duplicate NS zero", `{"a":{"NS":["0","-0.0"]}}`, "duplicate member"},
		{"NS numbers", `{"a":{"NS":[1]}}`, "want a string, got a number"},
		{"empty BS", `{"a":{"BS":[]}}`, "BS: empty set"},
		{"duplicate BS member", `{"a":{"BS":["AA==","AQ==","AA=="]}}`, "BS: duplicate member at index 2"},
		{"BS bad base64", `{"a":{"BS":["AA==","A"]}}`, "BS: index 1: invalid base64"},
		{"depth 33", nested(33, false), "nested deeper than 32 levels"},
		{"depth 33 in L", nested(33, true), "nested deeper than 32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item, err := UnmarshalItem([]byte(tt.in))
			checkErr(t, err, tt.want)
			if item != nil {
				t.Errorf("got item %v, want nil", item)
			}
		})
	}
}

func TestMarshalItemInvalid(t *testing.T) {
	type item = map[string]types.AttributeValue
	tests := []struct {
		name string
		in   item
		want string
	}{
		{"nil value", item{"a": nil}, `attribute "a": nil attribute value`},
		{"nil S", item{"a": (*types.AttributeValueMemberS)(nil)}, "nil *types.AttributeValueMemberS"},
		{"nil M", item{"a": (*types.AttributeValueMemberM)(nil)}, "nil *types.AttributeValueMemberM"},
		{"nil BS", item{"a": (*types.AttributeValueMemberBS)(nil)}, "nil *types.AttributeValueMemberBS"},
		{"unknown member", item{"a": &types.UnknownUnionMember{Tag: "X"}}, "unsupported attribute value type"},
		{"empty name", item{"": &types.AttributeValueMemberS{}}, "empty attribute name"},
		{"invalid UTF-8 name", item{"\xff": &types.AttributeValueMemberS{}}, "not valid UTF-8"},
		{"invalid UTF-8 S", item{"a": &types.AttributeValueMemberS{Value: "\xff"}}, "S: \"\\xff\" is not valid UTF-8"},
		{"bad N", item{"a": &types.AttributeValueMemberN{Value: "1,5"}}, `N: invalid number "1,5"`},
		{"empty N", item{"a": &types.AttributeValueMemberN{}}, "N: invalid number"},
		{"NULL false", item{"a": &types.AttributeValueMemberNULL{}}, "NULL: value is false"},
		{"empty SS", item{"a": &types.AttributeValueMemberSS{}}, "SS: empty set"},
		{"duplicate SS", item{"a": &types.AttributeValueMemberSS{Value: []string{"x", "x"}}}, "SS: duplicate member"},
		{"invalid UTF-8 SS", item{"a": &types.AttributeValueMemberSS{Value: []string{"\xff"}}}, "not valid UTF-8"},
		{"duplicate NS", item{"a": &types.AttributeValueMemberNS{Value: []string{"10", "1e1"}}}, "NS: duplicate member"},
		{"bad NS", item{"a": &types.AttributeValueMemberNS{Value: []string{"1e"}}}, "NS: invalid number"},
		{"empty BS", item{"a": &types.AttributeValueMemberBS{Value: [][]byte{}}}, "BS: empty set"},
		{"duplicate BS", item{"a": &types.AttributeValueMemberBS{Value: [][]byte{nil, {}}}}, "BS: duplicate member"},
		{"nil in L", item{"a": &types.AttributeValueMemberL{Value: []types.AttributeValue{nil}}}, "L: index 0: nil"},
		{"bad in M", item{"a": &types.AttributeValueMemberM{Value: item{"b": &types.AttributeValueMemberN{}}}},
			`attribute "a": M: attribute "b": N: invalid number`},
		{"depth 33", nestedItem(33), "nested deeper than 32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MarshalItem(tt.in)
			checkErr(t, err, tt.want)
		})
	}
}

func TestMarshalItemCycle(t *testing.T) {
	m := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	m.Value["self"] = m
	_, err := MarshalItem(map[string]types.AttributeValue{"a": m})
	checkErr(t, err, "nested deeper than 32 levels")
}
