package calendar

import (
	"slices"
	"time"
)

// TimeMoved reports whether an edit from before to after moves when the entry
// happens: the one change that sends its attendees' answers back to
// NEEDS_ACTION (issue 25), since an answer to "Tuesday at 10" says nothing
// about Wednesday. A new title, description, place or attendee list keeps
// every answer. The time moves when its start or end instant moves, when its
// whole days change, or when it turns from timed to whole days or back. A
// new time zone alone moves nothing on a single entry whose instants stay
// (its clocks are only read elsewhere), but does on a series, whose later
// occurrences keep their wall clock in the zone and so land elsewhere across
// a DST change; on a series a new rule or new added dates (RDATE) move it
// too, and so does becoming a series or ceasing to be one.
func TimeMoved(before, after *Entry) bool {
	if before.Dated() != after.Dated() || before.StartDate != after.StartDate || before.EndDate != after.EndDate {
		return true
	}
	if !before.Start.Equal(after.Start) || !before.End.Equal(after.End) {
		return true
	}
	if (before.Recurrence == nil) != (after.Recurrence == nil) {
		return true // occurrences appear or go: an answer to one is no answer to the others
	}
	if after.Recurrence == nil {
		return false
	}
	// A new rule or new added dates move or add occurrences; new excluded
	// dates only take some away, and the answers to the rest stand.
	return before.TimeZone != after.TimeZone || before.Recurrence.Rule != after.Recurrence.Rule ||
		!slices.EqualFunc(before.Recurrence.RDates, after.Recurrence.RDates, time.Time.Equal)
}

// AnswerCurrent is the one rule for whether a stored answer, given at answer
// epoch answerEpoch, still stands on an entry now at answer epoch epoch:
// only when no time change came after it. Every reader of attendees applies
// it (through At, or the store's filters that mirror it).
func AnswerCurrent(answerEpoch, epoch int) bool { return answerEpoch >= epoch }

// At returns a as it reads on an entry at answer epoch epoch: a itself while
// its answer is current, else a copy back to NEEDS_ACTION, with no comment,
// additional guests, proposed time, seat, waitlist ticket or answer time
// (they answered another time), at epoch. Who was invited, by whom and
// when, and the item's version stay.
func (a *Attendee) At(epoch int) *Attendee {
	if a == nil || AnswerCurrent(a.Epoch, epoch) {
		return a
	}
	c := a.unanswered()
	c.Epoch = epoch
	c.Occurrences = nil // a series attendee's answers to occurrences go too
	return &c
}

// unanswered returns a copy of a back at NEEDS_ACTION, as At describes.
func (a Attendee) unanswered() Attendee {
	a.Response, a.Comment, a.AdditionalGuests = ResponseNeedsAction, "", 0
	a.ProposedStart, a.ProposedEnd, a.RespondedAt = time.Time{}, time.Time{}, time.Time{}
	a.Waitlisted, a.Ticket = false, 0
	return a
}

// ResetAnswers returns att with every answer sent back to NEEDS_ACTION: a
// new answer epoch, every attendee counted as NEEDS_ACTION (no head count),
// and the waitlist emptied, since a place promised for the old time is no
// promise for the new one; tickets keep counting, so that those who accept
// again wait behind no one from before. Rev rises too, so that an attendee
// write built on the old epoch fails its condition and is built again.
func (att Attendance) ResetAnswers() Attendance {
	att.Summary = AttendeeSummary{NeedsAction: att.Summary.Total()}
	att.Shares = nil // the occurrence answers' shares: none stands
	att.Resets = nil // nor an occurrence's reset: every answer is older
	att.Epoch++
	att.Rev++
	return att
}

// ResetAnswersIfMoved resets the answers (ResetAnswers) of after, an edit
// of before, when the edit moves its time (TimeMoved) and it has attendees.
func ResetAnswersIfMoved(before, after *Entry) {
	if after.Attendance.Summary.Total() > 0 && TimeMoved(before, after) {
		after.Attendance = after.Attendance.ResetAnswers()
	}
}
