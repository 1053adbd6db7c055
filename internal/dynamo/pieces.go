package dynamo

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Range views read one Query per calendar: LSI1 orders entries by the start of
// their reach (calendar.Entry.Reach), and a view of [from, to) reads the keys
// from from−pieceSpan up to to. An entry whose reach is at most pieceSpan long
// is found that way with a single item. A longer entry is stored as pieces: the
// entry item, then a full copy every pieceSpan along its reach, so that one
// piece always starts within pieceSpan before any instant the entry covers.
// Views therefore never scan history, however long ago an entry began, at the
// cost of reading up to pieceSpan of earlier starts.
//
// pieceSpan and maxPieces are chosen together: the longest entry
// (calendar.MaxEntryDays plus the zone margins of a dated entry's reach) fits in
// maxPieces, and moving one between calendars, which deletes and puts every
// piece plus three checks, fits DynamoDB's 100 actions per transaction.
const (
	pieceSpan = 8 * 24 * time.Hour
	maxPieces = 48
)

// pieceStarts returns where each piece of the entry's reach starts; the first
// is the entry item itself.
func pieceStarts(e *calendar.Entry) []time.Time {
	start, end := e.Reach()
	starts := []time.Time{start}
	for t := start.Add(pieceSpan); t.Before(end); t = t.Add(pieceSpan) {
		starts = append(starts, t)
	}
	return starts
}
