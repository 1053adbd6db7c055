package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
)

// getItem reads one item with a strongly consistent GetItem and reports
// whether it exists.
func (s *Store) getItem(ctx context.Context, k itemKey) (item, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: k.av(), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, false, fmt.Errorf("get %s/%s: %w", k.PK, k.SK, err)
	}
	return out.Item, len(out.Item) > 0, nil
}

// UsersByID implements calendar.Reader.
func (s *Store) UsersByID(ctx context.Context, ids []string) (map[string]*calendar.User, error) {
	return readMany(ctx, s, ids, userKey, func(r userRecord) (string, *calendar.User) { return r.ID, r.user() })
}

// CalendarsByID implements calendar.Reader.
func (s *Store) CalendarsByID(ctx context.Context, ids []string) (map[string]*calendar.Calendar, error) {
	return readMany(ctx, s, ids, calendarKey, func(r calendarRecord) (string, *calendar.Calendar) { return r.ID, r.calendar() })
}

// MembershipsByKey implements calendar.Reader.
func (s *Store) MembershipsByKey(ctx context.Context, keys []calendar.MembershipKey) (map[calendar.MembershipKey]*calendar.Membership, error) {
	toKey := func(k calendar.MembershipKey) itemKey { return membershipKey(k.CalendarID, k.UserID) }
	return readMany(ctx, s, keys, toKey, func(r membershipRecord) (calendar.MembershipKey, *calendar.Membership) {
		m := r.membership()
		return m.Key(), m
	})
}

// readMany batch-reads records of type R by ID and maps them to domain values.
func readMany[ID comparable, R, V any](ctx context.Context, s *Store, ids []ID, key func(ID) itemKey, conv func(R) (ID, V)) (map[ID]V, error) {
	keys := make([]itemKey, len(ids))
	for i, id := range ids {
		keys[i] = key(id)
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[ID]V, len(items))
	for _, it := range items {
		r, err := unmarshal[R](it)
		if err != nil {
			return nil, err
		}
		id, v := conv(r)
		out[id] = v
	}
	return out, nil
}
