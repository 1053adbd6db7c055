package dynamo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// What a trash item holds, and its parts. A deleted entry's items are kept
// exactly as stored: the entry item (a series' master), a series' current
// exceptions (their pieces are made again from them, as the entry's are),
// and its attendee items, per-occurrence answers included. They go in the
// trash item while it stays under trashItemBudget; the rest go in part
// items (trashPartKey) of at most trashItemBudget each, which the trash item
// counts. An item is at most 400 KB, so every piece is bounded; how many
// parts a deletion makes is bounded by what the entry was: at most
// calendar.MaxAttendees attendee items of a few hundred bytes (one part at
// most), and a series' exceptions, each at most an entry item's size.

// trashItemBudget is the most a trash item or part holds, in bytes as
// DynamoDB counts them: under the 400 KB limit with room for its own fields.
const trashItemBudget = 350_000

// trashRecord is a deleted entry in the trash.
type trashRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	EntityType string    `dynamodbav:"entityType"`
	EntryID    string    `dynamodbav:"entryId"`
	DeletedBy  string    `dynamodbav:"deletedBy"`
	DeletedAt  time.Time `dynamodbav:"deletedAt"`
	ExpiresAt  int64     `dynamodbav:"expiresAt"`
	// Parts counts its part items (trashPartKey 1..Parts).
	Parts int `dynamodbav:"parts,omitempty"`
	// Entry, Exceptions and Attendees are the items as stored, kept as a
	// map and lists of maps (trashItem, decodeTrash): the SDK's decoder
	// does not decode into AttributeValues. Those of the parts are added
	// to Exceptions and Attendees by trashParts.
	Entry      item   `dynamodbav:"-"`
	Exceptions []item `dynamodbav:"-"`
	Attendees  []item `dynamodbav:"-"`
}

// trashPartRecord holds items of a trashed entry its trash item had no room
// for.
type trashPartRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	EntryID    string `dynamodbav:"entryId"`
	ExpiresAt  int64  `dynamodbav:"expiresAt"`
}

const (
	attrTrashEntry      = "entry"
	attrTrashExceptions = "exceptions"
	attrTrashAttendees  = "attendees"
	attrTrashItems      = "items" // a part's
)

// trashItem is r as an item.
func trashItem(r trashRecord) (item, error) {
	it, err := marshal(r)
	if err != nil {
		return nil, err
	}
	it[attrTrashEntry] = &types.AttributeValueMemberM{Value: r.Entry}
	setItemList(it, attrTrashExceptions, r.Exceptions)
	setItemList(it, attrTrashAttendees, r.Attendees)
	return it, nil
}

// setItemList sets it[name] to items as a list of maps, when any.
func setItemList(it item, name string, items []item) {
	if len(items) == 0 {
		return
	}
	list := make([]types.AttributeValue, len(items))
	for i, a := range items {
		list[i] = &types.AttributeValueMemberM{Value: a}
	}
	it[name] = &types.AttributeValueMemberL{Value: list}
}

// itemList reads it[name] as setItemList wrote it.
func itemList(it item, name string) ([]item, error) {
	l, ok := it[name].(*types.AttributeValueMemberL)
	if !ok {
		return nil, nil
	}
	out := make([]item, 0, len(l.Value))
	for _, v := range l.Value {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return nil, fmt.Errorf("trash item %s holds %s that are not items", stringAttr(it, attrSK), name)
		}
		out = append(out, m.Value)
	}
	return out, nil
}

// decodeTrash reads a trash item (without its parts).
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
	if r.Exceptions, err = itemList(it, attrTrashExceptions); err != nil {
		return r, err
	}
	r.Attendees, err = itemList(it, attrTrashAttendees)
	return r, err
}

// trashParts adds to r the items its parts hold, read strongly; a part
// missing (purged, or never written) is an error, never a partial restore.
func (s *Store) trashParts(ctx context.Context, calendarID string, r *trashRecord) error {
	if r.Parts == 0 {
		return nil
	}
	lo, hi := prefixRange(trashPartPrefix(r.SK))
	parts, err := s.queryBetween(ctx, "", attrSK, calendarPartition(calendarID), lo, hi, filter{}, math.MaxInt)
	if err != nil {
		return fmt.Errorf("read the trash parts of %s: %w", r.EntryID, err)
	}
	if len(parts) != r.Parts {
		return fmt.Errorf("trash item %s counts %d parts, %d found", r.SK, r.Parts, len(parts))
	}
	for _, p := range parts {
		items, err := itemList(p, attrTrashItems)
		if err != nil {
			return err
		}
		for _, it := range items {
			if stringAttr(it, "entityType") == entityAttendee {
				r.Attendees = append(r.Attendees, it)
			} else {
				r.Exceptions = append(r.Exceptions, it)
			}
		}
	}
	return nil
}

// trashRefRecord names the trash item of a deleted entry.
type trashRefRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	TrashSK    string `dynamodbav:"trashSK"`
	ExpiresAt  int64  `dynamodbav:"expiresAt"`
}

// trashing is what a deletion puts in the trash: the trash item and ref
// (written by the deletion's switch), and the parts (written before it).
type trashing struct {
	key   itemKey // the trash item's
	head  []txOp
	parts []txOp
}

// trashPuts returns the puts that keep a deleted entry (its item as read,
// entryItem, a series' exceptions and its attendee items) in its calendar's
// trash.
func (s *Store) trashPuts(actor string, e *calendar.Entry, entryItem item, exceptions, attendees []item) trashing {
	now := s.timestamp()
	expires := now.Add(calendar.TrashRetention).Unix()
	k, ref := trashKey(e.CalendarID, now, e.ID), trashRefKey(e.CalendarID, e.ID)
	r := trashRecord{PK: k.PK, SK: k.SK, EntityType: entityTrash, EntryID: e.ID, DeletedBy: actor,
		DeletedAt: now, ExpiresAt: expires, Entry: entryItem}
	room := s.trashBudget - itemBytes(entryItem)
	var parts [][]item
	partRoom := 0
	for _, it := range append(exceptions[:len(exceptions):len(exceptions)], attendees...) {
		n := itemBytes(it)
		switch {
		case parts == nil && n <= room:
			room -= n
			if stringAttr(it, "entityType") == entityAttendee {
				r.Attendees = append(r.Attendees, it)
			} else {
				r.Exceptions = append(r.Exceptions, it)
			}
		case n <= partRoom:
			partRoom -= n
			parts[len(parts)-1] = append(parts[len(parts)-1], it)
		default:
			parts, partRoom = append(parts, []item{it}), s.trashBudget-n
		}
	}
	r.Parts = len(parts)
	out := trashing{key: k}
	it, err := trashItem(r)
	put := opPut(k, struct{}{}, noCondition(), nil)
	put.action.Put.Item, put.err = it, err
	out.head = []txOp{put, opPut(ref, trashRefRecord{PK: ref.PK, SK: ref.SK, EntityType: entityTrashRef, TrashSK: k.SK,
		ExpiresAt: expires}, noCondition(), nil)}
	for i, items := range parts {
		pk := trashPartKey(e.CalendarID, k.SK, i+1)
		it, err := marshal(trashPartRecord{PK: pk.PK, SK: pk.SK, EntityType: entityTrashPart, EntryID: e.ID, ExpiresAt: expires})
		if err == nil {
			setItemList(it, attrTrashItems, items)
		}
		p := opPut(pk, struct{}{}, noCondition(), nil)
		p.action.Put.Item, p.err = it, err
		out.parts = append(out.parts, p)
	}
	return out
}
