package ddbjson

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// itemOpts compares items, ignoring the SDK member types' unexported fields.
var itemOpts = cmp.Options{cmpopts.IgnoreUnexported(
	types.AttributeValueMemberS{}, types.AttributeValueMemberN{},
	types.AttributeValueMemberB{}, types.AttributeValueMemberBOOL{},
	types.AttributeValueMemberNULL{}, types.AttributeValueMemberM{},
	types.AttributeValueMemberL{}, types.AttributeValueMemberSS{},
	types.AttributeValueMemberNS{}, types.AttributeValueMemberBS{},
)}

// checkItem fails the test if got differs from want.
func checkItem(t *testing.T, got, want map[string]types.AttributeValue) {
	t.Helper()
	if diff := cmp.Diff(want, got, itemOpts); diff != "" {
		t.Errorf("got a different item (-want +got):\n%s", diff)
	}
}

// checkErr fails the test unless err is non-nil and contains want.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("got error %q, want it to contain %q", err, want)
	}
}

// nested returns an item whose deepest attribute value is at level levels,
// nesting through M values, or through L values if list is set.
func nested(levels int, list bool) string {
	v := `{"S":"x"}`
	for i := 1; i < levels; i++ {
		if list {
			v = `{"L":[` + v + `]}`
		} else {
			v = `{"M":{"a":` + v + `}}`
		}
	}
	return `{"a":` + v + `}`
}

// nestedItem returns an item whose deepest attribute value is at level levels.
func nestedItem(levels int) map[string]types.AttributeValue {
	var v types.AttributeValue = &types.AttributeValueMemberS{Value: "x"}
	for i := 1; i < levels; i++ {
		v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": v}}
	}
	return map[string]types.AttributeValue{"a": v}
}

// sampleItem returns an item that uses every attribute value type.
func sampleItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK":      &types.AttributeValueMemberS{Value: "USER#1"},
		"SK":      &types.AttributeValueMemberS{Value: "quote \" backslash \\ tab \t nl \n cr \r ctl \x01 é 日本 <&>"},
		"empty":   &types.AttributeValueMemberS{Value: ""},
		"version": &types.AttributeValueMemberN{Value: "3"},
		"neg":     &types.AttributeValueMemberN{Value: "-1.5E+10"},
		"zero":    &types.AttributeValueMemberN{Value: "0"},
		"big":     &types.AttributeValueMemberN{Value: "123456789012345678901234567890"},
		"blob":    &types.AttributeValueMemberB{Value: []byte("hello")},
		"noblob":  &types.AttributeValueMemberB{Value: []byte{}},
		"binary":  &types.AttributeValueMemberB{Value: []byte{0, 0xff, 0x80, '\n'}},
		"yes":     &types.AttributeValueMemberBOOL{Value: true},
		"no":      &types.AttributeValueMemberBOOL{Value: false},
		"none":    &types.AttributeValueMemberNULL{Value: true},
		"tags":    &types.AttributeValueMemberSS{Value: []string{"b", "a", ""}},
		"nums":    &types.AttributeValueMemberNS{Value: []string{"1", "-2.5", "1e3"}},
		"blobs":   &types.AttributeValueMemberBS{Value: [][]byte{[]byte("x"), {}, {0}}},
		"emptyM":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"emptyL":  &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"x": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberS{Value: "y"},
				&types.AttributeValueMemberN{Value: "1.5"},
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
				&types.AttributeValueMemberL{Value: []types.AttributeValue{
					&types.AttributeValueMemberNULL{Value: true},
					&types.AttributeValueMemberSS{Value: []string{"s"}},
				}},
			}},
			"deep": nestedItem(30)["a"],
		}},
	}
}
