package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// access is what a write learned about the viewer's standing on a calendar.
// Writes whose result names the calendar return acc.calendar beside it, so
// that the request shows the calendar without reading it again.
type access struct {
	viewer   string
	calendar *calendar.Calendar
	member   *calendar.Membership
	items    map[itemKey]item // the calendar, the membership and any extra keys read
}

// access reads a calendar, the viewer's membership and any extra items in one
// BatchGetItem and checks that the viewer may perform a. A non-member gets
// CodeNotFound, so a calendar's existence is not revealed. The check is repeated
// inside the write (roleCheck), so a concurrent change of role cannot slip by.
func (s *Store) access(ctx context.Context, calendarID string, a calendar.Action, extra ...itemKey) (*access, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := calendar.ValidateID("id", calendarID); err != nil {
		return nil, err
	}
	ck, mk := calendarKey(calendarID), membershipKey(calendarID, viewer)
	items, err := s.batchGet(ctx, append([]itemKey{ck, mk}, extra...))
	if err != nil {
		return nil, err
	}
	if items[ck] == nil || items[mk] == nil {
		return nil, errCalendarNotFound()
	}
	cal, err := decodeCalendarRecord(items[ck])
	if err != nil {
		return nil, err
	}
	mem, err := decodeMembershipRecord(items[mk])
	if err != nil {
		return nil, err
	}
	acc := &access{viewer: viewer, calendar: cal.calendar(), member: mem.membership(), items: items}
	if !acc.member.Role.Can(a) {
		return nil, errForbidden(acc.member.Role, a)
	}
	return acc, nil
}

func errCalendarNotFound() error {
	return calendar.Errorf(calendar.CodeNotFound, "calendar not found")
}

func errForbidden(r calendar.Role, a calendar.Action) error {
	return calendar.Errorf(calendar.CodeForbidden, "your role on this calendar (%s) cannot %s", r, a)
}

// roleCheck is the in-transaction guard that the user still holds a role allowed
// to perform a.
func roleCheck(calendarID, userID string, a calendar.Action) txOp {
	return opCheck(membershipKey(calendarID, userID), roleIn(calendar.RolesAllowed(a)), explainRole(a))
}

func explainRole(a calendar.Action) explainFunc {
	return func(old item) error {
		if old == nil {
			return errCalendarNotFound()
		}
		m, _ := decodeMembershipRecord(old)
		return errForbidden(calendar.Role(m.Role), a)
	}
}

// CreateCalendar implements calendar.CalendarService: the calendar, its owner
// tally and the viewer's OWNER membership are written in one transaction.
func (s *Store) CreateCalendar(ctx context.Context, n calendar.NewCalendar) (*calendar.Calendar, *calendar.Membership, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, nil, err
	}
	c, err := n.Build()
	if err != nil {
		return nil, nil, err
	}
	now := s.timestamp()
	c.ID, c.Version, c.CreatedAt, c.UpdatedAt = s.newID(), 1, now, now
	c.NeverHeldSeries = true
	m := &calendar.Membership{CalendarID: c.ID, UserID: viewer, Role: calendar.RoleOwner, Version: 1, CreatedAt: now, UpdatedAt: now, Settings: defaultSettings()}
	collision := mustBeNew(calendar.CodeInternal, "calendar ID collision")
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(opCheck(userKey(viewer), exists(), mustBeNew(calendar.CodeUnauthenticated, "your account no longer exists")))
	w.Put(calendarKey(c.ID), newCalendarRecord(&c), notExists(), collision)
	w.Put(ownerTallyKey(c.ID), newOwnerTallyRecord(c.ID, 1), notExists(), collision)
	w.Put(membershipKey(c.ID, viewer), newMembershipRecord(m), notExists(), collision)
	w.LogCalendar(c.ID)
	w.LogMember(c.ID, viewer)
	if err := s.commit(ctx, w); err != nil {
		return nil, nil, fmt.Errorf("create calendar: %w", err)
	}
	return &c, m, nil
}

// UpdateCalendar implements calendar.CalendarService.
func (s *Store) UpdateCalendar(ctx context.Context, u calendar.CalendarUpdate) (*calendar.Calendar, error) {
	acc, err := s.access(ctx, u.ID, calendar.ActionManage)
	if err != nil {
		return nil, err
	}
	if acc.calendar.Version != u.ExpectedVersion {
		return nil, versionMismatch("calendar", u.ExpectedVersion)(acc.items[calendarKey(u.ID)])
	}
	updated, err := u.Apply(*acc.calendar)
	if err != nil {
		return nil, err
	}
	updated.Version, updated.UpdatedAt = acc.calendar.Version+1, s.timestamp()
	updated.Revision = 0 // unknown: not read
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(u.ID, acc.viewer, calendar.ActionManage))
	w.Update(calendarKey(u.ID), calendarSettings(&updated), versionIs(u.ExpectedVersion), versionMismatch("calendar", u.ExpectedVersion))
	w.LogCalendar(u.ID)
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("update calendar %s: %w", u.ID, err)
	}
	return &updated, nil
}

// calendarSettings sets what a calendar update may change. An update, not a
// put of the calendar as read: a series created since that read removed
// neverHeldSeries without changing the version, and a put would bring it back
// and hide the series from views.
func calendarSettings(c *calendar.Calendar) expression.UpdateBuilder {
	r := newCalendarRecord(c)
	set := func(u expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return u.Set(expression.Name(name), expression.Value(v))
	}
	u := set(expression.UpdateBuilder{}, "name", r.Name)
	u = set(u, "color", r.Color)
	u = set(u, "timeZone", r.TimeZone)
	u = set(u, "isResource", r.IsResource)
	u = set(u, "version", r.Version)
	u = set(u, "updatedAt", r.UpdatedAt)
	if r.Description == "" {
		return u.Remove(expression.Name("description"))
	}
	return set(u, "description", r.Description)
}

// DeleteCalendar implements calendar.CalendarService. The calendar, its owner
// tally, the viewer's membership and its feed's token go in one transaction,
// with a pending-deletion item (see deletions.go), which makes the
// calendar invisible at once; everything else in its partition (the other
// memberships, entries and their pieces) is removed right after the result
// is known (finishLater). Should that clean-up stop halfway, what is left is invisible: reads skip memberships
// whose calendar is gone, and entries are only reached through their calendar.
func (s *Store) DeleteCalendar(ctx context.Context, id string, expectedVersion int) error {
	acc, err := s.access(ctx, id, calendar.ActionManage, feedKey(id))
	if err != nil {
		return err
	}
	if acc.calendar.Version != expectedVersion {
		return versionMismatch("calendar", expectedVersion)(acc.items[calendarKey(id)])
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Delete(membershipKey(id, acc.viewer), roleIn(calendar.RolesAllowed(calendar.ActionManage)), explainRole(calendar.ActionManage))
	w.Delete(calendarKey(id), versionIs(expectedVersion), versionMismatch("calendar", expectedVersion))
	w.Delete(ownerTallyKey(id), exists(), mustBeNew(calendar.CodeInternal, "owner tally missing"))
	feed, err := feedEnding(acc.items, id, feedChanged) // its token stops working with the calendar
	if err != nil {
		return err
	}
	w.Add(feed...)
	w.Add(s.pendingPut(pendingCalendar, id))
	w.LogMember(id, acc.viewer)
	w.LogCalendar(id)
	if err := s.commit(ctx, w); err != nil {
		return fmt.Errorf("delete calendar %s: %w", id, err)
	}
	// The delete itself succeeded; what is left cannot be reached.
	s.finishLater(ctx, id)
	return nil
}

// removePartition deletes every item of a calendar's partition but its
// change log, a page of keys at a time, until a consistent Query finds none:
// an entry write racing with the deletion of its calendar can add items
// behind a cursor, but none after the partition is empty, since every such
// write checks a membership in it. The change log stays until its records
// expire, so a live delivery that reads it later still finds the calendar's
// deletion; before a membership goes, its user's calendar-list log gets a
// record of it (the calendar item is gone: the list reads it as removed),
// and before a calgraph user's invitation to one of its entries goes, their
// own log gets one (invitationChanges then reads it as removed).
func (s *Store) removePartition(ctx context.Context, partition string) error {
	below, above := prefixChange, prefixChange+"~" // the log's sort keys lie between
	for _, sk := range []sortKey{skBelow(attrSK, below), skAbove(attrSK, above)} {
		if err := s.removeRange(ctx, partition, sk); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) removeRange(ctx context.Context, partition string, sk sortKey) error {
	in := keyQuery{pkAttr: attrPK, partition: partition, sk: sk, consistent: true}.input(s.table)
	for {
		out, err := s.reads.Query(ctx, in) // from the start each time: what it found before is gone
		if err != nil {
			return fmt.Errorf("list partition %s: %w", partition, err)
		}
		if len(out.Items) == 0 {
			return nil
		}
		var refs []changeRef
		var writes []types.WriteRequest
		var counted []countedItem
		for _, it := range out.Items {
			k := keyOf(it)
			for _, h := range holdsOf(it) { // before the entry, so that none is left behind
				writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: h.av()}})
			}
			if e, ok := countedEntry(it); ok {
				counted = append(counted, countedItem{k, e})
				continue
			}
			writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k.av()}})
			if userID, ok := strings.CutPrefix(k.SK, prefixMember); ok {
				refs = append(refs, changeRef{userPartition(userID), changedMember + strings.TrimPrefix(k.PK, prefixCalendar)})
			}
			if userID := stringAttr(it, "userId"); userID != "" && strings.HasPrefix(k.SK, prefixAttendee) {
				// the invitation goes with the calendar: its user's log says so
				refs = append(refs, changeRef{userPartition(userID), invitationObject(strings.TrimPrefix(k.PK, prefixCalendar), stringAttr(it, "entryId"))})
			}
		}
		if len(refs) > 0 {
			var puts []types.WriteRequest
			for _, op := range s.changeOps(refs) {
				puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: op.action.Put.Item}})
			}
			if err := s.batchWrite(ctx, puts); err != nil {
				return err
			}
			s.committed(refs)
		}
		if err := s.batchWrite(ctx, writes); err != nil {
			return err
		}
		// Entries counted in their creators' stats go with their stats'
		// changes, as many per transaction as fit; one changed since the
		// Query is left for the next round.
		for len(counted) > 0 {
			var w *write
			w, counted = countedDeletes(ctx, counted)
			if err := s.commit(ctx, w); err != nil && !errors.Is(err, errEntryRaced) {
				return fmt.Errorf("delete entries of %s: %w", partition, err)
			}
		}
	}
}

// countedDeletes returns a write deleting as many of the entries counted in
// their creators' stats as it has room for, and the entries left: each
// deletion takes a change record and the stats updates of its creator's
// nodes it changes (shared with the others of the write where their nodes
// are the same), and each creator one for their totals. An entry changed
// since it was read fails the write with errEntryRaced.
func countedDeletes(ctx context.Context, entries []countedItem) (*write, []countedItem) {
	var w *write
	for n := 1; ; n++ {
		next := newWrite()
		next.Idempotent(ctx) // as every write made in a request
		next.CalendarGone()
		for _, c := range entries[:n] {
			next.Delete(c.key, versionIs(c.entry.Version), func(item) error { return errEntryRaced })
			next.LogEntry(c.entry.CalendarID, entryOf(c.key))
			next.Tally("", c.entry, nil)
		}
		if w != nil && next.Room() < 0 {
			return w, entries[n-1:]
		}
		if w = next; n == len(entries) {
			return w, nil
		}
	}
}

// countedItem is an entry or series counted in its creator's stats, and its
// item's key.
type countedItem struct {
	key   itemKey
	entry *calendar.Entry
}

// errEntryRaced: an entry changed between a deletion's read and its delete.
var errEntryRaced = errors.New("the entry changed while its calendar was deleted")

// countedEntry decodes it when it is an entry or series counted in a user's
// stats.
func countedEntry(it item) (*calendar.Entry, bool) {
	if et := stringAttr(it, "entityType"); (et != entityEntry && et != entitySeries) || stringAttr(it, "createdBy") == "" {
		return nil, false
	}
	r, err := decodeEntryRecord(it)
	if err != nil || r.Piece != 0 {
		return nil, false
	}
	e, err := r.entry()
	return e, err == nil
}
