package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The schedule of reminders. What is due is read from the front of two
// sorted places, each spread over a few shards:
//   - wakes (GSI5, on entry items): an entry or series whose next
//     occurrences' reminders are to be armed (remind_arming.go). Every write of
//     an entry puts its wake in its own item (wakeOf): no action is added to
//     any transaction, and no write can leave an entry unscheduled.
//   - due items (DUE#<shard> partitions): kind F, one reminder of one user
//     to fire (remind_fire.go); kind S, a snoozed alert to fire again; kinds
//     A and C, a user's reminders to arm again on one entry or on a whole
//     calendar, written by the transactions that change the user's
//     reminders or default reminders.
// A scheduler (internal/remind) reads both every poll on every instance
// and hands each item to DoReminderTask. Due items are claimed with a
// lease before they are acted on (claim), so two instances never fire one
// reminder at once, and an instance that stops mid-way leaves its lease to
// run out: another takes the item up, late, never lost. Firing itself is
// once: the alert's key is the reminder's identity (remind_fire.go).

// Due item kinds.
const (
	dueFire      = "F" // F#<user ID>#<alert ID>
	dueSnooze    = "S" // S#<user ID>#<alert ID>
	dueArmEntry  = "A" // A#<calendar ID>#<entry ID>#<user ID>
	dueArmPeople = "C" // C#<calendar ID>#<user ID>
)

// reminderLease is how long a claim on a due item holds: past it, another
// instance takes the item up.
const reminderLease = 30 * time.Second

// dueRecord is a due item.
type dueRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	Kind       string `dynamodbav:"kind"`
	UserID     string `dynamodbav:"userId"`
	CalendarID string `dynamodbav:"calendarId"`
	EntryID    string `dynamodbav:"entryId"`
	// Alert is the alert a fire or snooze item makes, as its ID's text.
	Alert string `dynamodbav:"alert,omitempty"`
	// Start is when the occurrence started when the reminder was armed.
	Start string `dynamodbav:"start,omitempty"`
	// Since bounds what an arm item arms: reminders due from then on.
	Since      string `dynamodbav:"since,omitempty"`
	LeaseUntil string `dynamodbav:"leaseUntil,omitempty"`
	LeaseBy    string `dynamodbav:"leaseBy,omitempty"`
}

// dueRef is the part of a due item's sort key after its instant.
func (d *dueRecord) ref() string {
	switch d.Kind {
	case dueFire, dueSnooze:
		return d.Kind + "#" + d.UserID + "#" + d.Alert
	case dueArmEntry:
		return d.Kind + "#" + d.CalendarID + "#" + d.EntryID + "#" + d.UserID
	}
	return d.Kind + "#" + d.CalendarID + "#" + d.UserID
}

// newDue returns the due item of kind at instant at, keyed.
func newDue(at time.Time, d dueRecord) dueRecord {
	d.EntityType = entityDue
	k := dueKey(at, d.ref())
	d.PK, d.SK = k.PK, k.SK
	return d
}

// at is the instant a due item is due at, read from its sort key.
func (d *dueRecord) at() (time.Time, error) {
	at, _, ok := strings.Cut(d.SK, "#")
	if !ok {
		return time.Time{}, fmt.Errorf("due item %s/%s: no instant", d.PK, d.SK)
	}
	return time.Parse(time.RFC3339Nano, at)
}

// ReminderTasks returns what of the schedule is due at now: up to max due
// items of each shard (strongly consistent) and max wakes of each shard
// of GSI5 (eventually consistent: a wake written a moment ago may come at
// the next poll), earliest first. Leased items are left out until their
// lease runs out.
func (s *Store) ReminderTasks(ctx context.Context, now time.Time, max int) ([]calendar.ReminderTask, error) {
	var tasks []calendar.ReminderTask
	hi := instantKey(now) + "#~"
	for n := range dueShards {
		q := keyQuery{pkAttr: attrPK, partition: duePartition(fmt.Sprint(n)), sk: skBetween(attrSK, "0", hi),
			consistent: true, limit: int32(max)}
		out, err := s.reads.Query(ctx, q.input(s.table))
		if err != nil {
			return nil, fmt.Errorf("read due reminders: %w", err)
		}
		for _, it := range out.Items {
			if lease := stringAttr(it, "leaseUntil"); lease != "" && lease > instantKey(now) {
				continue
			}
			tasks = append(tasks, calendar.ReminderTask{Ref: [2]string{stringAttr(it, attrPK), stringAttr(it, attrSK)}})
		}
	}
	for n := range wakeShards {
		q := keyQuery{index: indexGSI5, pkAttr: attrGSI5PK, partition: wakePartition(fmt.Sprint(n)),
			sk: skBetween(attrGSI5SK, "0", hi), limit: int32(max)}
		out, err := s.reads.Query(ctx, q.input(s.table))
		if err != nil {
			return nil, fmt.Errorf("read reminder wakes: %w", err)
		}
		for _, it := range out.Items {
			k := keyOf(it)
			tasks = append(tasks, calendar.ReminderTask{Wake: true, Ref: [2]string{k.PK, k.SK}})
		}
	}
	return tasks, nil
}

// DoReminderTask does one task ReminderTasks returned, at now: arms a wake's
// entry, or claims a due item and acts on it. A task another instance
// holds, or that is gone, is no error.
func (s *Store) DoReminderTask(ctx context.Context, t calendar.ReminderTask, now time.Time) error {
	if t.Wake {
		return s.armWake(ctx, itemKey{PK: t.Ref[0], SK: t.Ref[1]}, now)
	}
	d, ok, err := s.claim(ctx, itemKey{PK: t.Ref[0], SK: t.Ref[1]}, now)
	if err != nil || !ok {
		return err
	}
	switch d.Kind {
	case dueFire:
		err = s.fire(ctx, d, now)
	case dueSnooze:
		err = s.snoozeRanOut(ctx, d, now)
	case dueArmEntry:
		err = s.armForUser(ctx, d, now)
	case dueArmPeople:
		err = s.armCalendarForUser(ctx, d, now)
	default:
		err = fmt.Errorf("due item %s/%s: unknown kind %q", d.PK, d.SK, d.Kind)
	}
	if err != nil {
		return fmt.Errorf("reminder task %s: %w", d.SK, err)
	}
	return nil
}

// claim leases a due item until now + reminderLease, unless another claim
// holds a lease that has not run out (ok false), and returns it as claimed,
// its LeaseBy naming this claim. Each claim is its own holder (a new UUID),
// not the instance: a claim the SDK sends again, its first attempt applied
// but its answer lost with the connection, finds the lease it took and goes
// on (claimedBy), where "free" alone would refuse it and leave the reminder
// until the lease ran out; and another claim of the same instance, which
// must be refused, never matches it
// (TestReminderClaimAppliedBeforeItsConnectionFailed).
func (s *Store) claim(ctx context.Context, k itemKey, now time.Time) (dueRecord, bool, error) {
	until := instantKey(now.Add(reminderLease))
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: k.av(),
		UpdateExpression:         aws.String("SET #lu = :until, #lb = :me"),
		ConditionExpression:      aws.String("attribute_exists(#pk) AND (attribute_not_exists(#lu) OR #lu < :now OR #lb = :me)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#lu": "leaseUntil", "#lb": "leaseBy"},
		ExpressionAttributeValues: item{":until": str(until), ":me": str(uuid.NewString()),
			":now": str(instantKey(now))},
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return dueRecord{}, false, nil
	}
	if err != nil {
		return dueRecord{}, false, fmt.Errorf("claim %s/%s: %w", k.PK, k.SK, err)
	}
	d, err := unmarshal[dueRecord](out.Attributes)
	return d, err == nil, err
}

// finishDue deletes a due item its claim still holds; one whose lease ran
// out and passed to another claim is left to it.
func (s *Store) finishDue(ctx context.Context, d dueRecord) error {
	w := newWrite()
	w.Delete(itemKey{PK: d.PK, SK: d.SK}, leaseHeld(d.LeaseBy), func(item) error { return errDueLeaseLost })
	err := s.commitSmall(ctx, w)
	if errors.Is(err, errDueLeaseLost) {
		return nil
	}
	return err
}

// errDueLeaseLost: a due item's lease passed to another instance before this
// one was done (it does the work again; what is done is not done twice).
var errDueLeaseLost = errors.New("the lease of a due item ran out")
