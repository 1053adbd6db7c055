package ddbdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// gen is the operation generator: the seed fixes every request it returns.
type gen struct {
	r               *rand.Rand
	v               values
	main, num, proj string // table names
	tokens          int
	lastTx          *dynamodb.TransactWriteItemsInput // the last one with a token, to replay
	bigRuns         int                               // partitions of big items used so far
}

func newGen(seed int64, main, num, proj string) *gen {
	r := rand.New(rand.NewPCG(uint64(seed), 0xdd8d1ff))
	return &gen{r: r, v: values{r}, main: main, num: num, proj: proj}
}

// next returns the next request: a *dynamodb.XxxInput, or a pagedQuery or
// pagedScan, which run.go sends page after page to the end.
func (g *gen) next() any {
	switch w := g.r.IntN(100); {
	case w < 17:
		return g.putItem()
	case w < 37:
		return g.updateItem()
	case w < 44:
		return g.deleteItem()
	case w < 50:
		return g.getItem()
	case w < 63:
		return g.query()
	case w < 67:
		return g.scan()
	case w < 72:
		return g.batchGet()
	case w < 77:
		return g.batchWrite()
	case w < 89:
		return g.transactWrite()
	case w < 92:
		return g.transactGet()
	default:
		return g.invalid()
	}
}

// table is one of the two tables, with what the generator needs to know of it.
type table struct {
	name      string
	key, item func() map[string]types.AttributeValue
	path      func() string
}

func (g *gen) table() table {
	switch x := g.r.Float64(); {
	case x < 0.2:
		return table{g.num, g.v.numKey, g.v.numItem, func() string { return pick(g.r, []string{"n", "bin", "m", "m.x", "m.y", "s", numSK}) }}
	case x < 0.32:
		return table{g.proj, g.v.mainKey, g.v.mainItem, g.path} // the main table's items, indexed otherwise
	}
	return table{g.main, g.v.mainKey, g.v.mainItem, g.path}
}

// condition returns a ConditionExpression with probability p, or nil.
func (g *gen) condition(e *expr, t table, p float64) *string {
	if !g.v.chance(p) {
		return nil
	}
	return strp(g.cond(e, 0, t.path))
}

func (g *gen) onFailure() types.ReturnValuesOnConditionCheckFailure {
	return pick(g.r, []types.ReturnValuesOnConditionCheckFailure{"", "", types.ReturnValuesOnConditionCheckFailureAllOld, types.ReturnValuesOnConditionCheckFailureNone})
}

func (g *gen) putItem() *dynamodb.PutItemInput {
	t, e := g.table(), newExpr()
	in := &dynamodb.PutItemInput{TableName: strp(t.name), Item: t.item(), ConditionExpression: g.condition(e, t, 0.5),
		ReturnValues:                        pick(g.r, []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueAllOld}),
		ReturnValuesOnConditionCheckFailure: g.onFailure()}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return in
}

func (g *gen) updateItem() *dynamodb.UpdateItemInput {
	t, e := g.table(), newExpr()
	in := &dynamodb.UpdateItemInput{TableName: strp(t.name), Key: t.key(), UpdateExpression: strp(g.update(e)),
		ConditionExpression: g.condition(e, t, 0.4), ReturnValues: pick(g.r, types.ReturnValue("").Values()),
		ReturnValuesOnConditionCheckFailure: g.onFailure()}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return in
}

func (g *gen) deleteItem() *dynamodb.DeleteItemInput {
	t, e := g.table(), newExpr()
	in := &dynamodb.DeleteItemInput{TableName: strp(t.name), Key: t.key(), ConditionExpression: g.condition(e, t, 0.5),
		ReturnValues:                        pick(g.r, []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld}),
		ReturnValuesOnConditionCheckFailure: g.onFailure()}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return in
}

func (g *gen) getItem() *dynamodb.GetItemInput {
	t, e := g.table(), newExpr()
	in := &dynamodb.GetItemInput{TableName: strp(t.name), Key: t.key(), ConsistentRead: g.maybeBool(),
		ProjectionExpression: g.projection(e, append(plainAttrs, "PK", "GSI1PK", numSK))}
	in.ExpressionAttributeNames = e.attrNames()
	return in
}

func (g *gen) maybeBool() *bool {
	return pick(g.r, []*bool{nil, new(true), new(false)})
}

// keyCount returns how many keys a batch or transaction names; now and then
// it is over DynamoDB's limit.
func (g *gen) keyCount(typical, limit int) int {
	if g.v.chance(0.02) {
		return limit + 1
	}
	return 1 + g.r.IntN(typical)
}

// keys returns count different keys over both tables, and with probability dup
// one of them twice (which DynamoDB refuses in batches and transactions).
type tableKey struct {
	t   table
	key map[string]types.AttributeValue
}

func (g *gen) keys(count int, dup float64) []tableKey {
	var out []tableKey
	seen := map[string]bool{}
	for tries := 0; len(out) < count && tries < 20*count; tries++ {
		t := g.table()
		k := t.key()
		id := t.name + fmt.Sprint(plain(k))
		if dup == 0 {
			id = t.name + valueID(k) // not even one number written two ways
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, tableKey{t, k})
		}
	}
	if g.v.chance(dup) {
		out = append(out, out[g.r.IntN(len(out))])
	}
	return out
}

// valueID names a key by value: numbers written two ways (1E3, 1000) are one.
func valueID(k map[string]types.AttributeValue) string {
	var parts []string
	for name, v := range k {
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			f, _ := strconv.ParseFloat(n.Value, 64)
			if f == 0 {
				f = 0 // -0 too
			}
			parts = append(parts, name+"="+strconv.FormatFloat(f, 'g', -1, 64))
			continue
		}
		parts = append(parts, name+"="+fmt.Sprint(plain(v)))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
