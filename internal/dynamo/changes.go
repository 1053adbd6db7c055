package dynamo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Change records (the base of sync tokens and subscriptions; see
// calendar.SyncService and sync.go).
//
// Written: each write names the calendar objects it changes (write.LogCalendar,
// LogMember, LogEntry; write.go), and each gets one record in its calendar's
// partition, and each membership one in its user's partition too, in the
// same transaction. Store.Check finds any object changed without a record,
// and write_plan_test.go pins the records of every public write. A record names the
// object, not what became of it: a read of the log reads the object as it is
// then, and a missing one is a tombstone. So a record is small (about 150
// bytes: 1 WCU, 2 in a transaction) and every record is a new item with its
// own key: writers never contend for a counter or a head item.
//
// Positioned: a record's position is the time its transaction is sent, in
// microseconds, on the store's clock (clock.go). Positions are not a commit
// order: a transaction sent earlier can commit later, and two instances'
// clocks differ a little. A read therefore never trusts the last overlapWindow
// to be complete: a token keeps its lower bound overlapWindow back from the
// moment of its read and the keys of the records after that bound it has
// already delivered (sync.go). Anything that commits later than overlapWindow
// after its position would be missed; a transaction's attempts are bounded by
// the store attempt timeout (3 s by default, 3 attempts), each attempt takes a
// new position, and instances agree on the time to about a second.
//
// Hinted: the first record of each log in a transaction also carries GSI4PK,
// which puts it in the recent-writes index (recent.go): how live delivery
// learns which logs other instances wrote to without reading every log.
//
// Kept: records carry expiresAt (DynamoDB's TTL) a day past the retention, so a
// token younger than the retention always finds every record after it.

// overlapWindow is how far back of a read's moment its token starts again
// (see above).
const overlapWindow = 30 * time.Second

// changeRecord is one change record.
type changeRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	Object     string `dynamodbav:"object"`
	ExpiresAt  int64  `dynamodbav:"expiresAt"`
	// Recent is the record's recent-writes shard (recentShardKey), on the
	// first record of its log in its transaction only.
	Recent string `dynamodbav:"GSI4PK,omitempty"`
}

// changeRef is one changed object in one log.
type changeRef struct {
	partition string // calendarPartition or userPartition
	object    string // changedCalendar, changedMember+ID or changedEntry+ID
}

// idLength is the length of every object ID (a UUID).
const idLength = 36

// changeOps returns the puts of refs' change records, positioned now.
func (s *Store) changeOps(refs []changeRef) []txOp {
	if len(refs) == 0 {
		return nil
	}
	at := s.clock.writeNow()
	pos := at.UnixMicro()
	expires := at.Add(s.retention + 24*time.Hour).Unix()
	ops := make([]txOp, len(refs))
	hinted := map[string]bool{}
	for i, r := range refs {
		k := changeKey(r.partition, pos, fmt.Sprintf("%08x", rand.Uint32()))
		rec := changeRecord{PK: k.PK, SK: k.SK, EntityType: entityChange, Object: r.object, ExpiresAt: expires}
		if !hinted[r.partition] && !s.noWriteHints {
			hinted[r.partition], rec.Recent = true, recentShardKey(r.partition)
		}
		ops[i] = opPut(k, rec, noCondition(), nil)
	}
	return ops
}

// committed tells the commit hook which logs a write added to.
func (s *Store) committed(refs []changeRef) {
	if s.onCommit == nil || len(refs) == 0 {
		return
	}
	logs := make([]calendar.LogRef, 0, len(refs))
	for _, r := range refs {
		logs = append(logs, logOf(r.partition))
	}
	s.onCommit(logs)
}

// WithChangeRetention sets how long change records are kept (and sync tokens
// stay valid); calendar.DefaultChangeRetention by default.
func WithChangeRetention(d time.Duration) Option { return func(s *Store) { s.retention = d } }

// WithCommitHook sets a function told, after each write that added change
// records, which logs it added to. Live delivery wakes on it (package live);
// other instances' writes are found by reading the logs.
func WithCommitHook(f func(logs []calendar.LogRef)) Option { return func(s *Store) { s.onCommit = f } }

// WithoutWriteHints writes change records as versions before the
// recent-writes index did, without GSI4PK: tests of instances of both
// versions on one table.
func WithoutWriteHints() Option { return func(s *Store) { s.noWriteHints = true } }

// WithChangeClock sets the local clock change positions are read from before
// the store's Date headers correct it (tests give instances skewed clocks).
func WithChangeClock(now func() time.Time) Option {
	return func(s *Store) { s.clock = newStoreClock(now) }
}
