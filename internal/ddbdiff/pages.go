package ddbdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/dynamo"
)

// maxPages stops paging through an engine that never reaches the last page.
const maxPages = 500

// query sends a Query page after page, following this engine's own
// LastEvaluatedKey, and returns every page.
func (sd *side) query(ctx context.Context, in *dynamodb.QueryInput) outcome {
	var pages []any
	page := *in
	for range maxPages {
		out, err := sd.db.Query(ctx, &page)
		if err != nil {
			o := failure(err)
			o.Result = pages
			return o
		}
		pages = append(pages, plain(out))
		if len(out.LastEvaluatedKey) == 0 {
			return outcome{Result: pages}
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return outcome{Result: pages, Error: fmt.Sprintf("ddbdiff: no last page after %d pages", maxPages)}
}

// scan sends a Scan page after page and returns the items of all pages as a
// set, with the page count and the summed counts.
func (sd *side) scan(ctx context.Context, in *dynamodb.ScanInput) outcome {
	var items []any
	var count, scanned int64
	page := *in
	for pages := 1; pages <= maxPages; pages++ {
		out, err := sd.db.Scan(ctx, &page)
		if err != nil {
			return failure(err)
		}
		count, scanned = count+int64(out.Count), scanned+int64(out.ScannedCount)
		for _, item := range out.Items {
			items = append(items, plain(item))
		}
		if len(out.LastEvaluatedKey) == 0 {
			sortItems(items)
			return outcome{Result: map[string]any{"Pages": pages, "Count": count, "ScannedCount": scanned, "Items": items}}
		}
		page.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return outcome{Error: fmt.Sprintf("ddbdiff: no last page after %d pages", maxPages)}
}

// finalScans are the scans compared after the last step: every table, and
// the main and projecting tables through each of their indexes.
func finalScans(main, num, proj string) []*dynamodb.ScanInput {
	scans := []*dynamodb.ScanInput{{TableName: strp(main), ConsistentRead: new(true)}, {TableName: strp(num), ConsistentRead: new(true)},
		{TableName: strp(proj), ConsistentRead: new(true)}}
	for _, ix := range []string{"GSI1", "GSI2", "GSI3", "GSI4", "LSI1", "LSI2"} {
		scans = append(scans, &dynamodb.ScanInput{TableName: strp(main), IndexName: strp(ix), ConsistentRead: new(strings.HasPrefix(ix, "LSI"))})
	}
	for _, ix := range projIndexes {
		scans = append(scans, &dynamodb.ScanInput{TableName: strp(proj), IndexName: strp(ix.name), ConsistentRead: new(ix.local)})
	}
	return scans
}

func scanName(in *dynamodb.ScanInput) string {
	if in.IndexName != nil {
		return fmt.Sprintf("index %s of table %s", *in.IndexName, *in.TableName)
	}
	return "table " + *in.TableName
}

// contents returns every item a Scan reaches, by primary key, as JSON.
func (sd *side) contents(ctx context.Context, in *dynamodb.ScanInput) map[string]string {
	o := sd.scan(ctx, in)
	if o.Error != "" {
		return map[string]string{"scan failed": o.Error + ": " + o.message}
	}
	items := map[string]string{}
	for _, item := range o.Result.(map[string]any)["Items"].([]any) {
		m := item.(map[string]any)
		key, _ := json.Marshal([]any{m["PK"], m["SK"], m[numPK], m[numSK]})
		value, _ := json.Marshal(item)
		items[string(key)] = string(value)
	}
	return items
}

// contentsDiff lists the items that differ, by key.
func contentsDiff(want, got map[string]string) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		if want[k] != got[k] {
			fmt.Fprintf(&b, "item %s:\n  reference: %s\n  engine:    %s\n", k, want[k], got[k])
		}
	}
	return b.String()
}

// createTables creates the main table with calgraph's schema, the numeric
// one and the projecting one, and deletes them when t ends.
func (sd *side) createTables(t testing.TB, main, num, proj string) {
	t.Helper()
	ctx := t.Context()
	if err := dynamo.EnsureTable(ctx, sd.db, main); err != nil {
		t.Fatalf("%s: %v", sd.name, err)
	}
	t.Cleanup(func() { sd.deleteTable(t, main) })
	_, err := sd.db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: strp(num), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: strp(numPK), KeyType: types.KeyTypeHash}, {AttributeName: strp(numSK), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: strp(numPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: strp(numSK), AttributeType: types.ScalarAttributeTypeN}},
	})
	if err != nil {
		t.Fatalf("%s: create table %s: %v", sd.name, num, err)
	}
	t.Cleanup(func() { sd.deleteTable(t, num) })
	if _, err := sd.db.CreateTable(ctx, projTable(proj)); err != nil {
		t.Fatalf("%s: create table %s: %v", sd.name, proj, err)
	}
	t.Cleanup(func() { sd.deleteTable(t, proj) })
	for _, name := range []string{num, proj} {
		sd.waitActive(t, name)
	}
}

func (sd *side) waitActive(t testing.TB, name string) {
	t.Helper()
	for {
		out, err := sd.db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: strp(name)})
		if err != nil {
			t.Fatalf("%s: describe table %s: %v", sd.name, name, err)
		}
		if s := out.Table.TableStatus; s == "" || s == types.TableStatusActive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (sd *side) deleteTable(t testing.TB, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dynamo.DeleteTable(ctx, sd.db, name); err != nil {
		t.Errorf("%s: %v", sd.name, err)
	}
}
