package calendar

import (
	"maps"
	"time"
)

// Answers reset at one occurrence. A move of one occurrence of a series
// alone (scope THIS) resets the answers to it and to it only: an answer to
// "Tuesday at 10" says nothing about Wednesday, but the other Tuesdays
// stand. No attendee item is rewritten: the master counts such moves
// (Attendance.Moves), every answer carries the count it was given at
// (Attendee.Moves, OccurrenceAnswer.Moves), and the master keeps for each
// occurrence so moved the count its last move made (Attendance.Resets); an
// answer older than its occurrence's mark reads as NEEDS_ACTION there
// (AtOccurrence). The move adds to the occurrence's THIS share what brings
// its summary to all NEEDS_ACTION (ResetOccurrence), and every later
// attendee write adds its correction at each reset occurrence it covers
// (Shares), so the summary at each occurrence stays exact without counting
// attendees.

// MaxOccurrenceResets bounds the occurrences of a series moved alone whose
// reset its master keeps. A mark cannot be dropped without counting the
// attendees (the answers from before the move would count again), so a
// move of one more occurrence past it is refused (CodeInvalid); a move of
// the series' time (ALL) resets every answer and clears them all. A mark
// is a name of about 20 bytes and a number: 100 are at most 3 KB on the
// master, which every view of the series reads.
const MaxOccurrenceResets = 100

// ResetOf returns the count at which the occurrence originally at orig was
// last moved alone (0: never): the Reset it shows.
func (att Attendance) ResetOf(orig time.Time) int { return att.Resets[orig.UTC()] }

// ResetOccurrence returns att, a series master's attendance, with the
// answers at its occurrence originally at orig reset (one more move
// counted, its mark at that count), and d, what that adds to orig's THIS
// share: what brings the summary there to every attendee at NEEDS_ACTION.
// Errors: CodeInvalid past MaxOccurrenceResets.
func (att Attendance) ResetOccurrence(orig time.Time) (out Attendance, d AttendeeSummary, err error) {
	orig = orig.UTC()
	if _, had := att.Resets[orig]; !had && len(att.Resets) >= MaxOccurrenceResets {
		return att, d, Invalidf("timing", "this series has %d occurrences moved apart, the most it keeps: move the series (ALL) or split it (THIS_AND_FOLLOWING) instead", len(att.Resets))
	}
	d = addSummary(AttendeeSummary{NeedsAction: att.Summary.Total()}, att.SummaryAt(orig), -1)
	out = att
	out.Moves++
	out.Rev++
	out.Resets = maps.Clone(att.Resets)
	if out.Resets == nil {
		out.Resets = map[time.Time]int{}
	}
	out.Resets[orig] = out.Moves
	if d != (AttendeeSummary{}) {
		out.Shares = maps.Clone(att.Shares)
		if out.Shares == nil {
			out.Shares = map[AnswerKey]AttendeeSummary{}
		}
		k := AnswerKey{From: orig}
		out.Shares[k] = addSummary(out.Shares[k], d, 1)
	}
	return out, d, nil
}

// MovedAlone reports whether edit moves one occurrence of a series with
// attendees alone (scope THIS: its start or end, its days, or timed to
// all-day and back; TimeMoved), and returns its original start: the
// answers to it are to be reset (ResetOccurrence). A cancellation moves
// nothing, nor does a THIS edit of the title or place.
func (e *SeriesEdit) MovedAlone() (time.Time, bool) {
	m := e.Old.Master
	if e.MasterChanged() || e.Split != nil || e.Regenerate || len(e.Put) != 1 || m.Attendance.Summary.Total() == 0 {
		return time.Time{}, false
	}
	x := e.Put[0]
	if x.Cancelled || x.SeriesID != m.ID {
		return time.Time{}, false
	}
	at := m.OccurrenceAt(x.OriginalStart)
	was := at
	if old := e.Old.Exception(x.OriginalStart); old != nil {
		was = at.Overlay(old)
	}
	return x.OriginalStart, TimeMoved(was, at.Overlay(x))
}
