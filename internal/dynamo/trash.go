package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The trash (docs/design.md, "Trash"). Deleting a task, an event or a
// whole series puts a trash item holding the entry's items exactly as they
// were (trash_records.go: its item, a series' exceptions, its attendees,
// in parts beyond 350 KB), and a ref item naming it by the entry's ID. All
// carry expiresAt, so DynamoDB's TTL purges them calendar.TrashRetention
// later: nothing scans for them. TTL deletes late (within days on DynamoDB,
// within a minute of sweeping on the embedded engine, never on DynamoDB
// Local), so every read counts an item past expiresAt as purged already, as
// idempotency markers do.
//
// A restore (trash_restore.go) puts the items back as they were (the entry
// keeps its ID and fields, its version goes on by two; attendees keep their
// answers and their place in the invited index), deletes the trash items,
// and writes what a write of the entry writes: its change record and its
// attendees' invitation records, the calendar's revision, stats, history,
// its mustNotOverlap calendars checked as a create checks them and, on a
// resource calendar, its slots, which a booking made meanwhile refuses with
// SLOT_CONFLICT. Either is one transaction when it fits, else made in steps
// (trash_steps.go).

// rawAttendees reads e's attendee items as stored (at most
// calendar.MaxAttendees), strongly.
func (s *Store) rawAttendees(ctx context.Context, e *calendar.Entry) ([]item, error) {
	res, err := s.queryPage(ctx, pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(e.CalendarID),
		prefix: attendeePrefix(e.ID), consistent: true, page: calendar.Page{First: calendar.MaxAttendees}})
	return res.items, err
}

// purged reports whether a trash or ref item is past its purge time (TTL
// may not have deleted it yet).
func (s *Store) purged(it item) bool {
	n, ok := it[attrExpiresAt].(*types.AttributeValueMemberN)
	if !ok {
		return true
	}
	exp, err := strconv.ParseInt(n.Value, 10, 64)
	return err != nil || exp <= s.timestamp().Unix()
}

// Trash implements calendar.TrashService.
func (s *Store) Trash(ctx context.Context, calendarID string, page calendar.Page) (calendar.TrashPage, error) {
	if _, err := s.access(ctx, calendarID, calendar.ActionWriteEntries); err != nil {
		return calendar.TrashPage{}, err
	}
	res, err := s.queryPage(ctx, pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: calendarPartition(calendarID),
		prefix: prefixTrash, descending: true, consistent: true, page: page,
		keep: func(_ context.Context, items []item) ([]item, error) {
			var kept []item
			for _, it := range items {
				if !s.purged(it) {
					kept = append(kept, it)
				}
			}
			return kept, nil
		}})
	if err != nil {
		return calendar.TrashPage{}, err
	}
	out := calendar.TrashPage{Cursors: res.cursors, HasNextPage: res.hasNext}
	for _, it := range res.items {
		t, err := decodeTrashed(it)
		if err != nil {
			return calendar.TrashPage{}, err
		}
		out.Entries = append(out.Entries, t)
	}
	return out, nil
}

func decodeTrashed(it item) (*calendar.TrashedEntry, error) {
	r, err := decodeTrash(it)
	if err != nil {
		return nil, err
	}
	e, _, err := entryOfItem(r.Entry)
	if err != nil {
		return nil, fmt.Errorf("trash item %s: %w", r.SK, err)
	}
	return &calendar.TrashedEntry{Entry: e, DeletedBy: r.DeletedBy, DeletedAt: r.DeletedAt,
		PurgeAt: time.Unix(r.ExpiresAt, 0).UTC()}, nil
}

// RestoreEntry implements calendar.TrashService.
func (s *Store) RestoreEntry(ctx context.Context, key calendar.EntryKey) (*calendar.Entry, *calendar.Calendar, error) {
	if err := validEntryKey(key); err != nil {
		return nil, nil, err
	}
	e, cal, err := retryBooking(func() (*calendar.Entry, *calendar.Calendar, error) { return s.restoreEntry(ctx, key) })
	if err == nil {
		if rerr := s.restoreMyReminders(ctx, key); rerr != nil { // the restore is made: answered as made
			s.log.ErrorContext(ctx, "keeping users' own reminders of a restored entry", "entry", key.EntryID, "err", rerr)
		}
	}
	return e, cal, err
}
