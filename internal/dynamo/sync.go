package dynamo

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Sync reads (calendar.SyncService). A token is a position in one log
// (changes.go) or, before that, a place in a full read:
//   - a log position: low, a position, and seen, the records after low already
//     delivered. A read returns the objects of the records after low, less
//     seen, each once, as they are now. Its new token's low is overlapWindow
//     back from the read's moment (or just before the last record it took,
//     when it stopped early), and seen keeps every record it and the earlier
//     reads took after that.
//   - a full read: its phase (the calendar, its members, its entries; or a
//     user's memberships), where it stopped, and low, overlapWindow back from
//     the moment it began. Once whole, it becomes a log position at low, so
//     everything written while it ran comes again: a client may see an object
//     twice, never miss one.
//
// Tokens are not signed: every part of one only says where to read in the
// viewer's own calendar (or list), checked on each read.

// syncToken is a decoded token.
type syncToken struct {
	owner string // the calendar's ID, or the user's for a calendar list
	user  bool
	low   int64
	seen  []seenRecord
	full  bool
	phase byte
	after string // a full read's sort key (or list cursor) to continue after
	// invited marks the token of an INVITATION delivery (a user's log
	// only, invitedtoken.go): since and sinceSeen say where to read the
	// logs of the calendars of the user's invitations from.
	invited   bool
	since     int64
	sinceSeen []seenRecord
}

// seenRecord is a change record by its key's position and nonce.
type seenRecord struct {
	pos   int64
	nonce uint32
}

// Full read phases.
const (
	phaseCalendar byte = iota
	phaseMembers
	phaseEntries
	phaseList        // a user's memberships
	phaseInvitations // a user's invitations to entries (invited.go)
)

const (
	tokenVersion = 1
	// maxSeen bounds the records a token remembers (about 9 bytes each).
	// Past it, the token's lower bound moves up to its oldest record: on a
	// calendar changed more than maxSeen times within overlapWindow, a
	// commit later than its position is caught up to the last maxSeen
	// records' span rather than overlapWindow.
	maxSeen = 500
	// maxLogRecords bounds the records one read goes through; more than
	// maxSeen, so that a read always gets past the records it skips.
	maxLogRecords  = 2 * maxSeen
	maxTokenLength = 8192
)

func (t syncToken) encode() string {
	b := []byte{tokenVersion, 0}
	if t.user {
		b[1] |= 1
	}
	if t.full {
		b[1] |= 2
	}
	if t.invited {
		b[1] |= 4
	}
	b = append(b, t.owner...)
	b = binary.AppendVarint(b, t.low)
	b = binary.AppendUvarint(b, uint64(len(t.seen)))
	for _, r := range t.seen {
		b = binary.AppendVarint(b, r.pos-t.low)
		b = binary.BigEndian.AppendUint32(b, r.nonce)
	}
	if t.invited {
		b = t.appendInvited(b)
	}
	if t.full {
		b = append(b, t.phase)
		b = binary.AppendUvarint(b, uint64(len(t.after)))
		b = append(b, t.after...)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeToken reads a client's token, which must be of owner's log.
func decodeToken(s, owner string, user bool) (syncToken, error) {
	bad := calendar.Invalidf("syncToken", "syncToken is not a sync token of this %s", map[bool]string{false: "calendar", true: "calendar list"}[user])
	if len(s) > maxTokenLength {
		return syncToken{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2+idLength || b[0] != tokenVersion || b[1]&^7 != 0 {
		return syncToken{}, bad
	}
	t := syncToken{user: b[1]&1 != 0, full: b[1]&2 != 0, invited: b[1]&4 != 0, owner: string(b[2 : 2+idLength])}
	if t.owner != owner || t.user != user || (t.invited && (!user || t.full)) {
		return syncToken{}, bad
	}
	b = b[2+idLength:]
	var n int
	if t.low, n = binary.Varint(b); n <= 0 || t.low < 0 {
		return syncToken{}, bad
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > maxSeen {
		return syncToken{}, bad
	}
	b = b[n:]
	for range count {
		d, n := binary.Varint(b)
		if n <= 0 || d <= 0 || len(b) < n+4 {
			return syncToken{}, bad
		}
		t.seen = append(t.seen, seenRecord{pos: t.low + d, nonce: binary.BigEndian.Uint32(b[n:])})
		b = b[n+4:]
	}
	if t.invited {
		var ok bool
		if b, ok = t.readInvited(b); !ok {
			return syncToken{}, bad
		}
	}
	if t.full {
		if len(b) < 1 {
			return syncToken{}, bad
		}
		t.phase, b = b[0], b[1:]
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) != l {
			return syncToken{}, bad
		}
		t.after = string(b[n:])
		if (user && t.phase != phaseList && t.phase != phaseInvitations) || (!user && t.phase > phaseEntries) || len(t.seen) > 0 {
			return syncToken{}, bad
		}
	} else if len(b) != 0 {
		return syncToken{}, bad
	}
	return t, nil
}

// HeadToken implements calendar.SyncService.
func (s *Store) HeadToken(id string, user bool) string {
	return syncToken{owner: id, user: user, low: s.clock.readNow().Add(-overlapWindow).UnixMicro()}.encode()
}

// StartToken implements calendar.SyncService: the records already in the
// log's last overlapWindow (by position) count as seen, the rest (later
// positions) do not.
func (s *Store) StartToken(ctx context.Context, id string, user bool) (string, error) {
	uncacheable(ctx, whyClock) // the token holds the moment of the read
	at := s.clock.readNow()
	t := syncToken{owner: id, user: user, low: at.Add(-overlapWindow).UnixMicro()}
	partition := calendarPartition(id)
	if user {
		partition = userPartition(id)
	}
	q := logQuery(partition, t.low)
	q.projection, q.limit = []string{attrSK}, maxSeen
	out, err := s.reads.Query(ctx, q.input(s.table))
	if err != nil {
		return "", fmt.Errorf("read change log %s: %w", partition, err)
	}
	for _, it := range out.Items {
		r, err := parseChangeKey(stringAttr(it, attrSK))
		if err != nil {
			return "", err
		}
		if r.pos < at.UnixMicro() {
			t.seen = append(t.seen, r)
		}
	}
	return t.encode(), nil
}

// startToken is the token of a read without one: a full read from now.
func (s *Store) startToken(owner string, user bool) syncToken {
	t := syncToken{owner: owner, user: user, full: true, low: s.clock.readNow().Add(-overlapWindow).UnixMicro()}
	if user {
		t.phase = phaseList
	}
	return t
}

// parseToken decodes token ("" starts a full read) and refuses one past the
// retention.
func (s *Store) parseToken(token, owner string, user bool) (syncToken, error) {
	if token == "" {
		return s.startToken(owner, user), nil
	}
	t, err := decodeToken(token, owner, user)
	if err != nil {
		return t, err
	}
	if t.low < s.clock.readNow().Add(-s.retention).UnixMicro() {
		return t, calendar.Errorf(calendar.CodeSyncTokenExpired,
			"this sync token is older than the change log's retention (%s): read everything again without a token", s.retention)
	}
	return t, nil
}

// logToken reads the token of a live delivery: a log position, not a full
// read, within the retention.
func (s *Store) logToken(token, owner string, user bool) (syncToken, error) {
	t, err := s.parseToken(token, owner, user)
	if err == nil && t.full {
		err = calendar.Invalidf("syncToken", "a live delivery continues a log, not a full read")
	}
	return t, err
}

// logQuery is the Query of partition's change records after position pos.
func logQuery(partition string, pos int64) keyQuery {
	lo, hi := changesAfter(pos)
	return keyQuery{pkAttr: attrPK, partition: partition, sk: skBetween(attrSK, lo, hi), consistent: true}
}

// Changes implements calendar.SyncService.
func (s *Store) Changes(ctx context.Context, calendarID, token string, first int) (*calendar.ChangePage, error) {
	if err := calendar.ValidateChangePage(first); err != nil {
		return nil, err
	}
	acc, err := s.access(ctx, calendarID, calendar.ActionRead)
	if err != nil {
		return nil, err
	}
	t, err := s.parseToken(token, calendarID, false)
	if err != nil {
		return nil, err
	}
	if t.full {
		return s.fullRead(ctx, acc, t, first)
	}
	return s.readCalendarLog(ctx, t, first, acc.calendar)
}

// LogChanges implements calendar.SyncService.
func (s *Store) LogChanges(ctx context.Context, calendarID, token string, first int) (*calendar.ChangePage, error) {
	t, err := s.logToken(token, calendarID, false)
	if err != nil {
		return nil, err
	}
	return s.readCalendarLog(ctx, t, first, nil)
}

// readCalendarLog reads a calendar's log after t. The page's calendar is
// cal, or when nil the calendar as read with the changed objects (in the
// same BatchGetItem, one more key).
func (s *Store) readCalendarLog(ctx context.Context, t syncToken, first int, cal *calendar.Calendar) (*calendar.ChangePage, error) {
	objects, next, more, err := s.readLog(ctx, calendarPartition(t.owner), t, first)
	if err != nil {
		return nil, err
	}
	changes, read, err := s.currentObjects(ctx, t.owner, objects, cal == nil)
	if err != nil {
		return nil, err
	}
	return &calendar.ChangePage{Changes: changes, More: more, Token: next.encode(), Calendar: cmp.Or(cal, read)}, nil
}

// readLog reads the objects named by the records of partition's log after t,
// at most first of them, each once, in the order of their first record.
func (s *Store) readLog(ctx context.Context, partition string, t syncToken, first int) (objects []string, next syncToken, more bool, err error) {
	uncacheable(ctx, whyClock) // the next token holds the moment of the read
	at := s.clock.readNow()
	seen := make(map[seenRecord]bool, len(t.seen))
	for _, r := range t.seen {
		seen[r] = true
	}
	in := logQuery(partition, t.low).input(s.table)
	var taken []seenRecord
	have := map[string]bool{}
	read := 0
scan:
	for {
		in.Limit = aws.Int32(int32(min(maxLogRecords-read, 2*first+len(t.seen)+1)))
		out, err := s.reads.Query(ctx, in)
		if err != nil {
			return nil, t, false, fmt.Errorf("read change log %s: %w", partition, err)
		}
		for _, it := range out.Items {
			read++
			r, err := parseChangeKey(stringAttr(it, attrSK))
			if err != nil {
				return nil, t, false, err
			}
			if seen[r] {
				continue
			}
			obj := stringAttr(it, "object")
			if !have[obj] {
				if len(objects) == first {
					more = true
					break scan
				}
				have[obj] = true
				objects = append(objects, obj)
			}
			taken = append(taken, r)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		if read >= maxLogRecords {
			more = true
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	cut := at.Add(-overlapWindow).UnixMicro()
	if more && len(taken) > 0 {
		cut = min(cut, taken[len(taken)-1].pos-1)
	}
	next = syncToken{owner: t.owner, user: t.user, low: max(t.low, cut)}
	for _, r := range append(t.seen, taken...) {
		if r.pos > next.low {
			next.seen = append(next.seen, r)
		}
	}
	if len(next.seen) > maxSeen { // the window narrows to the last maxSeen records
		slices.SortFunc(next.seen, func(a, b seenRecord) int { return cmp.Compare(a.pos, b.pos) })
		next.seen = next.seen[len(next.seen)-maxSeen:]
		next.low = next.seen[0].pos - 1
	}
	return objects, next, more, nil
}

// parseChangeKey reads a change record's sort key.
func parseChangeKey(sk string) (seenRecord, error) {
	rest, ok := strings.CutPrefix(sk, prefixChange)
	p, n, ok2 := strings.Cut(rest, "#")
	pos, err := strconv.ParseInt(p, 10, 64)
	nonce, err2 := strconv.ParseUint(n, 16, 32)
	if !ok || !ok2 || err != nil || err2 != nil {
		return seenRecord{}, fmt.Errorf("malformed change record key %q", sk)
	}
	return seenRecord{pos: pos, nonce: uint32(nonce)}, nil
}

// currentObjects reads a calendar's objects as they are now: one
// BatchGetItem, then one Query per series for its exceptions. A missing
// object is a tombstone. With withCalendar (and objects to read), the
// calendar is read in the same BatchGetItem and returned (nil when gone).
func (s *Store) currentObjects(ctx context.Context, calendarID string, objects []string, withCalendar bool) ([]calendar.ObjectChange, *calendar.Calendar, error) {
	keys := make([]itemKey, len(objects), len(objects)+1)
	for i, obj := range objects {
		switch {
		case obj == changedCalendar:
			keys[i] = calendarKey(calendarID)
		case strings.HasPrefix(obj, changedMember):
			keys[i] = membershipKey(calendarID, strings.TrimPrefix(obj, changedMember))
		case strings.HasPrefix(obj, changedEntry):
			keys[i] = entryKey(calendarID, strings.TrimPrefix(obj, changedEntry))
		default:
			return nil, nil, fmt.Errorf("unknown changed object %q", obj)
		}
	}
	if withCalendar && len(objects) > 0 {
		keys = append(keys, calendarKey(calendarID)) // batchGet reads a key once
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	changes := make([]calendar.ObjectChange, len(objects))
	for i, obj := range objects {
		c, err := objectChange(calendarID, obj, items[keys[i]])
		if err != nil {
			return nil, nil, err
		}
		changes[i] = c
	}
	var cal *calendar.Calendar
	if it := items[calendarKey(calendarID)]; withCalendar && it != nil {
		r, err := decodeCalendarRecord(it)
		if err != nil {
			return nil, nil, err
		}
		cal = r.calendar()
	}
	return changes, cal, s.withSeries(ctx, changes)
}

// objectChange turns a calendar object's item (nil when gone) into its change.
func objectChange(calendarID, obj string, it item) (calendar.ObjectChange, error) {
	c := calendar.ObjectChange{CalendarID: calendarID, Deleted: it == nil}
	switch {
	case obj == changedCalendar:
		c.Type, c.ID = calendar.ObjectCalendar, calendarID
		if it != nil {
			r, err := decodeCalendarRecord(it)
			if err != nil {
				return c, err
			}
			c.Calendar = r.calendar()
		}
	case strings.HasPrefix(obj, changedMember):
		c.Type, c.ID = calendar.ObjectMembership, strings.TrimPrefix(obj, changedMember)
		if it != nil {
			r, err := decodeMembershipRecord(it)
			if err != nil {
				return c, err
			}
			c.Membership = r.membership()
		}
	default:
		c.Type, c.ID = calendar.ObjectEntry, strings.TrimPrefix(obj, changedEntry)
		if it != nil {
			r, err := decodeEntryRecord(it)
			if err != nil {
				return c, err
			}
			if c.Entry, err = r.entry(); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// seriesReads bounds the series read at once.
const seriesReads = 8

// withSeries reads the whole series of the changes that are series' masters.
func (s *Store) withSeries(ctx context.Context, changes []calendar.ObjectChange) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(seriesReads)
	for i := range changes {
		c := &changes[i]
		if c.Entry == nil || !c.Entry.IsSeries() {
			continue
		}
		g.Go(func() error {
			st, err := s.readSeries(gctx, c.CalendarID, c.ID)
			switch {
			case calendar.ErrorCode(err) == calendar.CodeNotFound: // deleted since
				*c = calendar.ObjectChange{Type: c.Type, CalendarID: c.CalendarID, ID: c.ID, Deleted: true}
				return nil
			case err != nil:
				return err
			}
			c.Entry, c.Series = st.Master, st.Series
			return nil
		})
	}
	return g.Wait()
}

// fullRead continues a full read of a calendar: the calendar, then its
// members, then its entries and series, up to first objects per call.
func (s *Store) fullRead(ctx context.Context, acc *access, t syncToken, first int) (*calendar.ChangePage, error) {
	page := &calendar.ChangePage{}
	for len(page.Changes) < first && t.full {
		switch t.phase {
		case phaseCalendar:
			page.Changes = append(page.Changes, calendar.ObjectChange{Type: calendar.ObjectCalendar,
				CalendarID: t.owner, ID: t.owner, Calendar: acc.calendar})
			t.phase = phaseMembers
		case phaseMembers, phaseEntries:
			lo, hi := prefixRange(prefixMember)
			keep := []string{entityMembership}
			if t.phase == phaseEntries {
				lo, hi = entryKeyRange()
				keep = []string{entityEntry, entitySeries}
			}
			items, last, done, err := s.partitionPage(ctx, calendarPartition(t.owner), lo, hi, t.after, keep, first-len(page.Changes))
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				sk := stringAttr(it, attrSK)
				obj := changedCalendar
				if t.phase == phaseMembers {
					obj = sk
				} else {
					obj = sk[:len(changedEntry)+idLength]
				}
				c, err := objectChange(t.owner, obj, it)
				if err != nil {
					return nil, err
				}
				page.Changes = append(page.Changes, c)
			}
			t.after = last
			if done {
				t.after = ""
				if t.phase == phaseMembers {
					t.phase = phaseEntries
				} else {
					t = syncToken{owner: t.owner, low: t.low} // whole: the log from where it began
				}
			}
		default:
			return nil, fmt.Errorf("full read phase %d", t.phase)
		}
	}
	page.More, page.Token, page.Calendar = t.full, t.encode(), acc.calendar
	return page, s.withSeries(ctx, page.Changes)
}

// partitionPage reads up to limit items of a partition's sort keys [lo, hi]
// after the sort key after whose entityType is one of keep, and returns the
// sort key it stopped at and whether the range is done.
func (s *Store) partitionPage(ctx context.Context, partition, lo, hi, after string, keep []string, limit int) (items []item, last string, done bool, err error) {
	kq := keyQuery{pkAttr: attrPK, partition: partition, sk: skBetween(attrSK, lo, hi), consistent: true, filter: entityTypeIn(keep)}
	if after != "" {
		if after < lo || after > hi {
			return nil, "", false, calendar.Invalidf("syncToken", "syncToken is not a sync token of this calendar")
		}
		kq.start = itemKey{PK: partition, SK: after}.av()
	}
	q := kq.input(s.table)
	for len(items) < limit {
		q.Limit = aws.Int32(int32(limit - len(items)))
		out, err := s.reads.Query(ctx, q)
		if err != nil {
			return nil, "", false, fmt.Errorf("read %s: %w", partition, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, "", true, nil
		}
		last = stringAttr(out.LastEvaluatedKey, attrSK)
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return items, last, false, nil
}

// entityTypeIn keeps the items whose entityType is one of keep.
func entityTypeIn(keep []string) filter {
	f := filter{names: map[string]string{"#et": "entityType"}, values: make(item, len(keep))}
	in := make([]string, len(keep))
	for i, e := range keep {
		in[i] = ":e" + strconv.Itoa(i)
		f.values[in[i]] = &types.AttributeValueMemberS{Value: e}
	}
	f.expr = "#et IN (" + strings.Join(in, ", ") + ")"
	return f
}

// CalendarListChanges implements calendar.SyncService.
func (s *Store) CalendarListChanges(ctx context.Context, token string, first int) (*calendar.CalendarListPage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	if err := calendar.ValidateChangePage(first); err != nil {
		return nil, err
	}
	t, err := s.parseToken(token, viewer, true)
	if err != nil {
		return nil, err
	}
	if t.full && t.phase != phaseList { // a full read of the invitations
		return nil, calendar.Invalidf("syncToken", "syncToken is not a sync token of this calendar list")
	}
	if t.full {
		return s.fullList(ctx, t, first)
	}
	return s.readUserLog(ctx, t, first)
}

// UserLogChanges implements calendar.SyncService.
func (s *Store) UserLogChanges(ctx context.Context, userID, token string, first int) (*calendar.CalendarListPage, error) {
	t, err := s.logToken(token, userID, true)
	if err != nil {
		return nil, err
	}
	return s.readUserLog(ctx, t, first)
}

// readUserLog reads a user's calendar-list log after t: each membership named
// is read with its calendar, and one of them missing removes the calendar
// from the list.
func (s *Store) readUserLog(ctx context.Context, t syncToken, first int) (*calendar.CalendarListPage, error) {
	objects, next, more, err := s.readLog(ctx, userPartition(t.owner), t, first)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(objects))
	for _, obj := range objects {
		if id, ok := strings.CutPrefix(obj, changedMember); ok { // not an invitation (invited.go)
			ids = append(ids, id)
		}
	}
	changes, err := s.listChanges(ctx, t.owner, ids, nil)
	if err != nil {
		return nil, err
	}
	invitations, err := s.invitationChanges(ctx, t.owner, objects)
	if err != nil {
		return nil, err
	}
	alerts, err := s.alertsNamed(ctx, t.owner, objects)
	if err != nil {
		return nil, err
	}
	return &calendar.CalendarListPage{Changes: changes, Invitations: invitations, Alerts: alerts, More: more, Token: next.encode()}, nil
}

// listChanges reads user's memberships of calendarIDs (given ones are not
// read again) and their calendars.
func (s *Store) listChanges(ctx context.Context, userID string, calendarIDs []string, known map[string]*calendar.Membership) ([]calendar.CalendarListChange, error) {
	var keys []itemKey
	for _, id := range calendarIDs {
		keys = append(keys, calendarKey(id))
		if known[id] == nil {
			keys = append(keys, membershipKey(id, userID))
		}
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	changes := make([]calendar.CalendarListChange, len(calendarIDs))
	for i, id := range calendarIDs {
		c := calendar.CalendarListChange{CalendarID: id, Membership: known[id]}
		if it := items[membershipKey(id, userID)]; it != nil {
			r, err := decodeMembershipRecord(it)
			if err != nil {
				return nil, err
			}
			c.Membership = r.membership()
		}
		if c.Membership == nil || items[calendarKey(id)] == nil {
			c = calendar.CalendarListChange{CalendarID: id, Removed: true}
		}
		changes[i] = c
	}
	return changes, nil
}

// fullList reads a user's whole calendar list, a page at a time (from GSI1,
// whose lag the overlap window covers), leaving out deleted calendars whose
// memberships are still being removed.
func (s *Store) fullList(ctx context.Context, t syncToken, first int) (*calendar.CalendarListPage, error) {
	p, err := s.MembershipsOfUser(ctx, t.owner, calendar.Page{First: first, After: t.after})
	if calendar.ErrorCode(err) == calendar.CodeInvalid {
		return nil, calendar.Invalidf("syncToken", "syncToken is not a sync token of this calendar list")
	}
	if err != nil {
		return nil, err
	}
	known := map[string]*calendar.Membership{}
	ids := make([]string, len(p.Memberships))
	for i, m := range p.Memberships {
		ids[i], known[m.CalendarID] = m.CalendarID, m
	}
	changes, err := s.listChanges(ctx, t.owner, ids, known)
	if err != nil {
		return nil, err
	}
	page := &calendar.CalendarListPage{}
	for _, c := range changes {
		if !c.Removed {
			page.Changes = append(page.Changes, c)
		}
	}
	t.after = p.EndCursor
	if !p.HasNextPage {
		t = syncToken{owner: t.owner, user: true, low: t.low}
	}
	page.More, page.Token = t.full, t.encode()
	return page, nil
}
