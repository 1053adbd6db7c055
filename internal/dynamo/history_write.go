package dynamo

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// An entry's history (calendar.HistoryRecord) is written by the write that
// changes it, derived from what the write already says: each Tally names an
// entry or series master before and after, and Occurrence a series' change
// of one occurrence. commit puts one record per entry or series changed
// (history.go); Size counts them, so writes that split their work keep
// within DynamoDB's limit.
//
// A record's seq is the root's version plus, for a series, its exception
// revision (xrev): a write of the master raises the version and keeps the
// revision, a write of one occurrence raises the revision alone, so every
// write of a root raises seq, and the record names the seq it follows
// (prev). A change of one occurrence is conditioned on the revision as read
// (series.go), so two such changes cannot both take the same seq.
//
// A root's first record, CREATED at seq 1, is not written by the write that
// creates it: until the root is next written, its item at seq 1 holds
// exactly what that record would say (its fields, updatedBy, updatedAt), so
// EntryHistory derives the record from the item (createdRecord). The next
// write of the root, which rewrites or deletes that item, puts the derived
// record beside its own, from the root as it read it. An entry created and
// never changed, most of a calendar, so costs its creation one action and
// two WCU less, and one changed costs the same as before, one write later.

// noted is one occurrence's change, made by actor, in the series whose
// master (as read, with exception revision xrev) the write keeps.
type noted struct {
	actor   string
	master  *calendar.Entry
	xrev    int
	was, is *calendar.Entry
}

// historyChange is one history record a write puts.
type historyChange struct {
	calendarID, rootID string
	seq, prev          int
	actor              string
	action             calendar.HistoryAction
	originalStart      time.Time
	was, is            *calendar.Entry
	at                 time.Time // when the change was made; zero: the write's own moment
}

// createdRecord is the CREATED record of root e as its item holds it at seq
// 1, unchanged since the write that created it: made by e's updatedBy at
// its updatedAt, from no values to e's.
func createdRecord(e *calendar.Entry) historyChange {
	return historyChange{calendarID: e.CalendarID, rootID: e.ID, seq: 1, actor: e.UpdatedBy,
		action: calendar.HistoryCreated, is: e, at: e.UpdatedAt}
}

// derivedCreated reports whether root e, at seq, has its CREATED record
// only in its item, derived (createdRecord): it is at seq 1 and was
// written since history began. An entry written before history (no
// updatedBy) has none, and starts its history with its next change.
func derivedCreated(e *calendar.Entry, seq int) bool {
	return seq == 1 && e.UpdatedBy != ""
}

// Revision says that the series master id was read with exception revision
// xrev, which its history's seq counts (a single entry has none: 0).
func (w *write) Revision(id string, xrev int) {
	if w.xrevs == nil {
		w.xrevs = map[string]int{}
	}
	w.xrevs[id] = xrev
}

// Restore counts entry e, brought back from the trash by actor, as any
// write of an entry does (Tally), its history record saying RESTORED and
// following the deletion's: e's version must be the deletion's record's seq
// plus one.
func (w *write) Restore(actor string, e *calendar.Entry) {
	if w.restored == nil {
		w.restored = map[string]bool{}
	}
	w.restored[e.ID] = true
	w.Tally(actor, nil, e)
}

// Occurrence adds the history record of a change of one occurrence of the
// series master (read with exception revision xrev) from was to is, made
// by actor: the write raises the revision by one.
func (w *write) Occurrence(actor string, master *calendar.Entry, xrev int, was, is *calendar.Entry) {
	w.notes = append(w.notes, noted{actor, master, xrev, was, is})
}

// histories lists the history records the write puts: one per entry or
// series its tallies and notes change, a move (the entry's delete from one
// calendar and put in another) being one record, in the calendar it goes
// to. A calendar's deletion writes none: the history goes with it.
func (w *write) histories() []historyChange {
	if w.gone {
		return nil
	}
	var out []historyChange
	for i, t := range w.tallies {
		switch {
		case t.is == nil && w.movedTo(t.was.ID, i) != nil:
			continue // its record is the move's, where it goes
		case t.is == nil:
			seq := t.was.Version + w.xrevs[t.was.ID]
			out = appendFollowing(out, t.was, seq, historyChange{calendarID: t.was.CalendarID, rootID: t.was.ID, seq: seq + 1, prev: seq,
				actor: t.actor, action: calendar.HistoryDeleted, was: t.was})
			continue
		}
		h := historyChange{calendarID: t.is.CalendarID, rootID: t.is.ID, seq: t.is.Version + w.xrevs[t.is.ID],
			actor: t.actor, action: calendar.HistoryUpdated, was: t.was, is: t.is}
		switch was := w.movedFrom(t.is.ID, i); {
		case was != nil:
			h.action, h.was, h.prev = calendar.HistoryMoved, was, was.Version
		case t.was == nil && w.restored[t.is.ID]:
			h.action, h.prev = calendar.HistoryRestored, h.seq-1 // the deletion's record
		case t.was == nil:
			h.action = calendar.HistoryCreated
			if derivedCreated(t.is, h.seq) {
				continue // its item holds it until the next write
			}
		default:
			h.prev = t.was.Version + w.xrevs[t.was.ID]
			out = appendFollowing(out, t.was, h.prev, h)
			continue
		}
		out = append(out, h)
	}
	for _, n := range w.notes {
		seq := n.master.Version + n.xrev
		out = appendFollowing(out, n.master, seq, historyChange{calendarID: n.master.CalendarID, rootID: n.master.ID, seq: seq + 1, prev: seq,
			actor: n.actor, action: calendar.HistoryOccurrence, originalStart: occurrenceStart(n), was: n.was, is: n.is})
	}
	return out
}

// appendFollowing appends h, a record that follows root at seq as the
// write read it, to out, after root's CREATED record when that is still
// only derived from root's item, which this write rewrites or deletes.
func appendFollowing(out []historyChange, root *calendar.Entry, seq int, h historyChange) []historyChange {
	if derivedCreated(root, seq) {
		out = append(out, createdRecord(root))
	}
	return append(out, h)
}

// movedTo returns the entry that tally i's deleted entry id becomes in
// another calendar in the same write (MoveEntry), or nil.
func (w *write) movedTo(id string, i int) *calendar.Entry {
	for j, t := range w.tallies {
		if j != i && t.was == nil && t.is != nil && t.is.ID == id {
			return t.is
		}
	}
	return nil
}

// movedFrom returns the entry that tally i's new entry id was in another
// calendar before the same write, or nil.
func (w *write) movedFrom(id string, i int) *calendar.Entry {
	for j, t := range w.tallies {
		if j != i && t.is == nil && t.was != nil && t.was.ID == id {
			return t.was
		}
	}
	return nil
}

func occurrenceStart(n noted) time.Time {
	if n.is != nil {
		return n.is.OriginalStart
	}
	return n.was.OriginalStart
}

// editedBy marks what a series change writes as last changed by viewer:
// the master when it is rewritten, the series split off, the exceptions
// it writes (not those a split only carries over to the new series) and
// the occurrence it returns.
func editedBy(edit *calendar.SeriesEdit, viewer string) {
	if edit.MasterChanged() && edit.Master != nil {
		edit.Master.UpdatedBy = viewer
	}
	if edit.Split != nil {
		edit.Split.UpdatedBy = viewer
	}
	for _, x := range edit.Put {
		if edit.Split == nil || x.SeriesID != edit.Split.ID {
			x.UpdatedBy = viewer
		}
	}
	if edit.Result != nil {
		edit.Result.UpdatedBy = viewer
	}
}

// occurrenceChanged returns, for a change of one occurrence alone (the
// master kept), the occurrence before and after it: its exception written
// (edit.Put) or dropped back to the rule (edit.Drop).
func occurrenceChanged(st *storedSeries, edit *calendar.SeriesEdit) (was, is *calendar.Entry, ok bool) {
	var orig time.Time
	var put *calendar.Entry
	switch {
	case len(edit.Put) == 1:
		put, orig = edit.Put[0], edit.Put[0].OriginalStart
	case len(edit.Drop) == 1:
		orig = edit.Drop[0].OriginalStart
	default:
		return nil, nil, false
	}
	was = st.Master.OccurrenceAt(orig)
	if prev := edit.Old.Exception(orig); prev != nil {
		was = was.Overlay(prev)
	}
	is = st.Master.OccurrenceAt(orig)
	if put != nil {
		is = is.Overlay(put)
	}
	return was, is, true
}
