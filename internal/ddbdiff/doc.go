// Package ddbdiff is a differential tester for DynamoDB engines: it sends one
// seeded random sequence of requests to a reference (Amazon's DynamoDB Local)
// and to an engine under test, and fails on the first response that differs,
// then compares the final tables item by item. Where the two disagree, the
// engine under test is wrong.
//
// The model is cockroachdb/pebble's metamorphic tests: a seed fixes the whole
// sequence, so a failure prints the seed, the step, the request and both
// answers, and a command that replays exactly that sequence.
//
// Each run creates fresh tables in both engines (names unique per run): one with
// calgraph's real schema (dynamo.EnsureTable: PK/SK, GSI1–GSI4, LSI1/LSI2, TTL on
// expiresAt) and one with a numeric sort key, for number ordering and
// normalisation. The key universe is small (gen.go), so writes collide, items
// move in and out of indexes, and conditions both hold and fail.
//
// What is compared (compare.go):
//   - every response, with sets sorted, BatchGetItem responses sorted, and
//     numbers compared as the exact strings the reference returns: an engine must
//     normalise numbers ("1.500" → "1.5", "-0" → "0") as DynamoDB does;
//   - errors by their code only; a ConditionalCheckFailedException also by the
//     item it returns, a TransactionCanceledException by its cancellation reason
//     codes and items. Messages are printed, never compared;
//   - a Query page by page, following each engine's own LastEvaluatedKey, so
//     order, limits, counts and the keys themselves must agree;
//   - a Scan as the whole set of items over all its pages, with the page count
//     and summed counts: DynamoDB orders a Scan by a hash of the partition key,
//     which an engine is not asked to reproduce.
//
// Response fields that are absent and fields that are empty count as the same
// (Items [] against no Items); empty lists and maps inside items do not.
package ddbdiff
