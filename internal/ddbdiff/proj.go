package ddbdiff

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The projecting table holds the main table's kind of items under the same
// key and index attributes, but its indexes project only some attributes:
// a read of a local one fetches the rest from the table, a global one
// refuses to, and a Query's filter may read only what is projected.
var projIndexes = []struct {
	name   string
	local  bool
	nonKey []string // INCLUDE projects these; nil is KEYS_ONLY
}{
	{"LSI1", true, nil},
	{"LSI2", true, []string{"s", "m"}},
	{"GSI1", false, nil},
	{"GSI2", false, []string{"n", "l"}},
}

// projTable is the projecting table's CreateTable.
func projTable(name string) *dynamodb.CreateTableInput {
	keys := func(hash, rng string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: strp(hash), KeyType: types.KeyTypeHash}, {AttributeName: strp(rng), KeyType: types.KeyTypeRange}}
	}
	in := &dynamodb.CreateTableInput{TableName: strp(name), BillingMode: types.BillingModePayPerRequest, KeySchema: keys("PK", "SK")}
	for _, a := range []string{"PK", "SK", "LSI1SK", "LSI2SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: strp(a), AttributeType: types.ScalarAttributeTypeS})
	}
	for _, ix := range projIndexes {
		p := &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
		if ix.nonKey != nil {
			p = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: ix.nonKey}
		}
		if ix.local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{IndexName: strp(ix.name),
				KeySchema: keys("PK", ix.name+"SK"), Projection: p})
		} else {
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: strp(ix.name),
				KeySchema: keys(ix.name+"PK", ix.name+"SK"), Projection: p})
		}
	}
	return in
}

// selectType picks a read's Select now and then, including the ones an
// index or a table refuses (ALL_ATTRIBUTES on a global index that projects
// less, ALL_PROJECTED_ATTRIBUTES on a table, either with a projection).
func (g *gen) selectType() types.Select {
	switch k := g.r.IntN(20); {
	case k < 2:
		return types.SelectCount
	case k < 4:
		return types.SelectAllAttributes
	case k < 5:
		return types.SelectAllProjectedAttributes
	case k < 6:
		return types.SelectSpecificAttributes
	}
	return ""
}

// batchGet sends a BatchGetItem and then its UnprocessedKeys, as a client
// does, until none is left: DynamoDB answers at most 16 MB at once, and
// which keys it leaves is its own choice. The outcome is every item, and
// how many came in each round.
func (sd *side) batchGet(ctx context.Context, in *dynamodb.BatchGetItemInput) outcome {
	var items []any
	var rounds []any
	req := in
	for range 20 {
		out, err := sd.db.BatchGetItem(ctx, req)
		if err != nil {
			o := failure(err)
			if len(rounds) > 0 {
				o.Result = map[string]any{"Responses": items, "Rounds": rounds}
			}
			return o
		}
		counts := map[string]any{}
		for table, got := range out.Responses {
			for _, it := range got {
				items = append(items, map[string]any{"table": table, "item": plain(it)})
			}
			counts[table] = len(got)
		}
		rounds = append(rounds, counts)
		if len(out.UnprocessedKeys) == 0 {
			break
		}
		req = &dynamodb.BatchGetItemInput{RequestItems: out.UnprocessedKeys}
	}
	sortItems(items)
	return outcome{Result: map[string]any{"Responses": items, "Rounds": rounds}}
}

// sequence is requests sent one after another as one step (big items
// written, read and deleted again); each answer is compared.
type sequence []any
