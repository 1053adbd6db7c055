package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Stats implements calendar.StatsService with one TransactGetItems of the
// user item (for their time zone), their totals, the item their stats were
// kept in before the trees, and the tree nodes statsNodesAt names: at most
// 34 items, whatever the user holds.
func (s *Store) Stats(ctx context.Context) (calendar.Stats, error) {
	uncacheable(ctx, whyClock) // the trees it reads are the clock's
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return calendar.Stats{}, err
	}
	now := s.now()
	keys := []itemKey{userKey(viewer), statsTotalsKey(viewer), statsKey(viewer)}
	nodes := statsNodesAt(now)
	for _, n := range nodes {
		keys = append(keys, statsNodeKey(viewer, n))
	}
	items, err := s.transactGet(ctx, keys)
	if err != nil {
		return calendar.Stats{}, fmt.Errorf("stats of %s: %w", viewer, err)
	}
	zone := ""
	if items[0] != nil {
		u, err := unmarshal[userRecord](items[0])
		if err != nil {
			return calendar.Stats{}, fmt.Errorf("stats of %s: %w", viewer, err)
		}
		zone = u.user().Preferences.TimeZone
	}
	counts := statsCounts{}
	for i, n := range nodes {
		if err := counts.decodeNode(n, items[3+i]); err != nil {
			return calendar.Stats{}, fmt.Errorf("stats of %s, node %s: %w", viewer, keys[3+i].SK, err)
		}
	}
	st, err := statsFrom(calendar.StatsTimeAt(now, zone), items[1], counts)
	if err != nil {
		return calendar.Stats{}, fmt.Errorf("stats of %s: %w", viewer, err)
	}
	if items[2] != nil {
		old, err := decodeLegacyStats(items[2])
		if err != nil {
			return calendar.Stats{}, fmt.Errorf("stats of %s: %w", viewer, err)
		}
		old.TimeZone = zone
		st = st.Plus(old.Stats(now))
		s.foldLegacyStats(ctx, viewer, items[2])
	}
	return st, nil
}

// statsNodesAt names the nodes a read at now needs, whatever the user's
// zone: the upcoming window's for instants (up to 8 days and two paths of 4
// nodes below them), the due times' path to now (8), and for days, with
// today anywhere from the day before now's UTC date to the day after (the
// zones run from UTC-12 to UTC+14), the starts' nodes from then to a week
// later (2) and the due days' paths (5): at most 31.
func statsNodesAt(now time.Time) []statsNode {
	a := ceilMilli(now)
	utc := dayNumber(calendar.DateOf(now.UTC()))
	nodes := startsAt.betweenNodes(a, a+calendar.UpcomingDays*msDay)
	nodes = append(nodes, startsOn.betweenNodes(utc-1, utc+1+calendar.UpcomingDays)...)
	nodes = append(nodes, duesAt.pathNodes(a)...)
	for d := utc - 1; d <= utc+1; d++ {
		nodes = append(nodes, duesOn.pathNodes(d)...)
	}
	seen := map[statsNode]bool{}
	out := nodes[:0]
	for _, n := range nodes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// statsFrom evaluates a user's totals item and tree counts at at.
func statsFrom(at calendar.StatsTime, totals item, c statsCounts) (calendar.Stats, error) {
	r, err := unmarshal[statsTotalsRecord](totals)
	if err != nil {
		return calendar.Stats{}, err
	}
	st := calendar.Stats{TotalEvents: r.Events, TotalTasks: r.Tasks}
	if r.LastCreated != 0 {
		st.LastEventCreated = time.UnixMilli(r.LastCreated).UTC()
	}
	if r.LastCompleted != 0 {
		st.LastTaskCompleted = time.UnixMilli(r.LastCompleted).UTC()
	}
	a, today := ceilMilli(at.Now), dayNumber(at.Today)
	st.UpcomingEvents = c.between(startsAt, a, a+calendar.UpcomingDays*msDay) + c.between(startsOn, today, today+calendar.UpcomingDays)
	st.OverdueTasks = c.before(duesAt, a) + c.before(duesOn, today)
	return st, nil
}

// transactGet reads keys in one TransactGetItems, serializable with
// transactions, and returns their items in order (nil for none). It is
// retried, as a transaction is, while writes in flight cancel it.
func (s *Store) transactGet(ctx context.Context, keys []itemKey) ([]item, error) {
	in := &dynamodb.TransactGetItemsInput{}
	for _, k := range keys {
		in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: aws.String(s.table), Key: k.av()}})
	}
	for attempt := 1; ; attempt++ {
		out, err := s.db.TransactGetItems(ctx, in)
		if err == nil {
			items := make([]item, len(keys))
			for i, r := range out.Responses {
				if len(r.Item) > 0 {
					items[i] = r.Item
				}
			}
			return items, nil
		}
		tce, ok := errors.AsType[*types.TransactionCanceledException](err)
		if !ok || !retryableCancellation(tce) || attempt == maxAttempts {
			return nil, fmt.Errorf("transactional read of %d items after %d attempts: %w", len(keys), attempt, err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return nil, fmt.Errorf("transactional read retry: %w", err)
		}
	}
}
