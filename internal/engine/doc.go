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
// bbolt rather than Pebble v2, by measurement (a scratch benchmark of both,
// interleaved on this project's 2-core machine, modelling the engine's
// items and index entries):
//   - Reads, most of calgraph's traffic, cost 1.1–2.7× less CPU in bbolt at
//     5k–50k items and 1.3–4.4× less at 200k (Pebble's block cache at 64 or
//     256 MB): a lookup walks a B+tree in the memory map, with no block to
//     decode or decompress.
//   - Writes cost more: a commit fsyncs twice and rewrites each touched
//     tree's path (~95 KB per commit against Pebble's ~7 KB), so bbolt makes
//     0.1–0.4× Pebble's durable commits per second; grouped by the committer
//     it still made 460–1,300 per second, far above a calendar server's need.
//   - Atomic, isolated read-check-write comes from bbolt's single writer; on
//     Pebble the engine would own a lock manager, where a missing lock
//     silently loses updates.
//   - Opening takes about 1 ms (8 ms cold) at 200k items: no log to replay,
//     no compaction, no cache to size (the memory is the page cache behind
//     the map).
//   - Accepted costs: no compression and pages half full after random
//     inserts (633 MB against 135 MB on disk for 200k items and 600k index
//     entries).
//   - bbolt adds 0.6 MB to the binary and no module; Pebble 24 MB, 31 modules
//     and cgo for zstd.
//
// Revisit if sustained durable writes must go well past 1,000 commits per
// second, or data grows far beyond memory.
//
// # Reading items
//
// A stored record is the item's DynamoDB JSON behind its size (record.go), so
// a read's answer copies each item's bytes as they are. Nothing else of an
// item is decoded unless something reads it: a Query's or Scan's filter
// decodes only the attributes it names, and the LastEvaluatedKey only the
// key attributes (scanNamed steps over the others without allocating; any
// record it cannot step over is decoded whole, with the same result). A
// filter on one attribute had decoded all of every item read: half of the
// engine's CPU on a cold week view of the embedded default
// (internal/viewbench/README.md).
// A projection still decodes whole items; calgraph's views project none.
//
// # Expressions
//
// Condition, filter, key condition, projection and update expressions are
// read by the engine's own parser of DynamoDB's grammar (exprlex.go,
// exprparse.go, exprcond.go, exprupdate.go), which refuses what DynamoDB
// refuses before it reads an item (exprcheck.go): syntax errors, redundant
// parentheses, unknown or misplaced functions and their operand counts,
// operand types known in advance (a BOOL ordered with <, size() of a
// number, attribute_type of an unknown type), an operand compared with
// itself, unused or undefined placeholders, reserved words, an expression
// sent empty, more than 300 operators, 100 IN operands, 32 path levels or
// 4 KB. A refused condition
// never reads as false, so NOT of it never writes. Conditions and filters
// are evaluated on the engine's own values (condeval.go): a comparison or
// function of a missing operand, or of operands of different types, is
// false (<> true); numbers compare exactly by value at any depth, sets as
// sets; size() counts a string in UTF-16 units as DynamoDB Local does.
// Key conditions become a key range (keycond.go), never evaluated item by
// item; projections are applied by path (paths.go).
//
// Updates, once checked, are applied through minidyn's interpreter
// (github.com/truora/minidyn/interpreter), which is wrong in places
// DynamoDB (and DynamoDB Local, the reference) is right; updateapply.go
// and interp.go wrap it, each fix held by the differential test
// (internal/ddbdiff) or a test here (update_test.go, paths_test.go):
//   - its Update writes changed attributes back but never deletes one (a
//     top-level REMOVE was a no-op): the engine builds the new item from the
//     interpreter's environment, and keeps untouched attributes as stored.
//   - it holds numbers as float64: sums (ADD, SET a = b ± c) are computed
//     exactly as DynamoDB Local writes them (Java's BigDecimal), values set
//     from placeholders, if_not_exists and list_append keep their text, and
//     numbers (and number sets) it rewrote keep the text they had.
//   - set ADD and DELETE by members (an emptied set goes); SET and REMOVE past
//     a list's end (it panics there) append, in the order of their indexes,
//     and do nothing; ADD of a missing map key or past a list's end (it drops
//     them) adds the value there; REMOVE of list elements is done by the
//     engine, last index first.
//   - if_not_exists is decided by the engine: a path through a string leads
//     nowhere (the interpreter fails there).
//
// # Indexes that project some attributes
//
// A read of a local index projecting KEYS_ONLY or INCLUDE fetches from the
// table what it asks for beyond the projection (Select ALL_ATTRIBUTES, a
// ProjectionExpression); a global one refuses such a read. A Query's filter
// may read only projected attributes; a Scan's filter of an index is read
// against the whole item, as DynamoDB Local reads it (indexread.go).
//
// # Limits
//
// As DynamoDB's: items of 400 KB with attributes nested at most 31 levels
// (expression values 32), hash keys of 2,048 bytes and range keys of 1,024
// (index keys too, when an item is put: an update may set a longer one, as
// DynamoDB Local allows), 100 keys and 16 MB of items in a BatchGetItem (the
// rest come back as UnprocessedKeys, from the first item that would pass
// 16 MB in the request's order, tables by name), 25 writes in a
// BatchWriteItem, 100 actions and a 4 MB payload in a transaction, 1 MB
// pages, 16 MB requests.
//
// # Who may call
//
// The engine listens on a loopback port, which every user of the machine can
// reach. So each Server draws an access key and a 256-bit secret from
// crypto/rand when it starts (Server.Credentials) and answers only calls
// signed with them (AWS Signature Version 4, auth.go): the signature is
// recomputed as the SDK's signer computes it (TestSignaturesAsTheSDKSigns)
// over the headers the caller signed and the SHA-256 of the body as
// received, and compared in constant time.
// Host, X-Amz-Date and X-Amz-Target must be signed (the last so a signed
// body cannot be sent as another operation), and the date must be within 15
// minutes of now, DynamoDB's window. Refusals are DynamoDB's own: HTTP 400
// MissingAuthenticationTokenException, UnrecognizedClientException,
// IncompleteSignatureException or InvalidSignatureException, before the body
// is parsed, and logged as a warning at most once a minute (refusals in
// serve.go). A call captured on loopback can be replayed within the window;
// capturing it takes root, who can read the file. A Unix socket with mode
// 0600 would also shut out other users, but not other processes of the same
// user, and the SDK speaks HTTP over TCP only: signatures keep one code path
// for every mode. BenchmarkVerify measures 5–7 µs and 18 allocations per small call (13 µs
// and 67 when it re-signed a copy with the SDK's signer).
//
// # Damage
//
// Open verifies an existing file before bbolt maps it (verify.go): bbolt
// reads pages through the map, and a page past the end of a truncated file
// is a SIGBUS, which no Go code recovers from unless the goroutine asked
// for SetPanicOnFault. So the engine reads both meta pages with plain reads
// and refuses, with a *DamageError saying what it found, a file that is
// empty, shorter than the newest commit's high-water mark, or one of whose
// meta pages fails its checksum. bbolt would open that last one from the
// other meta page; when the damaged one was the newer, the last
// acknowledged commit would be rolled back silently, so the engine refuses
// unless Options.AcceptRollback says an operator chose that, and then keeps
// a copy of the file first. A new file is created under another name and
// renamed into place, so an empty file is always damage, never a first
// start.
//
// Data pages are not read at open. Reading one that is damaged makes bbolt
// panic (a page that is not what its parent says) or fault (past the end
// of a file cut while mapped): every goroutine that reads or writes the file
// (calls, the committer, the sweeper, CheckFile) runs under guard, which
// sets SetPanicOnFault and turns either into an error: InternalServerError
// for that call, a failed batch for the committer (its transaction rolled
// back, else the write lock would be held for good), and a log line that
// names the file and says to run `calgraph check`. CheckFile walks every
// bucket, key and record under guard before running bbolt's Tx.Check,
// which runs in a goroutine of its own where a panic could not be caught.
//
// Only meta pages carry a checksum (bbolt's); data pages and records carry
// none. A flipped bit inside a value that still parses is not detected; one
// that breaks a page or a record's shape is, by CheckFile.
//
// # Not supported
//
// Refused with a ValidationException: the legacy parameters (Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter, AttributesToGet,
// ConditionalOperator), parallel scans (Segment) and streams (a
// StreamSpecification enabling one: DynamoDB Local has streams, the engine
// has none, and a table created without the stream asked for would lose
// every change its reader expects). Not modelled at all: capacity and
// throttling, backups, global tables, PartiQL, return values of
// ConsumedCapacity and ItemCollectionMetrics.
//
// Where DynamoDB Local itself decides by an order of its own, the engine
// is deterministic instead and the differential test does not compare:
// which keys a BatchGetItem over 16 MB leaves unprocessed (the test
// re-sends them, as a client does, and compares the items and the counts),
// and which error a request with two faults answers.
//
// The differential test (internal/ddbdiff) runs 20 random seeds of 200
// requests against DynamoDB Local in CI; `-seeds 200 -steps 1000` runs more.
// Where they differ, the engine is wrong. Its last such run (2026-11-27,
// DynamoDB Local 2.9.30) agreed on all 200,000 requests and the final
// tables of all 200 seeds: 103,731 successes, 55,827 ValidationExceptions,
// 28,088 failed conditions, 11,879 cancelled transactions.
//
// The rules the differential test found, and the cases it is unlikely to
// reach, are also tested in plain `go test`, one file per concept, each
// table's expectations DynamoDB Local's answers: expr_rules_test.go
// (conditions and filters), keycond_test.go, paths_test.go (document paths
// and projections), update_test.go, writes_test.go (single-item writes),
// batch_test.go, tx_test.go,
// pages_test.go, ttl_test.go, index_*_test.go and limits_test.go. The
// -reference flag sends the same requests to DynamoDB Local instead, to
// check the expectations again:
//
//	CALGRAPH_TEST_DYNAMODB=http://127.0.0.1:8000 go test ./internal/engine -reference
package engine
