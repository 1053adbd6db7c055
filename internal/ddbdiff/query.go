package ddbdiff

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// pagedQuery is a Query sent page after page, each engine following its own
// LastEvaluatedKey, until the last page; every page is compared.
type pagedQuery struct{ Query *dynamodb.QueryInput }

// pagedScan is a Scan sent page after page to the end; the items of all pages
// are compared as a set, since an engine need not follow DynamoDB's hash order.
type pagedScan struct{ Scan *dynamodb.ScanInput }

// index describes where a Query can go: the table or one of its indexes.
type index struct {
	table, name  string
	hash, rng    string
	hashes       []string
	rngValue     func() types.AttributeValue
	prefixes     []string // for begins_with
	nonKeyFilter func() string
}

func (g *gen) index() index {
	if g.v.chance(0.2) {
		return index{table: g.num, hash: numPK, rng: numSK, hashes: numPKs,
			rngValue: func() types.AttributeValue { return g.v.numKey()[numSK] }, prefixes: []string{"1"},
			nonKeyFilter: func() string { return pick(g.r, []string{"n", "bin", "m", "m.x"}) }}
	}
	ix := index{table: g.main, name: pick(g.r, []string{"", "", "GSI1", "GSI2", "GSI3", "GSI4", "LSI1", "LSI2"}), nonKeyFilter: g.path}
	if g.v.chance(0.2) {
		ix.table, ix.name = g.proj, pick(g.r, []string{"", "GSI1", "GSI2", "LSI1", "LSI2"})
	}
	switch {
	case ix.name == "GSI4": // keys only, sorted by the table's SK
		ix.hash, ix.rng, ix.hashes = "GSI4PK", "SK", gsiPKs
		ix.rngValue, ix.prefixes = func() types.AttributeValue { return s(pick(g.r, sortKeys)) }, []string{"a", "a#", "b#", "", "c", "d"}
	case ix.name == "":
		ix.hash, ix.rng, ix.hashes = "PK", "SK", partitions
		ix.rngValue, ix.prefixes = func() types.AttributeValue { return s(pick(g.r, sortKeys)) }, []string{"a", "a#", "b#", "", "c", "d"}
	case strings.HasPrefix(ix.name, "GSI"):
		ix.hash, ix.rng, ix.hashes = ix.name+"PK", ix.name+"SK", gsiPKs
		ix.rngValue, ix.prefixes = func() types.AttributeValue { return s(pick(g.r, gsiSKs)) }, []string{"x", "x#", "y", "z"}
	default:
		ix.hash, ix.rng, ix.hashes = "PK", ix.name+"SK", partitions
		ix.rngValue, ix.prefixes = func() types.AttributeValue { return s(pick(g.r, lsiSKs)) }, []string{"l", "l1", "l1#"}
	}
	return ix
}

// keyCondition names the partition and, mostly, a condition on the sort key.
func (g *gen) keyCondition(e *expr, ix index) string {
	kc := e.name(ix.hash) + " = " + e.value(s(pick(g.r, ix.hashes)))
	if !g.v.chance(0.7) {
		return kc
	}
	rk := e.name(ix.rng)
	switch k := g.r.IntN(7); k {
	case 0, 1, 2, 3, 4:
		kc += " AND " + rk + " " + []string{"=", "<", "<=", ">", ">="}[k] + " " + e.value(ix.rngValue())
	case 5:
		kc += " AND " + rk + " BETWEEN " + e.value(ix.rngValue()) + " AND " + e.value(ix.rngValue())
	default:
		kc += " AND begins_with(" + rk + ", " + e.value(s(pick(g.r, ix.prefixes))) + ")"
	}
	return kc
}

func (g *gen) query() pagedQuery {
	ix, e := g.index(), newExpr()
	in := &dynamodb.QueryInput{TableName: strp(ix.table), KeyConditionExpression: strp(g.keyCondition(e, ix)),
		ScanIndexForward: g.maybeBool(), Limit: g.limit()}
	if ix.name != "" {
		in.IndexName = strp(ix.name)
	}
	if g.v.chance(0.3) {
		in.FilterExpression = strp(g.cond(e, 0, ix.nonKeyFilter))
	}
	in.ProjectionExpression = g.projection(e, append(plainAttrs, "PK", "SK", "GSI1SK", numSK))
	in.Select = g.selectType()
	if !strings.HasPrefix(ix.name, "GSI") || g.v.chance(0.1) {
		in.ConsistentRead = g.maybeBool()
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return pagedQuery{in}
}

func (g *gen) scan() pagedScan {
	ix, e := g.index(), newExpr()
	in := &dynamodb.ScanInput{TableName: strp(ix.table), Limit: g.limit()}
	if ix.name != "" {
		in.IndexName = strp(ix.name)
	}
	// DynamoDB Local filters a Scan of a keys-only index (GSI4) on the
	// table's items, attributes the index does not hold included; the
	// engine holds only what the index projects. Such Scans are left out.
	if g.v.chance(0.4) && ix.name != "GSI4" {
		in.FilterExpression = strp(g.cond(e, 0, g.path))
	}
	in.ProjectionExpression = g.projection(e, append(plainAttrs, "PK", "SK", numSK))
	in.Select = g.selectType()
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return pagedScan{in}
}

func (g *gen) limit() *int32 {
	if g.v.chance(0.5) {
		return nil
	}
	return new(int32(1 + g.r.IntN(4)))
}
