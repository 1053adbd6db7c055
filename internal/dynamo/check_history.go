package dynamo

import (
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// checkHistory verifies that no write of an entry or series is missing from
// its history: the newest record is of the root's current seq (its version
// plus its exception revision; a root still at seq 1 may have none, its item
// standing for its CREATED record), and each record's prev is the record held
// right before it, until the record that begins its stay in the calendar,
// a chain that ends (history began after the entry was written), or a
// prev whose ring slot a later record took over (history_write.go).
// Records of entries no longer in the calendar (deleted, moved away) are
// left alone: they are that calendar's record of them until it goes.
func (c *checker) checkHistory(calendarID string, entries map[string]entryRecord, histories map[string][]historyRecord) {
	for root, records := range histories {
		for _, r := range records {
			if k := historyKey(calendarID, root, r.Seq%historyKept); r.SK != k.SK {
				c.problem("calendar %s: history record %d of %s is in slot %s, want %s", calendarID, r.Seq, root, r.SK, k.SK)
			}
		}
	}
	for id, e := range entries {
		records := histories[id]
		if len(records) == 0 {
			if e.UpdatedBy != "" && e.Version+e.Xrev != 1 { // at seq 1, its CREATED record is derived from its item
				c.problem("calendar %s: entry %s was written since history began (by %s) but has no history", calendarID, id, e.UpdatedBy)
			}
			continue
		}
		slices.SortFunc(records, func(a, b historyRecord) int { return b.Seq - a.Seq })
		if want := e.Version + e.Xrev; records[0].Seq != want {
			c.problem("calendar %s: entry %s is at seq %d but its newest history record is %d", calendarID, id, want, records[0].Seq)
			continue
		}
		slot := map[int]int{} // the seq each ring slot holds
		for _, r := range records {
			slot[r.Seq%historyKept] = r.Seq
		}
		for i, r := range currentHistory(records) {
			if r.Prev == 0 || calendar.HistoryAction(r.Action).Begins() || slot[r.Prev%historyKept] > r.Prev {
				break // it begins, or the ring has since dropped what it follows
			}
			if i+1 == len(records) {
				break // history began with it
			}
			if next := records[i+1]; next.Seq != r.Prev {
				c.problem("calendar %s: entry %s's history record %d follows %d, but the record before it is %d", calendarID, id, r.Seq, r.Prev, next.Seq)
				break
			}
		}
	}
}
