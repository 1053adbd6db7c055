// Package dynamo is calgraph's store: the single DynamoDB table behind every run
// mode (embedded engine, DynamoDB Local, AWS), reached through aws-sdk-go-v2.
//
// Layout: keys.go holds every key shape; keyquery.go builds every Query's
// input; records.go the storage records and their mapping to domain types;
// batch.go, tx.go and errors.go the only raw BatchGetItem, BatchWriteItem and
// TransactWriteItems calls and the SDK-error translation; one file per
// aggregate implements the calendar package's service interfaces.
// ACCESS_PATTERNS.md lists every key and every access pattern with its operation.
package dynamo
