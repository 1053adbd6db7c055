package ddbdiff

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (g *gen) batchGet() *dynamodb.BatchGetItemInput {
	in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
	for _, k := range g.keys(1+g.r.IntN(10), 0.04) {
		ka := in.RequestItems[k.t.name]
		ka.Keys = append(ka.Keys, k.key)
		in.RequestItems[k.t.name] = ka
	}
	for name, ka := range in.RequestItems {
		e := newExpr()
		ka.ProjectionExpression = g.projection(e, append(plainAttrs, "PK", "SK", numSK))
		ka.ExpressionAttributeNames, ka.ConsistentRead = e.attrNames(), g.maybeBool()
		in.RequestItems[name] = ka
	}
	return in
}

func (g *gen) batchWrite() *dynamodb.BatchWriteItemInput { return g.batchWriteOf(0.04) }

// batchWriteOf returns a batch whose keys repeat with probability dup.
func (g *gen) batchWriteOf(dup float64) *dynamodb.BatchWriteItemInput {
	in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}}
	for _, k := range g.keys(g.keyCount(10, 25), dup) {
		var w types.WriteRequest
		if g.v.chance(0.7) {
			item := k.t.item()
			for a, v := range k.key {
				item[a] = v
			}
			w.PutRequest = &types.PutRequest{Item: item}
		} else {
			w.DeleteRequest = &types.DeleteRequest{Key: k.key}
		}
		in.RequestItems[k.t.name] = append(in.RequestItems[k.t.name], w)
	}
	return in
}

// transactWrite returns a transaction of one to eight actions, many with
// conditions that may fail; sometimes with a ClientRequestToken, sometimes the
// replay of the last such transaction, sometimes its token with other actions.
func (g *gen) transactWrite() *dynamodb.TransactWriteItemsInput {
	switch {
	case g.lastTx != nil && g.v.chance(0.1):
		return g.lastTx
	case g.lastTx != nil && g.v.chance(0.03):
		in := g.newTransaction()
		in.ClientRequestToken = g.lastTx.ClientRequestToken
		return in
	}
	in := g.newTransaction()
	if g.v.chance(0.25) {
		g.tokens++
		in.ClientRequestToken = strp(fmt.Sprintf("t%d", g.tokens))
		g.lastTx = in
	}
	return in
}

func (g *gen) newTransaction() *dynamodb.TransactWriteItemsInput {
	in := &dynamodb.TransactWriteItemsInput{}
	for _, k := range g.keys(1+g.r.IntN(8), 0.05) {
		e, name := newExpr(), strp(k.t.name)
		var a types.TransactWriteItem
		switch g.r.IntN(4) {
		case 0:
			item := k.t.item()
			for attr, v := range k.key {
				item[attr] = v
			}
			a.Put = &types.Put{TableName: name, Item: item, ConditionExpression: g.condition(e, k.t, 0.4),
				ReturnValuesOnConditionCheckFailure: g.onFailure()}
			a.Put.ExpressionAttributeNames, a.Put.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		case 1:
			a.Update = &types.Update{TableName: name, Key: k.key, UpdateExpression: strp(g.update(e)),
				ConditionExpression: g.condition(e, k.t, 0.4), ReturnValuesOnConditionCheckFailure: g.onFailure()}
			a.Update.ExpressionAttributeNames, a.Update.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		case 2:
			a.Delete = &types.Delete{TableName: name, Key: k.key, ConditionExpression: g.condition(e, k.t, 0.4),
				ReturnValuesOnConditionCheckFailure: g.onFailure()}
			a.Delete.ExpressionAttributeNames, a.Delete.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		default:
			a.ConditionCheck = &types.ConditionCheck{TableName: name, Key: k.key, ConditionExpression: g.condition(e, k.t, 1),
				ReturnValuesOnConditionCheckFailure: g.onFailure()}
			a.ConditionCheck.ExpressionAttributeNames, a.ConditionCheck.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		}
		in.TransactItems = append(in.TransactItems, a)
	}
	return in
}

func (g *gen) transactGet() *dynamodb.TransactGetItemsInput {
	in := &dynamodb.TransactGetItemsInput{}
	for _, k := range g.keys(4, 0.03) {
		e := newExpr()
		get := &types.Get{TableName: strp(k.t.name), Key: k.key, ProjectionExpression: g.projection(e, append(plainAttrs, "SK"))}
		get.ExpressionAttributeNames = e.attrNames()
		in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: get})
	}
	return in
}
