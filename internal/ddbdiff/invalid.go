package ddbdiff

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// invalid returns a request DynamoDB refuses (or one at a limit); the engine
// must refuse it with the same error code.
func (g *gen) invalid() any {
	switch k := g.r.IntN(20); {
	case k < 9:
		return g.badExpression()
	case k < 11:
		return g.overLimit()
	}
	key := g.v.mainKey()
	item := g.v.mainItem()
	put := func(change func(item map[string]types.AttributeValue)) *dynamodb.PutItemInput {
		change(item)
		return &dynamodb.PutItemInput{TableName: strp(g.main), Item: item}
	}
	update := func(expression string, names map[string]string, values map[string]types.AttributeValue) *dynamodb.UpdateItemInput {
		return &dynamodb.UpdateItemInput{TableName: strp(g.main), Key: key, UpdateExpression: strp(expression),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values}
	}
	one := map[string]types.AttributeValue{":v": n("1")}
	cases := []func() any{
		func() any { return put(func(i map[string]types.AttributeValue) { i["PK"] = n("1") }) },
		func() any { return put(func(i map[string]types.AttributeValue) { i["SK"] = s("") }) },
		func() any { return put(func(i map[string]types.AttributeValue) { i["GSI1PK"] = n("1") }) },
		func() any { return put(func(i map[string]types.AttributeValue) { i["LSI1SK"] = s("") }) },
		func() any { return put(func(i map[string]types.AttributeValue) { delete(i, "SK") }) },
		func() any {
			return put(func(i map[string]types.AttributeValue) { i["s"] = s(strings.Repeat("x", 400*1024)) })
		},
		func() any {
			return put(func(i map[string]types.AttributeValue) { i["ss"] = &types.AttributeValueMemberSS{Value: []string{}} })
		},
		func() any {
			return put(func(i map[string]types.AttributeValue) {
				i["ss"] = &types.AttributeValueMemberSS{Value: []string{"a", "a"}}
			})
		},
		func() any { return put(func(i map[string]types.AttributeValue) { i["n"] = n("1e126") }) },
		func() any {
			return put(func(i map[string]types.AttributeValue) { i["n"] = n("123456789012345678901234567890123456789") })
		},
		func() any { return put(func(i map[string]types.AttributeValue) { i["n"] = n("1.2.3") }) },
		func() any { return update("SET #a = = :v", map[string]string{"#a": "n"}, one) },
		func() any { return update("SET #a = :w", map[string]string{"#a": "n"}, one) },
		func() any { return update("SET #a = :v", nil, one) },
		func() any { return update("SET n = :v, #a = :v", map[string]string{"#a": "s", "#b": "m"}, one) },
		func() any { return update("SET SK = :v", nil, map[string]types.AttributeValue{":v": s("z")}) },
		func() any { return update("SET size = :v", nil, one) },
		func() any { return update("SET n = :v REMOVE n", nil, one) },
		func() any { return update("ADD l :v", nil, one) },
		func() any { return update("", nil, nil) },
		func() any {
			return &dynamodb.PutItemInput{TableName: strp(g.main), Item: item, ReturnValues: types.ReturnValueAllNew}
		},
		func() any {
			return &dynamodb.GetItemInput{TableName: strp(g.main), Key: map[string]types.AttributeValue{"PK": s("p0")}}
		},
		func() any {
			k := g.v.mainKey()
			k["s"] = s("extra")
			return &dynamodb.GetItemInput{TableName: strp(g.main), Key: k}
		},
		func() any { return &dynamodb.GetItemInput{TableName: strp(g.main + "_missing"), Key: key} },
		func() any {
			return pagedQuery{&dynamodb.QueryInput{TableName: strp(g.main), IndexName: strp("GSI1"), ConsistentRead: new(true),
				KeyConditionExpression: strp("GSI1PK = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("g0")}}}
		},
		func() any {
			return pagedQuery{&dynamodb.QueryInput{TableName: strp(g.main), IndexName: strp("NoSuchIndex"),
				KeyConditionExpression: strp("PK = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("p0")}}}
		},
		func() any {
			return pagedQuery{&dynamodb.QueryInput{TableName: strp(g.main), KeyConditionExpression: strp("SK = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("a")}}}
		},
		func() any {
			return pagedQuery{&dynamodb.QueryInput{TableName: strp(g.num), KeyConditionExpression: strp("P = :p AND begins_with(N, :v)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("q0"), ":v": n("1")}}}
		},
		func() any { return g.overfullBatchGet() },
		func() any {
			// No duplicate keys beside the missing table: DynamoDB Local
			// checks a batch table by table in the order of the request,
			// which the SDK leaves to Go's map order, so with both it
			// answers one error or the other at random.
			in := g.batchWriteOf(0)
			in.RequestItems[g.main+"_missing"] = []types.WriteRequest{{DeleteRequest: &types.DeleteRequest{Key: key}}}
			return in
		},
		func() any { return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}} },
		func() any {
			in := g.newTransaction()
			in.TransactItems = append(in.TransactItems, types.TransactWriteItem{})
			return in
		},
	}
	return pick(g.r, cases)()
}

// overfullBatchGet names 101 keys, one more than DynamoDB allows.
func (g *gen) overfullBatchGet() *dynamodb.BatchGetItemInput {
	keys := make([]map[string]types.AttributeValue, 101)
	for i := range keys {
		keys[i] = map[string]types.AttributeValue{"PK": s("p0"), "SK": s(fmt.Sprintf("over#%d", i))}
	}
	return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{g.main: {Keys: keys}}}
}
