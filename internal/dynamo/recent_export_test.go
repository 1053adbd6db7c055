package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
)

// CreateTableWithout creates a table as a version before index did:
// without that global secondary index.
func CreateTableWithout(ctx context.Context, db *dynamodb.Client, table, index string) error {
	gsis := slices.DeleteFunc(slices.Clone(indexes), func(ix gsi) bool { return ix.name == index })
	if err := createTable(ctx, db, table, gsis); err != nil {
		return err
	}
	return waitActive(ctx, db, table)
}

// PutLateHint puts a change record of calendarID's log, with its hint, at
// a position the watch's last read was well past (twice recentOverlap
// before it): a transaction that took that long to commit, or an index
// that lagged that much.
func PutLateHint(ctx context.Context, s *Store, w calendar.WriteWatch, calendarID string) error {
	pos := w.(*writeWatch).last.Add(-2 * recentOverlap).UnixMicro()
	k := changeKey(calendarPartition(calendarID), pos, "0000001a")
	it, err := marshal(changeRecord{PK: k.PK, SK: k.SK, EntityType: entityChange, Object: changedCalendar,
		ExpiresAt: time.Now().Add(s.retention).Unix(), Recent: recentShardKey(k.PK)})
	if err != nil {
		return err
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it}); err != nil {
		return fmt.Errorf("put late hint: %w", err)
	}
	return nil
}

// SetDeepReadDue makes the watch's next read go back the whole overlap
// window (as it does every deepReadEvery), or only recentOverlap before its
// last read.
func SetDeepReadDue(w calendar.WriteWatch, due bool) {
	ww := w.(*writeWatch)
	ww.deep = time.Time{}
	if !due {
		ww.deep = time.Now().Add(time.Hour)
	}
}

// SetMaxHints lowers how many hints one read of the watch goes through.
func SetMaxHints(w calendar.WriteWatch, n int) { w.(*writeWatch).maxHints = n }

// RecentShards is how many shards the recent-writes index has.
const RecentShards = recentShards
