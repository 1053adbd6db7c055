package dynamo

import "github.com/calgraph/calgraph/internal/calendar"

// checkAttendees recounts each entry's attendees and compares the count
// with the summary its entry item and pieces keep (attendees.go), and
// checks each attendee's index keys and change record.
func (c *checker) checkAttendees(calendarID string, entries map[string]entryRecord, pieces []entryRecord, attendees []attendeeRecord) {
	recount := map[string]calendar.AttendeeSummary{}
	shares := map[string]map[calendar.AnswerKey]calendar.AttendeeSummary{}
	tickets := map[string]map[int]bool{}
	for _, r := range attendees {
		e, ok := entries[r.EntryID]
		// A split under way copies attendees before its series exists, off
		// GSI1 (series_split.go): its pending item vouches for them.
		// So does a restore's, and a deletion's made in steps vouches for
		// the attendees it has yet to remove (trash_steps.go).
		underWay := r.SplitPending && (c.pending[pendingSplit+"#"+splitPendingID(calendarID, r.EntryID)] ||
			c.pending[pendingRestore+"#"+trashPendingID(calendarID, r.EntryID)])
		if r.SplitPending && !underWay {
			c.problem("calendar %s: attendee %s is a split's copy, but no split is under way", calendarID, r.SK)
		}
		if !ok && (underWay || c.moving(calendarID, r.EntryID)) {
			continue
		}
		if !ok {
			c.problem("calendar %s: attendee %s of a missing entry %s", calendarID, r.SK, r.EntryID)
			continue
		}
		a, err := r.attendee()
		if err != nil {
			c.problem("calendar %s: attendee %s: %v", calendarID, r.SK, err)
			continue
		}
		if !calendar.AnswerCurrent(e.AttEpoch, a.Epoch) {
			c.problem("calendar %s: attendee %s answered at epoch %d, after its entry's %d", calendarID, r.SK, a.Epoch, e.AttEpoch)
		}
		moves := a.Moves
		for _, o := range a.Occurrences {
			moves = max(moves, o.Moves)
		}
		if moves > e.AttMoves {
			c.problem("calendar %s: attendee %s answered after %d occurrence moves, of its series' %d", calendarID, r.SK, moves, e.AttMoves)
		}
		want := newAttendeeRecord(a, r.UpdatedAt) // its keys as stored
		a = a.At(e.AttEpoch)                      // what it counts
		s := recount[r.EntryID]
		s.Count(a, 1)
		recount[r.EntryID] = s
		if len(a.Occurrences) > 0 || len(e.Resets) > 0 {
			_, keys := calendar.ShareChange(nil, a, e.Resets)
			shares[r.EntryID] = addShares(shares[r.EntryID], keys)
		}
		if len(a.Occurrences) > calendar.MaxOccurrenceAnswers || len(a.Occurrences) > 0 && e.EntityType != entitySeries {
			c.problem("calendar %s: attendee %s keeps %d occurrence answers on a %s", calendarID, r.SK, len(a.Occurrences), e.EntityType)
		}
		if underWay {
			want.GSI1PK, want.GSI1SK = "", ""
		}
		if r.PK != want.PK || r.SK != want.SK || r.GSI1PK != want.GSI1PK || r.GSI1SK != want.GSI1SK || r.LSI2SK != want.LSI2SK {
			c.problem("calendar %s: attendee %s is not under its keys (GSI1 %q, LSI2 %q)", calendarID, r.SK, r.GSI1SK, r.LSI2SK)
		}
		if a.Waitlisted {
			if a.Ticket < 1 || a.Ticket > e.AttTickets || tickets[r.EntryID][a.Ticket] {
				c.problem("calendar %s: attendee %s waits with ticket %d, of %d handed out", calendarID, r.SK, a.Ticket, e.AttTickets)
			}
			if tickets[r.EntryID] == nil {
				tickets[r.EntryID] = map[int]bool{}
			}
			tickets[r.EntryID][a.Ticket] = true
		}
		c.wantChange(r.UpdatedAt, changeRef{calendarPartition(calendarID), changedEntry + r.EntryID}, "attendee "+r.SK)
	}
	for id, e := range entries {
		if got, want := e.attendance().Summary, recount[id]; got != want || e.AttHeads != want.HeadCount() {
			c.problem("calendar %s: entry %s keeps the summary %+v (head count %d), its attendees count %+v", calendarID, id, got, e.AttHeads, want)
		}
		c.checkShares(calendarID, e, shares[id])
		for orig, mark := range e.Resets {
			if mark < 1 || mark > e.AttMoves {
				c.problem("calendar %s: series %s marks its occurrence at %v reset at move %d, of %d", calendarID, id, orig, mark, e.AttMoves)
			}
		}
		if len(e.Resets) > calendar.MaxOccurrenceResets {
			c.problem("calendar %s: series %s keeps %d occurrence resets", calendarID, id, len(e.Resets))
		}
	}
	for _, p := range pieces {
		if e, ok := entries[p.ID]; ok && (p.attendance().Summary != e.attendance().Summary || p.AttEpoch != e.AttEpoch) {
			c.problem("calendar %s: piece %s keeps the summary %+v at epoch %d, its entry %+v at %d", calendarID, p.SK, p.attendance().Summary, p.AttEpoch, e.attendance().Summary, e.AttEpoch)
		}
	}
}

// checkShares compares the occurrence answer shares a series' master keeps
// (series_answers.go) with those its attendees' answers make: every key's
// counts, a key kept with nothing left in it counting as none, and the
// count of keys it holds.
func (c *checker) checkShares(calendarID string, e entryRecord, want map[calendar.AnswerKey]calendar.AttendeeSummary) {
	for k, got := range e.Shares {
		if got != want[k] {
			c.problem("calendar %s: series %s keeps the share %+v at %v, its attendees' answers make %+v", calendarID, e.ID, got, k, want[k])
		}
	}
	for k, w := range want {
		if _, ok := e.Shares[k]; !ok && w != (calendar.AttendeeSummary{}) {
			c.problem("calendar %s: series %s keeps no share at %v, its attendees' answers make %+v", calendarID, e.ID, k, w)
		}
	}
	if len(e.Shares) != e.AttKeys || e.AttKeys > calendar.MaxSeriesAnswerKeys {
		c.problem("calendar %s: series %s holds %d share keys and counts %d (at most %d)", calendarID, e.ID, len(e.Shares), e.AttKeys, calendar.MaxSeriesAnswerKeys)
	}
}
