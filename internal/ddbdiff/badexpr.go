package ddbdiff

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// badExpression returns a request with an expression DynamoDB refuses
// before it reads an item: an unknown function, a syntax error, an operand
// compared with itself, a type no comparison takes, redundant parentheses,
// more operators, operands or nesting than allowed, more than 4 KB. A
// condition is often under NOT, where an engine that reads it as false
// would write.
func (g *gen) badExpression() any {
	e := newExpr()
	switch g.r.IntN(10) {
	case 0, 1:
		t := g.table()
		cond := strp(g.badCondition(e, t.path))
		in := &dynamodb.UpdateItemInput{TableName: strp(t.name), Key: t.key(), ConditionExpression: cond}
		in.UpdateExpression = strp("SET " + e.path("z") + " = " + e.value(n("1")))
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return in
	case 2:
		t := g.table()
		in := &dynamodb.PutItemInput{TableName: strp(t.name), Item: t.item(), ConditionExpression: strp(g.badCondition(e, t.path))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return in
	case 3:
		t := g.table()
		in := &dynamodb.DeleteItemInput{TableName: strp(t.name), Key: t.key(), ConditionExpression: strp(g.badCondition(e, t.path))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return in
	case 4:
		in := &dynamodb.ScanInput{TableName: strp(g.main), FilterExpression: strp(g.badCondition(e, g.path))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return pagedScan{in}
	case 5:
		in := g.newTransaction()
		a := &in.TransactItems[g.r.IntN(len(in.TransactItems))]
		cc := &types.ConditionCheck{TableName: strp(g.main), Key: g.v.mainKey(), ConditionExpression: strp(g.badCondition(e, g.path))}
		cc.ExpressionAttributeNames, cc.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		*a = types.TransactWriteItem{ConditionCheck: cc}
		return in
	case 6, 7:
		return g.badUpdate(e)
	case 8:
		in := &dynamodb.GetItemInput{TableName: strp(g.main), Key: g.v.mainKey(), ProjectionExpression: strp(g.badProjection(e))}
		in.ExpressionAttributeNames = e.attrNames()
		return in
	default:
		return g.badKeyCondition(e)
	}
}

// badCondition is a condition DynamoDB refuses, over paths from path.
func (g *gen) badCondition(e *expr, path func() string) string {
	p := func() string { return e.path(path()) }
	v := func() string { return e.value(g.scalar()) }
	var c string
	switch g.r.IntN(20) {
	case 0:
		c = pick(g.r, []string{"attribute_not_exist", "attribute_exist", "begins_With", "Contains", "size_of"}) + "(" + p() + ")"
	case 1:
		q := p()
		c = q + " " + pick(g.r, comparators) + " " + q
	case 2:
		q := p()
		c = pick(g.r, []string{"begins_with", "contains"}) + "(" + q + ", " + q + ")"
	case 3:
		c = p() + " " + pick(g.r, []string{"<", "<=", ">", ">="}) + " " + e.value(pick(g.r, unordered))
	case 4:
		c = p() + " BETWEEN " + e.value(s("a")) + " AND " + e.value(n("1"))
	case 5:
		c = "((" + g.cond(e, 2, path) + "))"
	case 6:
		c = p() + " = " + v() + " " + p() + " = " + v() // no AND
	case 7:
		c = pick(g.r, []string{"size(" + p() + ")", "NOT " + p(), p(), v(), p() + " IN ()", p() + " = = " + v(), "(" + p() + " = " + v()})
	case 8:
		c = "size(" + p() + ") = " + v() + " AND attribute_exists(" + p() + ") = " + e.value(&types.AttributeValueMemberBOOL{Value: true})
	case 9:
		c = "attribute_type(" + p() + ", " + e.value(s(pick(g.r, []string{"FOO", "STRING", "n", ""}))) + ")"
	case 10:
		c = p() + " IN (" + g.values(e, 101) + ")"
	case 11:
		c = strings.Repeat(p()+" = "+v()+" AND ", 150) + p() + " = " + v()
	case 12:
		c = "attribute_exists(" + p() + strings.Repeat(".x", 32) + ")"
	case 13:
		c = e.path(pick(g.r, []string{"l", "m.x"})) + "[2147483648] = " + v()
	case 14:
		c = "begins_with(" + p() + ", " + e.value(n("1")) + ")"
	case 15:
		c = "size(" + e.value(pick(g.r, unordered[:3])) + ") = " + v()
	case 16:
		c = pick(g.r, []string{"if_not_exists(" + p() + ", " + v() + ") = " + v(), "list_append(" + p() + ", " + p() + ") = " + v()})
	case 17:
		c = p() + " = " + v() + strings.Repeat(" ", 4100)
	case 18:
		c = pick(g.r, []string{"_s = ", "1s = ", "s.and = ", "l[01] = ", "s-n = "}) + v() // bare names DynamoDB's grammar refuses
	default:
		c = "attribute_exists(" + e.value(n("1")) + ")"
	}
	if g.v.chance(0.5) {
		c = "NOT (" + c + ")"
	}
	return c
}

// unordered are values no ordering takes (and size() takes only the last).
var unordered = []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberNULL{Value: true},
	&types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}

// values are count placeholders of scalars, comma-separated.
func (g *gen) values(e *expr, count int) string {
	vs := make([]string, count)
	for i := range vs {
		vs[i] = e.value(g.scalar())
	}
	return strings.Join(vs, ", ")
}

// badUpdate is an UpdateItem whose UpdateExpression DynamoDB refuses.
func (g *gen) badUpdate(e *expr) *dynamodb.UpdateItemInput {
	p := func() string { return e.path(pick(g.r, plainAttrs)) }
	num := func() string { return e.value(n(pick(g.r, numbers))) }
	list := func() string { return e.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}}) }
	exprs := []func() string{
		func() string { return "SET " + p() + " = " + p() + " + " + num() + " - " + num() },
		func() string { return "SET " + p() + " = " + p() + " + (" + num() + " - " + num() + ")" },
		func() string { return "SET " + p() + " = ((" + p() + "))" },
		func() string { return "SET " + p() + " = ((" + num() + " + " + num() + "))" },
		func() string { return "SET " + p() + " = if_not_exists(" + p() + ")" },
		func() string { return "SET " + p() + " = if_not_exists(" + num() + ", " + p() + ")" },
		func() string { return "SET " + p() + " = list_append(" + p() + ", " + list() + ", " + list() + ")" },
		func() string { return "SET " + num() + " = " + p() },
		func() string { return "ADD " + p() + " " + p() },
		func() string { return "SET _z = " + num() },
		func() string { return "SET " + e.path("l") + "[2147483648] = " + num() },
		func() string { return "REMOVE " + e.path("l") + "[01]" },
		func() string { return "SET " + p() + " = " + num() + " + " + num() + " + " + num() },
		func() string { return pick(g.r, []string{"SET ", "REMOVE", "ADD ", "SET " + p() + " ="}) },
		func() string { return "SET " + p() + " = " + num() + " REMOVE " + p() + " SET " + p() + " = " + num() },
		func() string { return "SET " + p() + " = size(" + p() + ")" },
		func() string { return "SET " + p() + " = " + num() + strings.Repeat(" ", 4100) },
	}
	in := &dynamodb.UpdateItemInput{TableName: strp(g.main), Key: g.v.mainKey(), UpdateExpression: strp(pick(g.r, exprs)())}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return in
}

// badProjection is a ProjectionExpression DynamoDB refuses.
func (g *gen) badProjection(e *expr) string {
	p := func() string { return e.path(pick(g.r, plainAttrs)) }
	return pick(g.r, []string{
		"(" + p() + ")", p() + strings.Repeat(".x", 32), "_s", e.path("l") + "[01]", p() + ", size(" + p() + ")",
		p() + " " + p(), p() + ",", p() + strings.Repeat(" ", 4100),
	})
}

// badKeyCondition is a Query whose KeyConditionExpression DynamoDB refuses.
func (g *gen) badKeyCondition(e *expr) pagedQuery {
	pk, sk := e.name("PK"), e.name("SK")
	v, w := e.value(s(pick(g.r, partitions))), e.value(s(pick(g.r, sortKeys)))
	kc := pick(g.r, []string{
		"((" + pk + " = " + v + "))",
		pk + " = " + v + " AND ((" + sk + " = " + w + "))",
		pk + " = " + v + " " + sk + " = " + w,
		pk + " = " + v + " AND " + sk + " = " + sk,
		pk + " = " + v + " AND foo(" + sk + ", " + w + ")",
	})
	in := &dynamodb.QueryInput{TableName: strp(g.main), KeyConditionExpression: strp(kc)}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
	return pagedQuery{in}
}
