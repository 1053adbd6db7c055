package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// respondSeries answers as attendee was of series e (its master item as
// read): for the whole series, one occurrence or every one from one on
// (calendar.AnswerSeries). One transaction puts the attendee item and ADDs
// what the answer changes to the master's summary and shares (ShareChange),
// on condition that the master keeps the answer epoch and the count of
// occurrence moves it was read at (an answer racing a move of the series'
// time, or of one occurrence's, is built again after it) and
// the generation of exceptions it was read with (a change of the series' timing or rule writes a new one, and
// the occurrence must be looked for again) and that the occurrence
// answered, when one is, is not cancelled. An occurrence the series does
// not have, or a cancelled one, is NOT_FOUND. The answer is the series
// entry's change (its change record), as every change of its exceptions is.
func (s *Store) respondSeries(ctx context.Context, masterItem item, e *calendar.Entry, was *calendar.Attendee, r calendar.RSVP) (*calendar.Attendee, error) {
	rec, err := decodeEntryRecord(masterItem)
	if err != nil {
		return nil, err
	}
	w := newWrite()
	w.Idempotent(ctx)
	if !r.Occurrence.IsZero() {
		check, err := s.liveOccurrence(ctx, e, rec.Gen, r)
		if err != nil {
			return nil, err
		}
		w.Add(check)
	}
	now := s.timestamp()
	is, err := calendar.AnswerSeries(r, *was, e.FirstStart(), e.Attendance.Moves, now)
	if err != nil {
		return nil, err
	}
	base, keys := calendar.ShareChange(was, &is, e.Attendance.Resets)
	shares, cond, err := shareWrites(e, keys)
	if err != nil {
		return nil, err
	}
	cond = and(cond, genIs(rec.Gen)).And(numberIs(attrAttEpoch, e.Attendance.Epoch)).And(numberIs(attrAttMoves, e.Attendance.Moves))
	w.Add(summaryWrites(e, 1, base, cond, shares)...)
	w.Add(attendeePut(&is, was.Version, now))
	w.LogInvitation(&is)
	w.LogEntry(e.CalendarID, e.ID)
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("respond to series %s: %w", e.ID, err)
	}
	if r.Occurrence.IsZero() {
		return &is, nil
	}
	out := is.AtOccurrence(r.Occurrence, e.Attendance.ResetOf(r.Occurrence))
	out.Version = is.Version
	return out, nil
}

// liveOccurrence checks that series e (at exception generation gen) has
// the occurrence r answers, not cancelled, and returns the transaction's
// check that it still is not cancelled. Errors: CodeNotFound.
func (s *Store) liveOccurrence(ctx context.Context, e *calendar.Entry, gen string, r calendar.RSVP) (txOp, error) {
	if !s.recur.Has(e, r.Occurrence) {
		return txOp{}, calendar.Errorf(calendar.CodeNotFound, "occurrence not found: the series has none at %s", r.Occurrence.UTC().Format(time.RFC3339))
	}
	xk := entryKey(e.CalendarID, exceptionID(e.ID, gen, r.Occurrence))
	items, err := s.batchGet(ctx, []itemKey{xk})
	if err != nil {
		return txOp{}, err
	}
	if items[xk] != nil {
		x, err := decodeEntryRecord(items[xk])
		if err != nil {
			return txOp{}, err
		}
		if x.Cancelled {
			return txOp{}, calendar.Errorf(calendar.CodeNotFound, "occurrence not found: it is cancelled")
		}
	}
	notCancelled := expression.AttributeNotExists(expression.Name("cancelled")).Or(expression.Name("cancelled").Equal(expression.Value(false)))
	return opCheck(xk, notCancelled, func(item) error { return errAttendanceMoved }), nil
}

// genIs holds while a master's current exception generation is gen.
func genIs(gen string) expression.ConditionBuilder {
	c := expression.Name("gen").Equal(expression.Value(gen))
	if gen == "" {
		return expression.AttributeNotExists(expression.Name("gen")).Or(c)
	}
	return c
}
