// Package engine is calgraph's embedded DynamoDB: it serves DynamoDB's JSON
// protocol (the operations calgraph makes, plus ListTables and
// TransactGetItems) and keeps every table in one bbolt file.
//
// # Storage
//
// A table is a bbolt bucket holding its items by primary key and one bucket
// per secondary index holding each item's projection by index key followed by
// primary key (db.go has the layout, keys.go the encoding). Key encodings sort
// as DynamoDB sorts: strings and binaries by their bytes, numbers by their
// exact decimal value. So GetItem is one B+tree lookup, a Query one range scan
// of its partition, and neither costs more as the table grows. Every index,
// and the TTL index the sweeper reads, is written in the same transaction as
// its item: an index never disagrees with its table, even after a crash.
//
// Reads are bbolt read transactions: a Query sees one committed state (in
// DynamoDB a page is consistent too). GSI reads are as fresh as table reads,
// which DynamoDB does not promise but allows.
//
// Writes go through one committer (DB.update): every writer waiting is applied
// one after another in one bbolt transaction, which commits with an fsync
// before any of them is acknowledged (group commit). Each writer's function
// checks everything before it writes anything, so one writer's refusal
// (a failed condition, a cancelled transaction) never needs a rollback of the
// others; a failure of the storage itself rolls the whole group back and
// retries each writer alone. A TransactWriteItems is therefore atomic and
// isolated by construction.
//
// bbolt rather than Pebble: the engine needs ordered keys, atomic multi-key
// commits and consistent snapshots, which both give; bbolt gives them with a
// single file, no background compaction, no write-ahead log to size or
// replay, reads served from a memory map without copying, and a dependency a
// fraction of Pebble's size. Its one writer at a time is no limit here: the
// committer serialises writers anyway to make conditions and transactions
// exact, and groups them to share an fsync. Pebble's strength, sustained write
// throughput far beyond one fsync per group, is not what a calendar server on
// one machine needs.
//
// # Expressions
//
// Condition, filter, update and projection expressions are evaluated by
// minidyn's interpreter (github.com/truora/minidyn/interpreter), which is
// wrong in places DynamoDB is right; expr.go wraps it:
//   - its Update writes changed attributes back into the item but never
//     deletes one: a top-level REMOVE was a no-op. The engine builds the new
//     item from the interpreter's environment instead.
//   - it holds numbers as float64. Attributes an update or projection leaves
//     as they were keep their stored value exactly (compared after a round
//     trip); numbers it computes (SET a = a + :n, ADD) are exact only within
//     float64's 15 significant digits, where DynamoDB keeps 38. calgraph only
//     adds small integers.
//   - placeholders: undefined and unused names and values are refused here,
//     as DynamoDB refuses them.
//
// Key conditions are read from the interpreter's syntax tree into a key range
// (keycond.go), never evaluated item by item.
//
// # Not supported
//
// Refused with a ValidationException: the legacy parameters (Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter, AttributesToGet,
// ConditionalOperator) and parallel scans (Segment). Not modelled at all:
// capacity and throttling, streams, backups, global tables. ReturnValues
// UPDATED_OLD and UPDATED_NEW return the top-level attributes whose value
// changed (DynamoDB returns the paths the expression named, even when set to
// the same value). Updating a key attribute is refused only when it would
// change its value.
package engine
