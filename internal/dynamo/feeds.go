package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// feedRecord is a calendar's feed (in its partition) or the item its token's
// hash opens (FEED_TOKEN): both name the calendar and the hash.
type feedRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	EntityType string    `dynamodbav:"entityType"`
	CalendarID string    `dynamodbav:"calendarId"`
	TokenHash  string    `dynamodbav:"tokenHash"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
}

func newFeedRecord(k itemKey, entityType, calendarID, hash string, now time.Time) feedRecord {
	return feedRecord{PK: k.PK, SK: k.SK, EntityType: entityType, CalendarID: calendarID, TokenHash: hash, CreatedAt: now}
}

// maxFeedItems bounds the items one feed reads.
const maxFeedItems = 50_000

func tokenHashIs(hash string) expression.ConditionBuilder {
	return exists().And(expression.Name("tokenHash").Equal(expression.Value(hash)))
}

func feedChanged(item) error {
	return calendar.Errorf(calendar.CodeVersionConflict, "the calendar's feed changed meanwhile: try again")
}

// currentFeed reads a calendar's feed item out of what access read; ok is
// false when the calendar has no feed.
func currentFeed(acc *access, calendarID string) (r feedRecord, ok bool, err error) {
	it := acc.items[feedKey(calendarID)]
	if it == nil {
		return r, false, nil
	}
	r, err = unmarshal[feedRecord](it)
	return r, true, err
}

// feedEnding returns the actions of a calendar deletion that end its feed
// token as read in items: a check that the feed item is still as read (a
// rotation meanwhile would leave its new token behind, outside the partition
// the deletion empties), failing with changed, and the token's deletion.
func feedEnding(items map[itemKey]item, calendarID string, changed explainFunc) ([]txOp, error) {
	fk := feedKey(calendarID)
	if items[fk] == nil {
		return []txOp{opCheck(fk, notExists(), changed)}, nil
	}
	f, err := unmarshal[feedRecord](items[fk])
	if err != nil {
		return nil, err
	}
	return []txOp{opCheck(fk, tokenHashIs(f.TokenHash), changed), opDelete(feedTokenKey(f.TokenHash), noCondition(), nil)}, nil
}

// RotateFeed implements calendar.FeedService: one transaction replaces the
// calendar's feed item and its token item, so exactly one token works.
func (s *Store) RotateFeed(ctx context.Context, calendarID string) (string, error) {
	acc, err := s.access(ctx, calendarID, calendar.ActionManage, feedKey(calendarID))
	if err != nil {
		return "", err
	}
	old, hasOld, err := currentFeed(acc, calendarID)
	if err != nil {
		return "", err
	}
	token := calendar.NewFeedToken()
	hash, now := calendar.FeedTokenHash(token), s.timestamp()
	fk, tk := feedKey(calendarID), feedTokenKey(hash)
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(calendarID, acc.viewer, calendar.ActionManage))
	w.Guard(calendarStillThere(calendarID, 0))
	cond := notExists()
	if hasOld {
		cond = tokenHashIs(old.TokenHash)
		w.Delete(feedTokenKey(old.TokenHash), noCondition(), nil)
	}
	w.Put(fk, newFeedRecord(fk, entityFeed, calendarID, hash, now), cond, feedChanged)
	w.Put(tk, newFeedRecord(tk, entityFeedToken, calendarID, hash, now), notExists(), mustBeNew(calendar.CodeInternal, "feed token collision"))
	if err := s.commit(ctx, w); err != nil {
		return "", fmt.Errorf("rotate the feed of calendar %s: %w", calendarID, err)
	}
	return token, nil
}

// DisableFeed implements calendar.FeedService.
func (s *Store) DisableFeed(ctx context.Context, calendarID string) error {
	acc, err := s.access(ctx, calendarID, calendar.ActionManage, feedKey(calendarID))
	if err != nil {
		return err
	}
	old, hasOld, err := currentFeed(acc, calendarID)
	if err != nil {
		return err
	}
	if !hasOld {
		return calendar.Errorf(calendar.CodeNotFound, "the calendar has no feed")
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(calendarID, acc.viewer, calendar.ActionManage))
	w.Delete(feedKey(calendarID), tokenHashIs(old.TokenHash), feedChanged)
	w.Delete(feedTokenKey(old.TokenHash), noCondition(), nil)
	if err := s.commit(ctx, w); err != nil {
		return fmt.Errorf("disable the feed of calendar %s: %w", calendarID, err)
	}
	return nil
}

// Feed implements calendar.FeedService: a GetItem of the token's item, then
// one BatchGetItem of the calendar and its feed item beside one Query of
// everything the calendar holds; when its single entries have attendees,
// one more wave reads them and their organizers (feedPeople).
func (s *Store) Feed(ctx context.Context, token string) (*calendar.Feed, error) {
	notFound := calendar.Errorf(calendar.CodeNotFound, "feed not found")
	if !calendar.ValidFeedToken(token) {
		return nil, notFound
	}
	hash := calendar.FeedTokenHash(token)
	it, found, err := s.getItem(ctx, feedTokenKey(hash))
	if err != nil || !found {
		return nil, calendar.ErrorOr(err, notFound)
	}
	t, err := unmarshal[feedRecord](it)
	if err != nil {
		return nil, err
	}
	var head map[itemKey]item
	var records []entryRecord
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		head, err = s.batchGet(gctx, []itemKey{calendarKey(t.CalendarID), feedKey(t.CalendarID)})
		return err
	})
	g.Go(func() (err error) {
		records, err = s.calendarEntries(gctx, t.CalendarID)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read the feed of calendar %s: %w", t.CalendarID, err)
	}
	if head[feedKey(t.CalendarID)] == nil || head[calendarKey(t.CalendarID)] == nil {
		return nil, notFound // the calendar was deleted meanwhile
	}
	if f, err := unmarshal[feedRecord](head[feedKey(t.CalendarID)]); err != nil || f.TokenHash != hash {
		return nil, calendar.ErrorOr(err, notFound) // rotated meanwhile
	}
	c, err := decodeCalendarRecord(head[calendarKey(t.CalendarID)])
	if err != nil {
		return nil, err
	}
	feed, err := s.feedOf(c.calendar(), records)
	if err != nil {
		return nil, err
	}
	if err := s.feedPeople(ctx, feed); err != nil {
		return nil, err
	}
	return feed, nil
}

// feedOf sorts a calendar's entry records into a feed: single entries and
// series, and the current exceptions of series as their occurrences look.
func (s *Store) feedOf(c *calendar.Calendar, records []entryRecord) (*calendar.Feed, error) {
	feed := &calendar.Feed{Calendar: c}
	masters, gens := map[string]*calendar.Entry{}, map[string]string{}
	var exceptions []entryRecord
	for _, r := range records {
		switch r.role() {
		case roleEntryPiece, roleExceptionPiece:
		case roleException:
			exceptions = append(exceptions, r)
		default:
			e, err := r.entry()
			if err != nil {
				return nil, err
			}
			if e.IsSeries() {
				masters[e.ID], gens[e.ID] = e, r.Gen
			}
			feed.Entries = append(feed.Entries, e)
		}
	}
	for _, r := range exceptions {
		m := masters[r.SeriesID]
		if m == nil || gens[r.SeriesID] != r.Gen {
			continue
		}
		x, err := r.entry()
		if err != nil {
			return nil, err
		}
		if s.recur.Has(m, x.OriginalStart) {
			feed.Exceptions = append(feed.Exceptions, m.OccurrenceAt(x.OriginalStart).Overlay(x))
		}
	}
	return feed, nil
}

// calendarEntries reads every entry item of a calendar's partition.
func (s *Store) calendarEntries(ctx context.Context, calendarID string) ([]entryRecord, error) {
	first, last := entryKeyRange()
	return s.entryRecordsBetween(ctx, calendarID, first, last, maxFeedItems)
}

// entryRecordsBetween reads the entry items of a calendar's partition whose
// sort keys lie in [first, last], with one strongly consistent Query (more
// only past 1 MB), refusing more than max.
func (s *Store) entryRecordsBetween(ctx context.Context, calendarID, first, last string, max int) ([]entryRecord, error) {
	items, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), first, last, filter{}, max)
	if err != nil {
		return nil, err
	}
	records := make([]entryRecord, len(items))
	for i, it := range items {
		if records[i], err = decodeEntryRecord(it); err != nil {
			return nil, err
		}
	}
	return records, nil
}
