package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// feedPeople adds to a feed the attendees of its entries and series and
// their organizers, in one wave of two calls beside each other: one Query of the
// calendar's attendee items (ATT#, never a read per entry) and one
// BatchGetItem of the organizers' user items. A feed of entries without
// attendees reads nothing more. The Query is bounded by the attendees the
// entries that have any (at most MaxAttendees each) and by maxFeedItems; the
// attendees of entries whose list is hidden are read with the rest (they
// share the key range) and left out.
func (s *Store) feedPeople(ctx context.Context, feed *calendar.Feed) error {
	shown, organizers, withAttendees := map[string]bool{}, map[string]bool{}, 0
	epochs := map[string]int{} // each shown entry's answer epoch
	for _, e := range feed.Entries {
		if e.Attendance.Summary.Total() == 0 {
			continue
		}
		withAttendees++
		if !e.Attendance.HideAttendees {
			shown[e.ID], organizers[calendar.OrganizerOf(e)] = true, true
			epochs[e.ID] = e.Attendance.Epoch
		}
	}
	if len(shown) == 0 {
		return nil
	}
	var items []item
	var users map[itemKey]item
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		first, last := attendeeKeyRange()
		max := min(withAttendees*calendar.MaxAttendees, maxFeedItems)
		items, err = s.queryBetween(gctx, "", attrSK, calendarPartition(feed.Calendar.ID), first, last, filter{}, max)
		return err
	})
	g.Go(func() (err error) {
		keys := make([]itemKey, 0, len(organizers))
		for id := range organizers {
			if id != "" { // an entry written before creators were kept
				keys = append(keys, userKey(id))
			}
		}
		users, err = s.batchGet(gctx, keys)
		return err
	})
	if err := g.Wait(); err != nil {
		return fmt.Errorf("read the attendees of calendar %s's feed: %w", feed.Calendar.ID, err)
	}
	feed.Attendees, feed.Organizers = map[string][]*calendar.Attendee{}, map[string]*calendar.User{}
	for _, it := range items {
		a, err := decodeAttendee(it)
		if err != nil {
			return err
		}
		if shown[a.EntryID] { // an answer from before the time moved is NEEDS-ACTION
			feed.Attendees[a.EntryID] = append(feed.Attendees[a.EntryID], a.At(epochs[a.EntryID]))
		}
	}
	for _, as := range feed.Attendees {
		slices.SortFunc(as, func(a, b *calendar.Attendee) int { return cmp.Compare(a.Email, b.Email) })
	}
	for _, it := range users {
		r, err := unmarshal[userRecord](it)
		if err != nil {
			return err
		}
		feed.Organizers[r.ID] = r.user()
	}
	return nil
}
