package dynamo

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The trash (docs/design.md, "Trash"). Deleting a task or an event
// (deleteEntry) puts, in the deletion's own transaction, a trash item
// holding the entry item and its attendee items exactly as they were, and a
// ref item naming it by the entry's ID. Both carry expiresAt, so DynamoDB's
// TTL purges them calendar.TrashRetention later: nothing scans for them.
// TTL deletes late (within days on DynamoDB, within a minute of sweeping on
// the embedded engine, never on DynamoDB Local), so every read counts an item
// past expiresAt as purged already, as idempotency markers do.
//
// A restore puts the items back as they were (the entry keeps its version
// and fields; attendees keep their answers and their place in the invited
// index), deletes the trash and ref items, and writes what a write of the
// entry writes: its change record and its attendees' invitation records,
// the calendar's revision, stats, holds and, on a resource calendar, its
// slots, which a booking made meanwhile refuses with SLOT_CONFLICT.
//
// Bounded: a trash item holds one entry item and at most
// calendar.MaxAttendees attendee items (a few hundred bytes each: well
// under 400 KB), and a restore writes what the deletion's last transaction
// removed, so it fits one transaction as that did. An entry whose attendees
// did not fit its deletion's transaction lost some in transactions of their
// own before it (entries.go deleteEntry); those are not in the trash.

// trashRecord is a deleted entry in the trash.
type trashRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	EntityType string    `dynamodbav:"entityType"`
	EntryID    string    `dynamodbav:"entryId"`
	DeletedBy  string    `dynamodbav:"deletedBy"`
	DeletedAt  time.Time `dynamodbav:"deletedAt"`
	ExpiresAt  int64     `dynamodbav:"expiresAt"`
	// Entry and Attendees are the items as stored, kept as a map and a
	// list of maps (trashItem, decodeTrash): the SDK's decoder does not
	// decode into AttributeValues.
	Entry     item   `dynamodbav:"-"`
	Attendees []item `dynamodbav:"-"`
}

// trashItem is r as an item.
func trashItem(r trashRecord) (item, error) {
	it, err := marshal(r)
	if err != nil {
		return nil, err
	}
	it[attrTrashEntry] = &types.AttributeValueMemberM{Value: r.Entry}
	if len(r.Attendees) > 0 {
		list := make([]types.AttributeValue, len(r.Attendees))
		for i, a := range r.Attendees {
			list[i] = &types.AttributeValueMemberM{Value: a}
		}
		it[attrTrashAttendees] = &types.AttributeValueMemberL{Value: list}
	}
	return it, nil
}

// decodeTrash reads a trash item.
func decodeTrash(it item) (trashRecord, error) {
	r, err := unmarshal[trashRecord](it)
	if err != nil {
		return r, err
	}
	m, ok := it[attrTrashEntry].(*types.AttributeValueMemberM)
	if !ok {
		return r, fmt.Errorf("trash item %s holds no entry", r.SK)
	}
	r.Entry = m.Value
	if l, ok := it[attrTrashAttendees].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			a, ok := v.(*types.AttributeValueMemberM)
			if !ok {
				return r, fmt.Errorf("trash item %s holds an attendee that is not an item", r.SK)
			}
			r.Attendees = append(r.Attendees, a.Value)
		}
	}
	return r, nil
}

const (
	attrTrashEntry     = "entry"
	attrTrashAttendees = "attendees"
)

// trashRefRecord names the trash item of a deleted entry.
type trashRefRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	TrashSK    string `dynamodbav:"trashSK"`
	ExpiresAt  int64  `dynamodbav:"expiresAt"`
}

// trashPuts returns the puts that keep a deleted entry (its item as read,
// entryItem, and its attendee items) in its calendar's trash.
func (s *Store) trashPuts(actor string, e *calendar.Entry, entryItem item, attendees []item) []txOp {
	now := s.timestamp()
	expires := now.Add(calendar.TrashRetention).Unix()
	k, ref := trashKey(e.CalendarID, now, e.ID), trashRefKey(e.CalendarID, e.ID)
	it, err := trashItem(trashRecord{PK: k.PK, SK: k.SK, EntityType: entityTrash, EntryID: e.ID, DeletedBy: actor,
		DeletedAt: now, ExpiresAt: expires, Entry: entryItem, Attendees: attendees})
	put := opPut(k, struct{}{}, noCondition(), nil)
	put.action.Put.Item, put.err = it, err
	return []txOp{
		put,
		opPut(ref, trashRefRecord{PK: ref.PK, SK: ref.SK, EntityType: entityTrashRef, TrashSK: k.SK, ExpiresAt: expires},
			noCondition(), nil),
	}
}

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
	return retryBooking(func() (*calendar.Entry, *calendar.Calendar, error) { return s.restoreEntry(ctx, key) })
}

func errNotInTrash(id string) error {
	return calendar.Errorf(calendar.CodeNotFound, "entry %s is not in this calendar's trash: it was never deleted, "+
		"was restored already, or was purged %d days after its deletion", id, int(calendar.TrashRetention/(24*time.Hour)))
}

func (s *Store) restoreEntry(ctx context.Context, key calendar.EntryKey) (*calendar.Entry, *calendar.Calendar, error) {
	ek, rk := entryKey(key.CalendarID, key.EntryID), trashRefKey(key.CalendarID, key.EntryID)
	acc, err := s.access(ctx, key.CalendarID, calendar.ActionWriteEntries, ek, rk)
	if err != nil {
		return nil, nil, err
	}
	if acc.items[ek] != nil {
		return nil, acc.calendar, calendar.Invalidf("id", "entry %s is not deleted: there is nothing to restore", key.EntryID)
	}
	if acc.items[rk] == nil || s.purged(acc.items[rk]) {
		return nil, acc.calendar, errNotInTrash(key.EntryID)
	}
	tk := itemKey{PK: calendarPartition(key.CalendarID), SK: stringAttr(acc.items[rk], "trashSK")}
	it, ok, err := s.getItem(ctx, tk)
	if err != nil {
		return nil, nil, err
	}
	if !ok || s.purged(it) {
		return nil, acc.calendar, errNotInTrash(key.EntryID)
	}
	r, err := decodeTrash(it)
	if err != nil {
		return nil, nil, err
	}
	e, _, err := entryOfItem(r.Entry)
	if err != nil {
		return nil, nil, err
	}
	// A restore is a change of the entry: its version goes on from the
	// deletion's history record (seq version+1), so a client holding it as
	// it was before the deletion gets VERSION_CONFLICT, and updatedBy and
	// updatedAt say who restored it when. Its fields are otherwise as
	// deleted.
	e.Version += 2
	e.UpdatedBy, e.UpdatedAt = acc.viewer, s.timestamp()
	changed, err := marshal(struct {
		Version   int       `dynamodbav:"version"`
		UpdatedAt time.Time `dynamodbav:"updatedAt"`
		UpdatedBy string    `dynamodbav:"updatedBy"`
	}{e.Version, e.UpdatedAt, e.UpdatedBy})
	if err != nil {
		return nil, nil, err
	}
	restored := maps.Clone(r.Entry)
	maps.Copy(restored, changed)
	gone := func(item) error { return errNotInTrash(key.EntryID) }
	taken := func(item) error {
		return calendar.Errorf(calendar.CodeAlreadyExists, "entry %s exists again: there is nothing to restore", key.EntryID)
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(key.CalendarID, acc.viewer, calendar.ActionWriteEntries))
	w.Delete(tk, expression.AttributeExists(expression.Name(attrPK)), gone)
	w.Delete(rk, expression.Name("trashSK").Equal(expression.Value(tk.SK)), gone)
	head := opPut(ek, struct{}{}, notExists(), taken)
	head.action.Put.Item = restored
	w.Add(head)
	w.Add(entryWrites(e, s.placement(e), notExists(), taken, 0)[1:]...) // its pieces
	for _, at := range r.Attendees {
		a, err := decodeAttendee(at)
		if err != nil {
			return nil, nil, err
		}
		put := opPut(keyOf(at), struct{}{}, notExists(), taken)
		put.action.Put.Item = at
		w.Add(put)
		w.LogInvitation(a)
	}
	w.LogEntry(e.CalendarID, e.ID)
	w.Restore(acc.viewer, e)
	holdWrites(w, nil, e)
	if err := s.book(ctx, w, acc.calendar, nil, e); err != nil {
		return nil, acc.calendar, fmt.Errorf("restore entry %s: %w", key.EntryID, err)
	}
	return e, acc.calendar, nil
}
