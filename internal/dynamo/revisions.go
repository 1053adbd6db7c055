package dynamo

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Calendar revisions (calendar.Calendar.Revision; the view cache's key, see
// viewcache.go).
//
// Written: a write that logs a change of an entry, a series (with its
// pieces and exceptions) or a membership (write.LogEntry, write.LogMember)
// raises its calendar's revision in the same transaction (commit): the
// revision rises with every change the log records. The raise is
// "ADD rev 1" on the calendar item, conditioned on the item existing, so a
// write racing with its calendar's deletion fails with CodeNotFound instead
// of bringing back a calendar item holding nothing but a revision. When the
// transaction acts on the calendar item already, the raise joins that
// action: an Update gains the ADD, a ConditionCheck becomes an Update with its
// condition; a Put (a new calendar, revision 0) or a Delete needs none.
// The deletion of a deleted calendar's partition raises nothing (there is no
// item left to raise; write.CalendarGone).
//
// Cost: one more item in the transaction (2 WCU), and writes to one calendar
// contend on its item: DynamoDB cancels one of two transactions that touch it
// at once (TransactionConflict), which commit retries with backoff.

// attrRevision is the calendar item's revision; absent is 0.
const attrRevision = "rev"

// withRevisions returns ops with the revisions of calendars raised (see
// above): the op acting on a calendar's item changed when there is one, else
// an Update appended. The caller's slice is left as it was.
func withRevisions(ops []txOp, calendars []string) ([]txOp, error) {
	if len(calendars) == 0 {
		return ops, nil
	}
	ops = slices.Clone(ops)
	for _, id := range calendars {
		key := calendarKey(id)
		i := opOn(ops, key)
		if i < 0 {
			ops = append(ops, opRaise(key))
			continue
		}
		raised, err := joinRaise(ops[i])
		if err != nil {
			return nil, err
		}
		ops[i] = raised
	}
	return ops, nil
}

// opOn returns the index of the op acting on key, or -1.
func opOn(ops []txOp, key itemKey) int {
	for i, op := range ops {
		if op.key == key {
			return i
		}
	}
	return -1
}

// The raise's own names, apart from the expression builder's #0, :0, ….
const (
	raiseClause = "ADD #calgraphRev :calgraphOne"
	raiseName   = "#calgraphRev"
	raiseValue  = ":calgraphOne"
)

// opRaise raises the revision of the calendar whose item key is.
func opRaise(key itemKey) txOp {
	op := txOp{key: key, failed: func(item) error { return errCalendarNotFound() }}
	op.action.Update = &types.Update{
		Key: key.av(), UpdateExpression: aws.String(raiseClause),
		ConditionExpression:                 aws.String("attribute_exists(#calgraphPK)"),
		ExpressionAttributeNames:            map[string]string{raiseName: attrRevision, "#calgraphPK": attrPK},
		ExpressionAttributeValues:           item{raiseValue: &types.AttributeValueMemberN{Value: "1"}},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return op
}

// joinRaise returns op, which acts on a calendar's item, raising its revision
// too.
func joinRaise(op txOp) (txOp, error) {
	a := op.action
	switch {
	case a.Put != nil, a.Delete != nil:
		return op, nil
	case a.ConditionCheck != nil:
		c := a.ConditionCheck
		op.action = types.TransactWriteItem{Update: &types.Update{
			Key: c.Key, UpdateExpression: aws.String(raiseClause), ConditionExpression: c.ConditionExpression,
			ExpressionAttributeNames:            withName(c.ExpressionAttributeNames),
			ExpressionAttributeValues:           withValue(c.ExpressionAttributeValues),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}
		return op, nil
	default:
		u := *a.Update
		expr := aws.ToString(u.UpdateExpression)
		if strings.Contains(expr, "ADD ") {
			return op, fmt.Errorf("raise the revision of %s: its update has an ADD clause already", op.key.PK)
		}
		u.UpdateExpression = aws.String(expr + " " + raiseClause)
		u.ExpressionAttributeNames = withName(u.ExpressionAttributeNames)
		u.ExpressionAttributeValues = withValue(u.ExpressionAttributeValues)
		op.action = types.TransactWriteItem{Update: &u}
		return op, nil
	}
}

func withName(names map[string]string) map[string]string {
	out := maps.Clone(names)
	if out == nil {
		out = map[string]string{}
	}
	out[raiseName] = attrRevision
	return out
}

func withValue(values item) item {
	out := maps.Clone(values)
	if out == nil {
		out = item{}
	}
	out[raiseValue] = &types.AttributeValueMemberN{Value: "1"}
	return out
}
