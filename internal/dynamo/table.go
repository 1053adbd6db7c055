package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// gsi is a global secondary index of the table.
type gsi struct {
	name, pk, sk string
	projection   types.ProjectionType
}

// indexes are the table's global secondary indexes.
var indexes = []gsi{
	{indexGSI1, attrGSI1PK, attrGSI1SK, types.ProjectionTypeAll},
	{indexGSI2, attrGSI2PK, attrGSI2SK, types.ProjectionTypeAll},
	{indexGSI3, attrGSI3PK, attrGSI3SK, types.ProjectionTypeAll},
	// Keys only: a write hint's keys name its log and position, all that
	// its reader needs (recent.go); GSI4 is sorted by the table's SK.
	{indexGSI4, attrGSI4PK, attrSK, types.ProjectionTypeKeysOnly},
	// Keys only: a wake's keys name its entry and instant (remind_arming.go),
	// and an entry's other writes never write the index.
	{indexGSI5, attrGSI5PK, attrGSI5SK, types.ProjectionTypeKeysOnly},
}

// localIndexes are the table's local secondary indexes, projecting every
// attribute: they allow strongly consistent range reads within a calendar's
// partition, and can only be created with the table.
var localIndexes = []struct{ name, sk string }{
	{indexLSI1, attrLSI1SK},
	{indexLSI2, attrLSI2SK},
}

// EnsureTable creates the table with its indexes when it does not exist, adds any
// index it lacks, and waits until the table and its indexes are active.
func EnsureTable(ctx context.Context, db *dynamodb.Client, table string) error {
	desc, found, err := describe(ctx, db, table)
	if err != nil {
		return err
	}
	if !found {
		if err := createTable(ctx, db, table, indexes); err != nil {
			return err
		}
	} else {
		if err := checkLocalIndexes(table, desc); err != nil {
			return err
		}
		if err := addMissingIndexes(ctx, db, table, desc); err != nil {
			return err
		}
	}
	if err := waitActive(ctx, db, table); err != nil {
		return err
	}
	return enableTTL(ctx, db, table)
}

// enableTTL has the engine delete items past their expiresAt (idempotency
// markers, invitations): DynamoDB in the background, the embedded engine's
// sweeper every minute. An engine that does not know the TTL operations is
// left as it is: expired items there are ignored, not deleted.
func enableTTL(ctx context.Context, db *dynamodb.Client, table string) error {
	out, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if apiErr, ok := errors.AsType[smithy.APIError](err); ok && apiErr.ErrorCode() == "UnknownOperationException" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("describe TTL of table %s: %w", table, err)
	}
	if d := out.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attrExpiresAt), Enabled: aws.Bool(true)}})
	if err != nil {
		return fmt.Errorf("enable TTL on table %s: %w", table, err)
	}
	return nil
}

// checkLocalIndexes refuses a table created before a local index existed:
// DynamoDB cannot add one to an existing table.
func checkLocalIndexes(table string, desc *types.TableDescription) error {
	have := map[string]bool{}
	for _, l := range desc.LocalSecondaryIndexes {
		have[aws.ToString(l.IndexName)] = true
	}
	for _, l := range localIndexes {
		if !have[l.name] {
			return fmt.Errorf("table %s lacks the local index %s, which DynamoDB cannot add to an existing table: "+
				"export the table (calgraph export), delete it, and import into the new one calgraph creates (calgraph import)", table, l.name)
		}
	}
	return nil
}

// describe returns the table's description and whether the table exists.
func describe(ctx context.Context, db *dynamodb.Client, table string) (*types.TableDescription, bool, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if _, ok := errors.AsType[*types.ResourceNotFoundException](err); ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("describe table %s: %w", table, err)
	}
	return out.Table, true, nil
}

// Reachable reports whether DynamoDB answers at all, whether or not the table
// exists yet: start-up waits for this before creating the table.
func Reachable(ctx context.Context, db *dynamodb.Client, table string) error {
	_, _, err := describe(ctx, db, table)
	return err
}

// createTable creates the table with the global secondary indexes gsis
// (indexes; tests of upgrades leave some out).
func createTable(ctx context.Context, db *dynamodb.Client, table string, gsis []gsi) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(attrPK, attrSK),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrSK), AttributeType: types.ScalarAttributeTypeS},
		},
	}
	for _, l := range localIndexes {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(l.sk), AttributeType: types.ScalarAttributeTypeS})
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(l.name),
			KeySchema:  keySchema(attrPK, l.sk),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	for _, ix := range gsis {
		for _, a := range []string{ix.pk, ix.sk} {
			if !slices.ContainsFunc(in.AttributeDefinitions, func(d types.AttributeDefinition) bool { return aws.ToString(d.AttributeName) == a }) {
				in.AttributeDefinitions = append(in.AttributeDefinitions,
					types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
			}
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.name),
			KeySchema:  keySchema(ix.pk, ix.sk),
			Projection: &types.Projection{ProjectionType: ix.projection},
		})
	}
	_, err := db.CreateTable(ctx, in)
	if _, ok := errors.AsType[*types.ResourceInUseException](err); ok {
		return nil // created concurrently by another process
	}
	if err != nil {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	return nil
}

// addMissingIndexes adds indexes introduced after the table was created. DynamoDB
// creates one index per UpdateTable call, and fills it from the table's items
// (the embedded engine at once, DynamoDB in the background: the table stays
// writable, and EnsureTable waits for the index to become ACTIVE).
func addMissingIndexes(ctx context.Context, db *dynamodb.Client, table string, desc *types.TableDescription) error {
	have := map[string]bool{}
	for _, g := range desc.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = true
	}
	for _, ix := range indexes {
		if have[ix.name] {
			continue
		}
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: aws.String(table),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(ix.pk), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(ix.sk), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:  aws.String(ix.name),
				KeySchema:  keySchema(ix.pk, ix.sk),
				Projection: &types.Projection{ProjectionType: ix.projection},
			}}},
		})
		if err != nil {
			return fmt.Errorf("add index %s to table %s: %w", ix.name, table, err)
		}
		if err := waitActive(ctx, db, table); err != nil {
			return err
		}
		if ix.name == indexGSI5 { // a table of an earlier version: its entries have no wakes
			if err := markLegacyWakes(ctx, db, table); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitActive polls until the table and all its indexes are ACTIVE (the
// embedded engine's are at once). An engine that reports no status counts
// as active.
func waitActive(ctx context.Context, db *dynamodb.Client, table string) error {
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		desc, found, err := describe(ctx, db, table)
		if err != nil {
			return err
		}
		if found && active(desc) {
			return nil
		}
		if err := sleep(ctx, delay); err != nil {
			return fmt.Errorf("wait for table %s to become active: %w", table, err)
		}
	}
}

func active(desc *types.TableDescription) bool {
	if desc.TableStatus != "" && desc.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range desc.GlobalSecondaryIndexes {
		if g.IndexStatus != "" && g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

// DeleteTable deletes the table; tests use it to clean up.
func DeleteTable(ctx context.Context, db *dynamodb.Client, table string) error {
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("delete table %s: %w", table, err)
	}
	return nil
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
	}
}
