package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxCandidates bounds the index items one range Query may read: the entries
// of the view plus those of the lookback (see pieces.go).
const maxCandidates = 2 * calendar.MaxViewEntries

// maxSeries bounds the series one calendar's range view may expand.
const maxSeries = calendar.MaxViewEntries

// seriesLookback is how long before a range a series may have ended, or after
// it begun, and still matter to it: an occurrence can be moved at most this
// far (see calendar.SeriesEdit), and its exception is found on LSI1 by the
// range, so its series must be found too.
const seriesLookback = (calendar.MaxEntryDays+1)*24*time.Hour + 2*16*time.Hour

// entriesReaching reads a calendar's range once, with two strongly
// consistent Queries of its partition sent at once: LSI1 for the single
// entries and exceptions reaching into the window, LSI2 for the series that
// have not ended long enough before it. Exceptions are returned only when
// their series is, in its current generation: others are those of a large
// change still under way or cut off (applySeriesEdit), which nothing shows.
// A calendar that never held a series costs the LSI1 Query alone.
//
// The entries' first page asks for first items (see pageReserve). It also
// returns how many calls the read took: the Queries are not one snapshot,
// and a write landing between two calls (the two Queries, or two pages of
// one) can split the read, which is why CheckRanges checks a read
// of more than one call (range_reads.go). Its pages are charged to budget
// (nil: none), the view's request budget.
func (s *Store) entriesReaching(ctx context.Context, budget *calendar.Budget, cal *calendar.Calendar, from, to time.Time, first int) ([]*calendar.Entry, int, error) {
	calendarID := cal.ID
	var spans, series []item
	var seriesPages int
	// The series Query, when there is one, runs beside the entries' Query,
	// which runs here: a goroutine less per calendar and view.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	if !cal.NeverHeldSeries {
		g.Go(func() (err error) {
			// Series that begin long after the range are read but not returned.
			lo, hi := seriesRange(from.Add(-seriesLookback))
			series, seriesPages, err = s.queryPages(gctx, budget, indexLSI2, attrLSI2SK, calendarPartition(calendarID), lo, hi, begunBefore(to.Add(seriesLookback)), maxSeries, pageReserve(0))
			return err
		})
	}
	lo, hi := reachRange(from.Add(-pieceSpan), to)
	spans, pages, err := s.queryPages(gctx, budget, indexLSI1, attrLSI1SK, calendarPartition(calendarID), lo, hi, reachesInto(from), maxCandidates, first)
	if err != nil {
		cancel() // the series Query's answer is of no use now
	}
	if werr := g.Wait(); werr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		err = werr // the series Query failed first, cancelling the entries'
	}
	if err != nil {
		return nil, 0, fmt.Errorf("query entries of calendar %s: %w", calendarID, err)
	}
	gens := map[string]string{}
	var entries []*calendar.Entry
	for _, it := range slices.Concat(series, spans) { // series first, for their generations
		r, err := decodeEntryRecord(it)
		if err != nil {
			return nil, 0, err
		}
		switch r.role() {
		case roleSeries:
			gens[r.ID] = r.Gen
		case roleException, roleExceptionPiece:
			if gen, ok := gens[r.SeriesID]; !ok || gen != r.Gen {
				continue // of an earlier generation
			}
		}
		e, err := r.entry()
		if err != nil {
			return nil, 0, err
		}
		entries = append(entries, e)
	}
	return entries, pages + seriesPages, nil
}

// reachesInto keeps the items whose reach ends at from or later: of the
// lookback's items, only those that reach into the range. DynamoDB still reads
// the others (and counts them against the Query's 1 MB and maxCandidates), but
// does not send them, so the server neither receives nor decodes them. Items
// written before reachEnd existed pass.
func reachesInto(from time.Time) filter {
	return filter{expr: "attribute_not_exists(#re) OR #re >= :from", names: map[string]string{"#re": attrReachEnd},
		values: item{":from": &types.AttributeValueMemberS{Value: instantKey(from)}}}
}

// begunBefore keeps the series whose first occurrence's reach starts before t.
func begunBefore(t time.Time) filter {
	return filter{expr: "#ss < :begun", names: map[string]string{"#ss": attrSeriesStart},
		values: item{":begun": &types.AttributeValueMemberS{Value: instantKey(t)}}}
}

// queryBetween reads the items of a partition whose sort key (in index, or
// the table when index is "") lies in [lo, hi] and that pass f, with
// strongly consistent reads, refusing more than max. It charges no request
// budget: its callers (writes, feeds, slots, deletions) are not a view, and
// max bounds what they read.
func (s *Store) queryBetween(ctx context.Context, index, skAttr, partition, lo, hi string, f filter, max int) ([]item, error) {
	items, _, err := s.queryPages(ctx, nil, index, skAttr, partition, lo, hi, f, max, pageReserve(0))
	return items, err
}

// queryPages is queryBetween charging budget (nil: none), a view's request
// budget: each page reserves its items before it is sent, the first page
// first items and the others as pageReserve says, so that a request's views
// together never hold more than the budget. It also returns how many pages
// (calls) it took.
func (s *Store) queryPages(ctx context.Context, budget *calendar.Budget, index, skAttr, partition, lo, hi string, f filter, max, first int) ([]item, int, error) {
	in := keyQuery{index: index, pkAttr: attrPK, partition: partition, sk: skBetween(skAttr, lo, hi),
		consistent: true, filter: f}.input(s.table)
	var items []item
	for page := 0; ; page++ {
		want := first
		if page > 0 {
			want = pageReserve(page)
		}
		limit, settle, err := budget.Reserve(ctx, want)
		if err != nil {
			return nil, page, err
		}
		if limit > 0 {
			in.Limit = aws.Int32(int32(limit))
		}
		out, err := s.reads.Query(ctx, in)
		if err != nil {
			settle(0)
			return nil, page + 1, err
		}
		settle(len(out.Items))
		if items = append(items, out.Items...); len(items) > max {
			return nil, page + 1, calendar.Invalidf("range", "this range holds too many entries: narrow it")
		}
		if len(out.LastEvaluatedKey) == 0 {
			return items, page + 1, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// pageReserve is how many items page (from 0) of a range Query asks for out
// of the request's budget (calendar.Budget.Reserve). A week's first page
// usually holds all of a calendar's items (about 10 in the benchmark's
// data), and asking little lets the 200 Queries of a 100-calendar week view
// (entries and series) go out in one wave within the default budget of
// 10,000; a calendar with more items in the range takes more pages, larger
// ones.
func pageReserve(page int) int {
	if page == 0 {
		return 40
	}
	return 1000
}

// Tasks implements calendar.EntryReader with an LSI2 Query: open tasks by due
// ascending, completed tasks by completion descending (seed 003's
// timelines), split at the archive's start when the viewer archives.
func (s *Store) Tasks(ctx context.Context, calendarID string, q calendar.TaskQuery, p calendar.Page) (*calendar.TaskPage, error) {
	res, err := s.queryPage(ctx, tasksQuery(calendarID, q, p))
	if err != nil {
		return nil, err
	}
	page := &calendar.TaskPage{Cursors: res.cursors, HasNextPage: res.hasNext}
	if n := len(res.cursors); n > 0 {
		page.EndCursor = res.cursors[n-1]
	}
	for _, it := range res.items {
		e, err := decodeEntryItem(it)
		if err != nil {
			return nil, err
		}
		page.Tasks = append(page.Tasks, e)
	}
	return page, nil
}

// tasksQuery lists a calendar's open, completed or archived tasks on LSI2.
func tasksQuery(calendarID string, tq calendar.TaskQuery, p calendar.Page) pageQuery {
	q := pageQuery{
		index: indexLSI2, pkAttr: attrPK, skAttr: attrLSI2SK, partition: calendarPartition(calendarID),
		prefix: prefixOpenTasks, consistent: true, page: p,
	}
	if tq.List == calendar.TasksOpen {
		return q
	}
	q.prefix, q.descending = prefixDoneTasks, true
	switch {
	case tq.List == calendar.TasksArchived && tq.ArchivedBefore.IsZero():
		q.lo, q.hi = prefixDoneTasks+"~", prefixDoneTasks+"~" // nothing is archived
	case tq.List == calendar.TasksArchived:
		q.hi = doneTaskSortKey(tq.ArchivedBefore, "")
	case !tq.ArchivedBefore.IsZero():
		q.lo = doneTaskSortKey(tq.ArchivedBefore, "")
	}
	return q
}

func decodeEntryItem(it item) (*calendar.Entry, error) {
	r, err := decodeEntryRecord(it)
	if err != nil {
		return nil, err
	}
	return r.entry()
}
