package ddbdiff

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// overLimit returns a request at or over one of DynamoDB's limits: values
// nested 32 levels and more, keys over 2,048 (hash) and 1,024 (range)
// bytes, a put without its key in a batch, a transaction over 4 MB, a
// BatchGetItem over 16 MB (rarely: it writes and reads 18 MB).
func (g *gen) overLimit() any {
	switch k := g.r.IntN(64); {
	case k == 0:
		return g.bigBatchGet()
	case k < 4:
		return g.bigTransaction()
	}
	longKey := func() map[string]types.AttributeValue {
		if g.v.chance(0.5) {
			return map[string]types.AttributeValue{"PK": s(strings.Repeat("p", 2049)), "SK": s("a")}
		}
		return map[string]types.AttributeValue{"PK": s(pick(g.r, partitions)), "SK": s(strings.Repeat("é", 513))}
	}
	item := g.v.mainItem()
	switch g.r.IntN(12) {
	case 0:
		item["m"] = nestedValue(31 + g.r.IntN(2))
		return &dynamodb.PutItemInput{TableName: strp(g.main), Item: item}
	case 1:
		e := newExpr()
		in := &dynamodb.UpdateItemInput{TableName: strp(g.main), Key: g.v.mainKey(),
			UpdateExpression: strp("SET " + e.path("m") + " = " + e.value(nestedValue(31+g.r.IntN(3))))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return in
	case 2:
		e := newExpr()
		in := &dynamodb.ScanInput{TableName: strp(g.main), FilterExpression: strp(e.path("m") + " = " + e.value(nestedValue(33)))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return pagedScan{in}
	case 3:
		for k, v := range longKey() {
			item[k] = v
		}
		return &dynamodb.PutItemInput{TableName: strp(g.main), Item: item}
	case 4:
		return &dynamodb.GetItemInput{TableName: strp(g.main), Key: longKey()}
	case 5:
		in := g.batchWriteOf(0)
		in.RequestItems[g.main] = append(in.RequestItems[g.main], types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: longKey()}})
		return in
	case 6:
		return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{g.main: {Keys: []map[string]types.AttributeValue{longKey()}}}}
	case 7:
		in := g.newTransaction()
		item := g.v.mainItem()
		for k, v := range longKey() {
			item[k] = v
		}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Put: &types.Put{TableName: strp(g.main), Item: item}})
		return in
	case 8:
		e := newExpr()
		in := &dynamodb.QueryInput{TableName: strp(g.main), KeyConditionExpression: strp(e.name("PK") + " = " + e.value(s("p0")) +
			" AND " + e.name("SK") + " = " + e.value(longKey()["SK"]))}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.attrNames(), e.attrValues()
		return pagedQuery{in}
	case 9:
		item[pick(g.r, []string{"GSI1PK", "GSI2SK"})] = s(strings.Repeat("g", 2049))
		item[pick(g.r, []string{"LSI1SK", "LSI2SK"})] = s(strings.Repeat("l", 1024+g.r.IntN(2)))
		return &dynamodb.PutItemInput{TableName: strp(g.main), Item: item}
	default:
		in := g.batchWriteOf(0)
		delete(item, pick(g.r, []string{"PK", "SK"}))
		in.RequestItems[g.main] = append(in.RequestItems[g.main], types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		return in
	}
}

// nestedValue is a value depth maps (or lists) deep.
func nestedValue(depth int) types.AttributeValue {
	var v types.AttributeValue = s("x")
	for i := range depth {
		if i%3 == 0 {
			v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
		} else {
			v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": v}}
		}
	}
	return v
}

// bigString fills most of an item.
var bigString = strings.Repeat("b", 380*1024)

// bigTransaction puts 11 items of 380 KB, over a transaction's 4 MB.
func (g *gen) bigTransaction() *dynamodb.TransactWriteItemsInput {
	in := &dynamodb.TransactWriteItemsInput{}
	for i := range 11 {
		item := map[string]types.AttributeValue{"PK": s("big"), "SK": s(fmt.Sprint("t", i)), "s": s(bigString)}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Put: &types.Put{TableName: strp(g.main), Item: item}})
	}
	return in
}

// bigBatchGet writes 47 items of 380 KB in a partition of their own, reads
// them in one BatchGetItem (over its 16 MB, so some come back unprocessed)
// and deletes them again. Only big items: DynamoDB Local stops at the first
// item that would pass 16 MB in an order of its own, so with small items
// among them how many come back at first depends on that order.
func (g *gen) bigBatchGet() sequence {
	g.bigRuns++
	partition := fmt.Sprint("big", g.bigRuns)
	var seq sequence
	get := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
	keys := get.RequestItems[g.main]
	var deletes []types.WriteRequest
	for i := range 47 {
		key := map[string]types.AttributeValue{"PK": s(partition), "SK": s(fmt.Sprintf("%02d", i))}
		item := map[string]types.AttributeValue{"PK": key["PK"], "SK": key["SK"], "s": s(bigString)}
		seq = append(seq, &dynamodb.PutItemInput{TableName: strp(g.main), Item: item})
		keys.Keys = append(keys.Keys, key)
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
	}
	// DynamoDB counts the 16 MB on whole items whatever the projection; a
	// projection keeps the answers small (an answer of 16 MB can take
	// DynamoDB Local, shared and busy, longer than a client waits).
	e := newExpr()
	keys.ProjectionExpression, keys.ExpressionAttributeNames = strp(e.path("SK")), e.attrNames()
	get.RequestItems[g.main] = keys
	seq = append(seq, get)
	for len(deletes) > 0 {
		n := min(len(deletes), 25)
		seq = append(seq, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{g.main: deletes[:n]}})
		deletes = deletes[n:]
	}
	return seq
}
