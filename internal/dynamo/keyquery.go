package dynamo

import (
	"maps"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyQuery is the shape of one Query of the table or of an index, and input
// is the one place that writes it out as a QueryInput: every Query the store
// sends is built here. Its expressions are written out, with fixed names
// (#pk, #sk, :pk, :sk, :lo, :hi), rather than by the SDK's expression
// builder, which on a view's path cost more than sending the Query it built.
//
// The zero values are DynamoDB's defaults, and input leaves them out of the
// request: eventually consistent, ascending, no limit, from the start, every
// attribute of every item.
type keyQuery struct {
	index     string // "" for the table itself
	pkAttr    string // the partition key attribute of the table or index
	partition string // the partition read
	sk        sortKey
	// consistent asks for a strongly consistent read, which the table and
	// its LSIs can give and GSIs cannot.
	consistent bool
	descending bool
	limit      int32 // 0 for none
	start      item  // ExclusiveStartKey: the read begins after this key
	filter     filter
	// projection names the attributes to read, all of them when empty.
	projection []string
}

// sortKey is the sort key part of a Query's key condition; the zero sortKey
// reads the whole partition.
type sortKey struct {
	attr   string
	op     string // "BETWEEN", "=", "<" or ">"
	lo, hi string // hi only for BETWEEN
}

// skBetween reads the sort keys in [lo, hi].
func skBetween(attr, lo, hi string) sortKey {
	return sortKey{attr: attr, op: "BETWEEN", lo: lo, hi: hi}
}

// skPrefix reads the sort keys that start with prefix, as a BETWEEN rather
// than begins_with: the same keys on DynamoDB, but the embedded engine keeps
// an index entry without its sort key when an item loses it (a task made an
// event), and fails begins_with on it.
func skPrefix(attr, prefix string) sortKey {
	lo, hi := prefixRange(prefix)
	return skBetween(attr, lo, hi)
}

// skEqual reads the one sort key v.
func skEqual(attr, v string) sortKey { return sortKey{attr: attr, op: "=", lo: v} }

// skBelow reads the sort keys before v.
func skBelow(attr, v string) sortKey { return sortKey{attr: attr, op: "<", lo: v} }

// skAbove reads the sort keys after v.
func skAbove(attr, v string) sortKey { return sortKey{attr: attr, op: ">", lo: v} }

// filter is a Query's FilterExpression with its names and values, written
// out like the key condition. The zero filter keeps everything.
type filter struct {
	expr   string
	names  map[string]string
	values item
}

// keyBetween is the key condition of a Query of one partition's sort keys
// between two bounds, with the names #pk, #sk and the values :pk, :lo, :hi.
const keyBetween = "#pk = :pk AND #sk BETWEEN :lo AND :hi"

// input writes q out as a Query of table. Its filter's placeholders must
// differ from the key condition's (#pk, #sk, :pk, :sk, :lo, :hi) and the
// projection's (#p0, #p1, ...).
func (q keyQuery) input(table string) *dynamodb.QueryInput {
	names := make(map[string]string, 2+len(q.filter.names)+len(q.projection))
	values := make(item, 3+len(q.filter.values))
	names["#pk"], values[":pk"] = q.pkAttr, str(q.partition)
	cond := "#pk = :pk"
	switch q.sk.op {
	case "":
	case "BETWEEN":
		cond = keyBetween
		names["#sk"], values[":lo"], values[":hi"] = q.sk.attr, str(q.sk.lo), str(q.sk.hi)
	default:
		cond = "#pk = :pk AND #sk " + q.sk.op + " :sk"
		names["#sk"], values[":sk"] = q.sk.attr, str(q.sk.lo)
	}
	in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values, ExclusiveStartKey: q.start}
	if q.index != "" {
		in.IndexName = aws.String(q.index)
	}
	if q.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if q.descending {
		in.ScanIndexForward = aws.Bool(false)
	}
	if q.limit > 0 {
		in.Limit = aws.Int32(q.limit)
	}
	if q.filter.expr != "" {
		in.FilterExpression = aws.String(q.filter.expr)
		maps.Copy(names, q.filter.names)
		maps.Copy(values, q.filter.values)
	}
	if len(q.projection) > 0 {
		in.ProjectionExpression = aws.String(q.project(names))
	}
	return in
}

// project writes the projection expression, naming each attribute by the
// key condition's placeholder when it has one and #p0, #p1, ... otherwise.
func (q keyQuery) project(names map[string]string) string {
	parts := make([]string, len(q.projection))
	for i, a := range q.projection {
		switch {
		case a == q.pkAttr:
			parts[i] = "#pk"
		case q.sk.op != "" && a == q.sk.attr:
			parts[i] = "#sk"
		default:
			parts[i] = "#p" + strconv.Itoa(i)
			names[parts[i]] = a
		}
	}
	return strings.Join(parts, ", ")
}

// str is a string attribute value.
func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
