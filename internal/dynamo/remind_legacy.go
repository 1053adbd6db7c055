package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Entries written before reminders fired carry no wake (remind_due.go):
// nothing would arm them. Two ways put them on the schedule, both giving
// a wake as a write of the entry now would (wakeOf, from now instead of the
// entry's last change):
//   - Import does it to every entry item it imports (an export of an
//     earlier version, which is also how the embedded engine upgrades);
//   - EnsureTable, when it adds GSI5 to a table of an earlier version, also
//     writes a marker item; ScheduleUnscheduled, run by the server at
//     start-up, then scans the table for entry items without a wake and
//     deletes the marker when it is done (a start cut off scans again). A
//     table created with GSI5 has no marker, and is never scanned.

// legacyWakesMarker marks a table whose entries of an earlier version are
// still to be put on the schedule.
var legacyWakesMarker = itemKey{PK: "MIGRATION", SK: "REMINDER_WAKES"}

// markLegacyWakes writes the marker (EnsureTable, as it adds GSI5).
func markLegacyWakes(ctx context.Context, db *dynamodb.Client, table string) error {
	it := item{attrPK: str(legacyWakesMarker.PK), attrSK: str(legacyWakesMarker.SK), "entityType": str(entityMigration)}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		return fmt.Errorf("mark table %s's entries to put on the reminder schedule: %w", table, err)
	}
	return nil
}

// entityMigration is the entity type of a migration's marker.
const entityMigration = "MIGRATION"

// scheduleLegacy adds a wake at now to an entry item that has none and can
// still start, and returns whether it did.
func scheduleLegacy(it item, now time.Time) (bool, error) {
	switch stringAttr(it, "entityType") {
	case entityEntry, entitySeries, entityException:
	default:
		return false, nil
	}
	if stringAttr(it, attrGSI5PK) != "" {
		return false, nil
	}
	r, err := decodeEntryRecord(it)
	if err != nil || r.Piece > 0 {
		return false, err
	}
	e, err := r.entry()
	if err != nil {
		return false, err
	}
	e.UpdatedAt = now
	at, ok := wakeOf(e, placement{})
	if !ok {
		return false, nil
	}
	k := wakeIndexKey(r.CalendarID, r.ID, at)
	it[attrGSI5PK], it[attrGSI5SK] = str(k.PK), str(k.SK)
	return true, nil
}

// ScheduleUnscheduled puts on the reminder schedule every entry item
// written before it existed, when the table is marked (see above), and
// returns how many it scheduled.
func (s *Store) ScheduleUnscheduled(ctx context.Context) (int, error) {
	if _, marked, err := s.getItem(ctx, legacyWakesMarker); err != nil || !marked {
		return 0, err
	}
	n := 0
	in := &dynamodb.ScanInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("attribute_not_exists(#w) AND #et IN (:e, :s, :x)"),
		ExpressionAttributeNames:  map[string]string{"#w": attrGSI5PK, "#et": "entityType"},
		ExpressionAttributeValues: item{":e": str(entityEntry), ":s": str(entitySeries), ":x": str(entityException)}}
	for {
		page, err := s.db.Scan(ctx, in)
		if err != nil {
			return n, fmt.Errorf("scan %s for entries without a wake: %w", s.table, err)
		}
		for _, it := range page.Items {
			ok, err := scheduleLegacy(it, s.timestamp())
			if err != nil {
				return n, err
			}
			if !ok {
				continue
			}
			// Unless a write of the entry gave it a wake meanwhile.
			w := newWrite()
			w.Update(keyOf(it), expression.Set(expression.Name(attrGSI5PK), expression.Value(stringAttr(it, attrGSI5PK))).
				Set(expression.Name(attrGSI5SK), expression.Value(stringAttr(it, attrGSI5SK))),
				expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name(attrGSI5PK))),
				func(item) error { return errWakeMoved })
			if err := s.commitSmall(ctx, w); err != nil && !errors.Is(err, errWakeMoved) {
				return n, err
			}
			n++
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: legacyWakesMarker.av()}); err != nil {
		return n, fmt.Errorf("unmark the table's entries as scheduled: %w", err)
	}
	return n, nil
}
