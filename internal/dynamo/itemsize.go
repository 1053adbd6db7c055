package dynamo

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemBytes is an item's size as DynamoDB counts it against its 400 KB
// limit, and in KB per write: attribute names and values (a number a byte
// per two significant digits and one; a map or list three bytes and its
// elements').
func itemBytes(it item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueBytes(v)
	}
	return n
}

func valueBytes(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberBytes(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n + 3
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberBytes(s)
		}
		return n + 3
	case *types.AttributeValueMemberM:
		return itemBytes(v.Value) + 3
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += valueBytes(e) + 1
		}
		return n
	}
	return 1 // BOOL, NULL
}

// numberBytes is a number's size: a byte per two significant digits, and
// one.
func numberBytes(s string) int {
	digits := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
	return (len(digits)+1)/2 + 1
}
