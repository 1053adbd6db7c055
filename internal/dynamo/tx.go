package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
)

// Transactions: every write that touches more than one item is one
// TransactWriteItems call, built as a write value (write.go) of txOps and
// sent by commit. Limits (DynamoDB's): at most 100
// actions, never two on the same item, 4 MB in total. Each conditional action
// carries an explanation that turns its failed condition into the precise domain
// error; when the condition of more than one action fails, the first in order
// wins, so callers put permission checks first.

// txOp is one action of a write and how to explain its condition failing.
type txOp struct {
	action types.TransactWriteItem
	key    itemKey
	// failed explains a failed condition given the item as it was, nil if absent.
	failed func(old item) error
	err    error // a construction error, reported by apply
}

// explainFunc builds a txOp's failure explanation.
type explainFunc = func(old item) error

func opPut(key itemKey, record any, cond expression.ConditionBuilder, failed explainFunc) txOp {
	it, err := marshal(record)
	op := txOp{key: key, failed: failed, err: err}
	expr, err := buildCondition(cond)
	if op.err == nil {
		op.err = err
	}
	op.action.Put = &types.Put{
		Item: it, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: returnOld(expr),
	}
	return op
}

func opDelete(key itemKey, cond expression.ConditionBuilder, failed explainFunc) txOp {
	expr, err := buildCondition(cond)
	op := txOp{key: key, failed: failed, err: err}
	op.action.Delete = &types.Delete{
		Key: key.av(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: returnOld(expr),
	}
	return op
}

func opCheck(key itemKey, cond expression.ConditionBuilder, failed explainFunc) txOp {
	expr, err := buildCondition(cond)
	op := txOp{key: key, failed: failed, err: err}
	op.action.ConditionCheck = &types.ConditionCheck{
		Key: key.av(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return op
}

func opUpdate(key itemKey, upd expression.UpdateBuilder, cond expression.ConditionBuilder, failed explainFunc) txOp {
	b := expression.NewBuilder().WithUpdate(upd)
	if cond.IsSet() {
		b = b.WithCondition(cond)
	}
	expr, err := b.Build()
	op := txOp{key: key, failed: failed, err: err}
	op.action.Update = &types.Update{
		Key: key.av(), UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return op
}

// noCondition is the condition of an action that cannot fail, such as writing
// an entry's pieces once the entry item's own condition holds.
func noCondition() expression.ConditionBuilder { return expression.ConditionBuilder{} }

func buildCondition(cond expression.ConditionBuilder) (expression.Expression, error) {
	if !cond.IsSet() {
		return expression.Expression{}, nil
	}
	return expression.NewBuilder().WithCondition(cond).Build()
}

// returnOld asks for the item as it was when a condition exists to fail.
func returnOld(expr expression.Expression) types.ReturnValuesOnConditionCheckFailure {
	if expr.Condition() == nil {
		return ""
	}
	return types.ReturnValuesOnConditionCheckFailureAllOld
}

// commit applies w atomically, as one TransactWriteItems call: the
// idempotency marker first when w asked for one and the request's marker is
// still to be written, then w's actions (raising the revisions its logs name,
// revisions.go), its stats updates (stats.go) and its change records
// (changes.go). Cancellations caused by contention or throttling are retried
// with backoff; a failed condition is returned as the failing action's
// explanation, but for a stats totals update's, which only means a later
// moment is kept: the write is sent again at once without its moment. Once
// it commits, the commit hook is told which logs it added to.
func (s *Store) commit(ctx context.Context, w *write) (err error) {
	if s.onWrite != nil {
		s.onWrite(w.Plan())
	}
	ops, err := withRevisions(w.ops, w.revised())
	if err != nil {
		return err
	}
	refs := w.logs
	if s.noChangeRecords {
		refs = nil
	}
	if req := w.req; req != nil && req.Claim() {
		// First, so that a replay is what a concurrent attempt reports.
		ops = append([]txOp{s.markerOp(req)}, ops...)
		defer func() {
			if err != nil { // the next transaction carries it
				req.Release()
			}
		}()
	}
	for _, op := range ops {
		if op.err != nil {
			return fmt.Errorf("build transaction: %w", op.err)
		}
	}
	counted := w.tallyChanges()
	stats := statsOps(counted)
	history := historyOps(w, s.timestamp()) // after stats: a retry rebuilds the stats alone
	if n := len(ops) + len(stats) + len(history) + len(refs); n > maxTxActions {
		return fmt.Errorf("a transaction of %d actions (%d change records, %d for stats, %d history records)", n, len(refs), len(stats), len(history))
	}
	if s.beforeTransact != nil {
		s.beforeTransact(ctx)
	}
	in := &dynamodb.TransactWriteItemsInput{}
	for attempt := 1; ; attempt++ {
		// A fresh token per attempt: a retry after a cancellation is a new
		// transaction, and must not be mistaken for a replay of the first one.
		// Its change records take a fresh position too (changes.go).
		in.ClientRequestToken = aws.String(uuid.NewString())
		in.TransactItems = in.TransactItems[:0]
		for _, op := range slices.Concat(ops, stats, history, s.changeOps(refs)) {
			if op.err != nil {
				return fmt.Errorf("build change record: %w", op.err)
			}
			in.TransactItems = append(in.TransactItems, withTable(op.action, s.table))
		}
		_, err := s.db.TransactWriteItems(ctx, in)
		if err == nil {
			s.committed(refs)
			return nil
		}
		tce, ok := errors.AsType[*types.TransactionCanceledException](err)
		if !ok {
			return fmt.Errorf("transact %d items: %w", len(ops), err)
		}
		lost := false
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) != "ConditionalCheckFailed" {
				continue
			}
			if i < len(ops) {
				return s.explain(ctx, ops[i], r.Item)
			}
			if i < len(ops)+len(stats) {
				dropped, rerr := s.momentsLost(ctx, counted, stats[i-len(ops)].key, r.Item)
				if rerr != nil {
					return rerr
				}
				lost = lost || dropped
			}
		}
		if lost && attempt < maxAttempts { // at once: nothing to wait for
			stats = statsOps(counted)
			continue
		}
		if !retryableCancellation(tce) || attempt == maxAttempts {
			return fmt.Errorf("transaction cancelled after %d attempts (%s): %w", attempt, reasonCodes(tce), err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return fmt.Errorf("transaction retry: %w", err)
		}
	}
}

// explain turns a failed condition into op's domain error. DynamoDB returns the
// item as it was when asked to, but not every engine does for every action, so an
// absent item is confirmed with a consistent read.
func (s *Store) explain(ctx context.Context, op txOp, old item) error {
	if op.failed == nil {
		return fmt.Errorf("condition failed on %s/%s with no explanation", op.key.PK, op.key.SK)
	}
	if len(old) == 0 {
		out, err := s.reads.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.table), Key: op.key.av(), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return fmt.Errorf("read %s/%s after failed condition: %w", op.key.PK, op.key.SK, err)
		}
		old = out.Item
	}
	if len(old) == 0 {
		old = nil
	}
	return op.failed(old)
}

func withTable(a types.TransactWriteItem, table string) types.TransactWriteItem {
	switch {
	case a.Put != nil:
		a.Put.TableName = aws.String(table)
	case a.Delete != nil:
		a.Delete.TableName = aws.String(table)
	case a.Update != nil:
		a.Update.TableName = aws.String(table)
	case a.ConditionCheck != nil:
		a.ConditionCheck.TableName = aws.String(table)
	}
	return a
}

func reasonCodes(tce *types.TransactionCanceledException) string {
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return strings.Join(codes, ",")
}

// commitSmall applies w as commit does, but for a write of a single Put,
// Update or Delete with nothing else to carry (no marker, change record,
// revision or stats), which goes out as a plain conditional PutItem,
// UpdateItem or DeleteItem: half a transaction's cost. Refused because a
// transaction holds its item (TransactionConflictException, which the SDK
// does not retry), it is retried as a cancelled transaction is.
func (s *Store) commitSmall(ctx context.Context, w *write) error {
	if !w.single() {
		return s.commit(ctx, w)
	}
	op := w.ops[0]
	for attempt := 1; ; attempt++ {
		err := s.writeOne(ctx, op.action)
		if ccf, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
			return s.explain(ctx, op, ccf.Item)
		}
		if _, ok := errors.AsType[*types.TransactionConflictException](err); !ok || attempt == maxAttempts {
			if err != nil {
				return fmt.Errorf("write %s/%s: %w", op.key.PK, op.key.SK, err)
			}
			return nil
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return fmt.Errorf("write retry: %w", err)
		}
	}
}

// writeOne sends a transaction's action a as the single-item call it is.
func (s *Store) writeOne(ctx context.Context, a types.TransactWriteItem) error {
	var err error
	switch {
	case a.Update != nil:
		u := a.Update
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
			ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure,
		})
	case a.Put != nil:
		p := a.Put
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(s.table), Item: p.Item, ConditionExpression: p.ConditionExpression,
			ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure,
		})
	default:
		d := a.Delete
		_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.table), Key: d.Key, ConditionExpression: d.ConditionExpression,
			ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure,
		})
	}
	return err
}

// Conditions used by the writes.

func notExists() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrPK))
}

func exists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(attrPK))
}

func versionIs(v int) expression.ConditionBuilder {
	return exists().And(expression.Name("version").Equal(expression.Value(v)))
}

// roleIn holds when a membership exists with one of roles.
func roleIn[R ~string](roles []R) expression.ConditionBuilder {
	ops := make([]expression.OperandBuilder, len(roles))
	for i, r := range roles {
		ops[i] = expression.Value(string(r))
	}
	return exists().And(expression.Name("role").In(ops[0], ops[1:]...))
}
