package dynamo

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A series' master keeps, for each occurrence moved alone, the count of
// occurrence moves its last move made (calendar.Attendance.Resets) as a
// top-level number attribute rs#<original start>, beside attMoves, the
// count itself. A THIS move of an occurrence (W17) raises attMoves, sets
// its mark and adds to its THIS share what brings its summary to all
// NEEDS_ACTION, in the Update that raises the master's exception revision,
// on condition that the master's attendance is as read (attRev, which it
// raises too): the share is worked out from the summary it read. Answers
// require attMoves as read (respondSeries), so that one racing a move is
// built again after it, with the move's correction at that occurrence.

// resetPrefix starts the name of a reset mark attribute.
const resetPrefix = "rs#"

// resetAttr is the attribute of the reset mark of the occurrence
// originally at orig.
func resetAttr(orig time.Time) string {
	k, _ := calendar.AnswerKey{From: orig}.MarshalText() // never fails
	return resetPrefix + string(k[1:])
}

// readReset reads reset mark attribute name = av into r.
func readReset(r *entryRecord, name string, av types.AttributeValue) error {
	var k calendar.AnswerKey
	if err := k.UnmarshalText([]byte("O" + strings.TrimPrefix(name, resetPrefix))); err != nil {
		return err
	}
	n, err := nAttr(av)
	if err != nil {
		return err
	}
	if r.Resets == nil {
		r.Resets = map[time.Time]int{}
	}
	r.Resets[k.From] = n
	return nil
}

// occurrenceResetWrite returns the Update of master (as read) that resets
// the answers at its occurrence originally at orig, moved alone by a THIS
// edit: the exception revision raised as every exception write raises it,
// the master's version and attendance as read (an answer given meanwhile
// has the edit built again), and the attendance the reset leaves, which it
// returns. Errors: CodeInvalid past calendar.MaxOccurrenceResets or
// calendar.MaxSeriesAnswerKeys.
func occurrenceResetWrite(master *calendar.Entry, xrev int, orig time.Time) (txOp, calendar.Attendance, error) {
	att, d, err := master.Attendance.ResetOccurrence(orig)
	if err != nil {
		return txOp{}, att, err
	}
	var shares map[calendar.AnswerKey]calendar.AttendeeSummary
	if d != (calendar.AttendeeSummary{}) {
		shares = map[calendar.AnswerKey]calendar.AttendeeSummary{{From: orig.UTC()}: d}
	}
	add, cond, err := shareWrites(master, shares)
	if err != nil {
		return txOp{}, att, calendar.Invalidf("timing", "this series holds answers to %d occurrences apart, the most it keeps, and moving this one alone would need one more: move the series (ALL) or split it (THIS_AND_FOLLOWING) instead", len(master.Attendance.Shares))
	}
	upd := add(expression.Add(expression.Name(attrXrev), expression.Value(1)).
		Add(expression.Name(attrAttRev), expression.Value(1)).
		Set(expression.Name(attrAttMoves), expression.Value(att.Moves)).
		Set(expression.Name(resetAttr(orig)), expression.Value(att.Moves)))
	cond = and(cond, versionIs(master.Version).And(xrevIs(xrev)).And(attendanceAsRead(master.Attendance.Rev)).And(numberIs(attrAttMoves, master.Attendance.Moves)))
	return opUpdate(entryKey(master.CalendarID, master.ID), upd, cond, resetRaced(master)), att, nil
}

// resetMovedOccurrence returns occurrenceResetWrite's Update for edit, a
// THIS edit moving the occurrence originally at orig, and makes the
// occurrence it returns show the reset (its summary all NEEDS_ACTION).
func resetMovedOccurrence(st *storedSeries, edit *calendar.SeriesEdit, orig time.Time) (txOp, error) {
	op, att, err := occurrenceResetWrite(st.Master, st.xrev, orig)
	if err != nil {
		return op, err
	}
	if edit.Result != nil {
		m := *st.Master
		m.Attendance = att
		edit.Result = m.OccurrenceAt(orig).Overlay(edit.Put[0])
	}
	return op, nil
}

// resetRaced explains a failed occurrenceResetWrite: a change of the series
// is the client's VERSION_CONFLICT; a change of its attendance alone (an
// answer, or another occurrence moved) has the edit built again. A change
// of another occurrence's title or place fails nothing.
func resetRaced(master *calendar.Entry) explainFunc {
	return func(old item) error {
		if old != nil {
			if r, err := decodeEntryRecord(old); err == nil && r.Version == master.Version {
				return errAttendanceMoved
			}
		}
		return seriesChanged("series")(old)
	}
}
