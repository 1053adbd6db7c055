package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// How a write is built: every store method that changes the table builds one
// write value, saying with a call each thing its transaction holds, and hands
// it to commit (tx.go). Nothing is added that the method does not ask for:
//
//	w := newWrite()
//	w.Idempotent(ctx)                       // the request's idempotency marker, if it has one
//	w.Guard(roleCheck(cal, viewer, action)) // conditions on items left as they are
//	w.Put(key, record, notExists(), explain) // and Update, Delete, Add (helpers' actions), Book
//	w.LogEntry(cal, entryID)                // a change record, and the calendar's revision raised
//	w.Tally(viewer, was, is)                // what the entry changes in its creator's stats, and its history record
//	return s.commit(ctx, w)
//
// Size counts the actions the transaction will hold, these included, against
// DynamoDB's limit of maxTxActions, and Room is what is left: writes that
// split their work ask it instead of counting for themselves. Plan lists the
// actions as text (write_plan_test.go pins each public write's plan).

// write is one atomic write of the table, built by the calls that describe
// it (see above); newWrite returns an empty one.
type write struct {
	ops      []txOp          // Guard, Put, Update, Delete, Add and Book, in the order made
	logs     []changeRef     // LogCalendar, LogMember, LogEntry: one change record each
	raises   []string        // the calendars whose revision the logs raise
	tallies  []tallied       // Tally
	notes    []noted         // Occurrence: a series' changes of one occurrence
	xrevs    map[string]int  // Revision: a series master's exception revision, by ID
	restored map[string]bool // Restore: entries brought back from the trash, by ID
	req      *calendar.IdempotentRequest
	asked    bool // Idempotent was called
	gone     bool // CalendarGone: Log raises no revision
}

// tallied is one entry's change counted in its users' stats; actor makes it.
type tallied struct {
	actor   string
	was, is *calendar.Entry
}

func newWrite() *write { return &write{} }

// Idempotent makes the write carry the idempotency marker of the request ctx
// holds (calendar.Once), unless an earlier write of the request carried it:
// the request's first write that commits marks it applied, so that a replay
// finds it. It costs an action whenever asked (Size reserves it).
func (w *write) Idempotent(ctx context.Context) {
	w.asked = true
	if req, ok := calendar.IdempotencyOf(ctx); ok {
		w.req = req
	}
}

// CalendarGone says the write acts in the partition of a deleted calendar,
// whose item is gone: its Log calls raise no revision (there is no item to
// raise).
func (w *write) CalendarGone() { w.gone = true }

// Guard adds a condition on an item the write leaves as it is (a
// ConditionCheck such as roleCheck); the write fails with its explanation
// when the condition does not hold.
func (w *write) Guard(op txOp) { w.ops = append(w.ops, op) }

// Put adds the put of record at key under cond, explained by failed when cond
// does not hold.
func (w *write) Put(key itemKey, record any, cond expression.ConditionBuilder, failed explainFunc) {
	w.ops = append(w.ops, opPut(key, record, cond, failed))
}

// Update adds an update of the item at key under cond.
func (w *write) Update(key itemKey, upd expression.UpdateBuilder, cond expression.ConditionBuilder, failed explainFunc) {
	w.ops = append(w.ops, opUpdate(key, upd, cond, failed))
}

// Delete adds the delete of the item at key under cond.
func (w *write) Delete(key itemKey, cond expression.ConditionBuilder, failed explainFunc) {
	w.ops = append(w.ops, opDelete(key, cond, failed))
}

// Add adds actions a helper built (an entry's item and pieces, a feed's end,
// an owner tally's update), in order.
func (w *write) Add(ops ...txOp) { w.ops = append(w.ops, ops...) }

// Book adds the bookings of a resource calendar (slotWrites) the write takes
// and releases: the slot and day items, whose conditions refuse a clash
// (commitBooking names the booking it was with).
func (w *write) Book(ops ...txOp) { w.ops = append(w.ops, ops...) }

// LogCalendar adds a change record of the calendar itself (its item) to its
// log. Each Log call's record is a table item; the first of each log in the
// write also puts a GSI4 item, its recent-writes hint (see Plan).
func (w *write) LogCalendar(calendarID string) {
	w.log(changeRef{calendarPartition(calendarID), changedCalendar})
}

// LogMember adds a change record of userID's membership of calendarID to the
// calendar's log and the user's, and raises the calendar's revision.
func (w *write) LogMember(calendarID, userID string) {
	w.log(changeRef{calendarPartition(calendarID), changedMember + userID})
	w.log(changeRef{userPartition(userID), changedMember + calendarID})
	w.raise(calendarID)
}

// LogOwnMembership adds a change record of userID's membership of
// calendarID to the user's log alone, raising no revision: a change only
// they see (their settings of the calendar, settings.go), which reaches
// their calendar list sync and their other devices, and nobody else.
func (w *write) LogOwnMembership(calendarID, userID string) {
	w.log(changeRef{userPartition(userID), changedMember + calendarID})
}

// LogEntry adds a change record of an entry or series (with its pieces and
// exceptions) to its calendar's log, and raises the calendar's revision.
func (w *write) LogEntry(calendarID, entryID string) {
	w.log(changeRef{calendarPartition(calendarID), changedEntry + entryID})
	w.raise(calendarID)
}

// LogInvitation adds a change record of an attendee's invitation to their
// own log, when they are a calgraph user (an external address has none):
// how they learn of being invited, removed, or of their answer changing.
func (w *write) LogInvitation(a *calendar.Attendee) {
	if a.UserID != "" {
		w.log(changeRef{userPartition(a.UserID), invitationObject(a.CalendarID, a.EntryID)})
	}
}

func (w *write) log(r changeRef) {
	for _, have := range w.logs {
		if have == r {
			return
		}
	}
	w.logs = append(w.logs, r)
}

func (w *write) raise(calendarID string) {
	for _, id := range w.raises {
		if id == calendarID {
			return
		}
	}
	w.raises = append(w.raises, calendarID)
}

// Tally adds what replacing entry was with is (either nil for none) changes
// in its users' stats (stats.go), actor making the change: commit adds the
// updates of their stats items, and the entry's history record (history.go)
// unless the write is a calendar's deletion (CalendarGone).
func (w *write) Tally(actor string, was, is *calendar.Entry) {
	if was == nil && is == nil {
		return
	}
	w.tallies = append(w.tallies, tallied{actor, was, is})
}

// tallyChanges sums what the write's tallies change, by user.
func (w *write) tallyChanges() map[string]*calendar.Tally {
	var out map[string]*calendar.Tally
	for _, t := range w.tallies {
		if out == nil {
			out = map[string]*calendar.Tally{}
		}
		calendar.MergeTallies(out, calendar.TallyChange(t.actor, t.was, t.is))
	}
	return out
}

// Size is how many actions the write's transaction holds: its own, one per
// revision raise that no action on the calendar's item takes, its stats
// updates, its history records, its change records, and its idempotency
// marker when asked for.
func (w *write) Size() int {
	n := len(w.ops) + len(w.logs) + len(statsOps(w.tallyChanges())) + len(w.histories())
	for _, id := range w.revised() {
		if opOn(w.ops, calendarKey(id)) < 0 {
			n++
		}
	}
	if w.asked {
		n++
	}
	return n
}

// Room is how many more actions the write can take within DynamoDB's limit.
func (w *write) Room() int { return maxTxActions - w.Size() }

// revised lists the calendars whose revision the write raises.
func (w *write) revised() []string {
	if w.gone {
		return nil
	}
	return w.raises
}

// single reports whether the write is one Put, Update or Delete and nothing
// else: a plain single-item call instead of a transaction (commitSmall).
func (w *write) single() bool {
	if len(w.ops) != 1 || len(w.logs) > 0 || len(w.tallies) > 0 || len(w.notes) > 0 || len(w.revised()) > 0 || (w.req != nil && !w.req.Marked()) {
		return false
	}
	op := w.ops[0]
	return op.err == nil && op.action.ConditionCheck == nil
}

// Plan lists the write's transaction as commit sends it, an action a line:
// "Put CAL#…/ENTRY#… if attribute_not_exists (PK)", with names and values
// written in. The idempotency marker and change records, which commit
// stamps with the moment it sends them, show what they are instead of
// their timestamps. The first change record of each log also carries its
// recent-writes hint (GSI4PK, changeOps), so DynamoDB writes one GSI4 item
// for it (1 WCU) beside the table's: the one item a write adds that is not a
// line here.
func (w *write) Plan() []string {
	var lines []string
	if w.req != nil && !w.req.Marked() {
		k := idempotencyItemKey(w.req.Name)
		lines = append(lines, fmt.Sprintf("Put %s/%s if absent or expired (idempotency marker)", k.PK, k.SK))
	}
	ops, err := withRevisions(w.ops, w.revised())
	if err != nil {
		return append(lines, "cannot be built: "+err.Error())
	}
	for _, op := range slices.Concat(ops, statsOps(w.tallyChanges())) {
		lines = append(lines, planLine(op))
	}
	for _, h := range w.histories() {
		k := historyKey(h.calendarID, h.rootID, h.seq%historyKept)
		lines = append(lines, fmt.Sprintf("Put %s/%s history record %d of %s after %d (%s)", k.PK, k.SK, h.seq, h.rootID, h.prev, h.action))
	}
	for _, r := range w.logs {
		lines = append(lines, fmt.Sprintf("Put %s/%s… change record of %s", r.partition, prefixChange, r.object))
	}
	return lines
}

// planLine writes op as a line of a Plan.
func planLine(op txOp) string {
	var verb string
	var update, cond *string
	var names map[string]string
	var values item
	switch a := op.action; {
	case a.Put != nil:
		verb, cond, names, values = "Put", a.Put.ConditionExpression, a.Put.ExpressionAttributeNames, a.Put.ExpressionAttributeValues
	case a.Update != nil:
		verb, update, cond = "Update", a.Update.UpdateExpression, a.Update.ConditionExpression
		names, values = a.Update.ExpressionAttributeNames, a.Update.ExpressionAttributeValues
	case a.Delete != nil:
		verb, cond, names, values = "Delete", a.Delete.ConditionExpression, a.Delete.ExpressionAttributeNames, a.Delete.ExpressionAttributeValues
	default:
		c := a.ConditionCheck
		verb, cond, names, values = "Check", c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues
	}
	var pairs [][2]string
	for k, v := range names {
		pairs = append(pairs, [2]string{k, v})
	}
	for k, v := range values {
		pairs = append(pairs, [2]string{k, valueText(v)})
	}
	// Longer placeholders first, so that #10 is not read as #1 and a 0.
	slices.SortFunc(pairs, func(a, b [2]string) int { return cmp.Or(len(b[0])-len(a[0]), strings.Compare(a[0], b[0])) })
	var r []string
	for _, p := range pairs {
		r = append(r, p[0], p[1])
	}
	written := strings.NewReplacer(r...)
	line := fmt.Sprintf("%s %s/%s", verb, op.key.PK, op.key.SK)
	if update != nil {
		line += " " + written.Replace(aws.ToString(update))
	}
	if cond != nil {
		line += " if " + written.Replace(aws.ToString(cond))
	}
	return strings.Join(strings.Fields(line), " ") // the builder's clauses come a line each
}

// valueText writes an expression value as a Plan shows it.
func valueText(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberL:
		return fmt.Sprintf("[%d values]", len(v.Value))
	case *types.AttributeValueMemberM:
		return fmt.Sprintf("{%d fields}", len(v.Value))
	}
	return fmt.Sprintf("%T", v)
}
