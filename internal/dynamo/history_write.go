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
			out = append(out, historyChange{calendarID: t.was.CalendarID, rootID: t.was.ID, seq: seq + 1, prev: seq,
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
		default:
			h.prev = t.was.Version + w.xrevs[t.was.ID]
		}
		out = append(out, h)
	}
	for _, n := range w.notes {
		seq := n.master.Version + n.xrev
		out = append(out, historyChange{calendarID: n.master.CalendarID, rootID: n.master.ID, seq: seq + 1, prev: seq,
			actor: n.actor, action: calendar.HistoryOccurrence, originalStart: occurrenceStart(n), was: n.was, is: n.is})
	}
	return out
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
