package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxCandidates bounds the index items one range Query may read: the entries
// of the view plus those of the lookback (see pieces.go).
const maxCandidates = 2 * calendar.MaxViewEntries

// EntriesReaching implements calendar.EntryReader with one strongly consistent
// LSI1 Query over the calendar's partition (more only past 1 MB of results).
func (s *Store) EntriesReaching(ctx context.Context, calendarID string, from, to time.Time) ([]*calendar.Entry, error) {
	// The upper bound takes in every key of to's millisecond: keys hold
	// milliseconds and to may have more; Select drops what does not overlap.
	cond := expression.Key(attrPK).Equal(expression.Value(calendarPartition(calendarID))).
		And(expression.Key(attrLSI1SK).Between(expression.Value(reachBound(from.Add(-pieceSpan))), expression.Value(reachBound(to)+"~")))
	expr, err := expression.NewBuilder().WithKeyCondition(cond).Build()
	if err != nil {
		return nil, fmt.Errorf("build range condition: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(s.table), IndexName: aws.String(indexLSI1), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	var entries []*calendar.Entry
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query entries of calendar %s: %w", calendarID, err)
		}
		if len(entries)+len(out.Items) > maxCandidates {
			return nil, calendar.Invalidf("range", "this range holds too many entries: narrow it")
		}
		for _, it := range out.Items {
			e, err := decodeEntryItem(it)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return entries, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Tasks implements calendar.EntryReader with an LSI2 Query: open tasks by due
// ascending, completed tasks by completion descending (seed 003's timelines).
func (s *Store) Tasks(ctx context.Context, calendarID string, completed bool, p calendar.Page) (*calendar.TaskPage, error) {
	prefix := prefixOpenTasks
	if completed {
		prefix = prefixDoneTasks
	}
	res, err := s.queryPage(ctx, pageQuery{
		index: indexLSI2, pkAttr: attrPK, skAttr: attrLSI2SK, partition: calendarPartition(calendarID),
		prefix: prefix, descending: completed, consistent: true, page: p,
	})
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

func decodeEntryItem(it item) (*calendar.Entry, error) {
	r, err := unmarshal[entryRecord](it)
	if err != nil {
		return nil, err
	}
	return r.entry()
}
