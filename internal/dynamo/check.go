package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Check scans the whole table and returns every broken invariant it finds,
// as sentences; none means the table is consistent. It is for tests and the
// `check` command, not for a table under heavy load (it reads everything):
//
//   - every user has its email and identity uniqueness items, and every
//     uniqueness item names a user with that email or identity;
//   - every calendar has an owner tally equal to its OWNER memberships, and
//     at least one; every membership's calendar and user exist;
//   - every entry has all its pieces and no more; every exception's series
//     exists in the exception's generation;
//   - a resource calendar's slot and day items are exactly what its entries
//     and series book; a calendar that is not a resource has none;
//   - every feed has its token item, and every token item its feed;
//   - every invitation is on GSI2;
//   - every attendee's entry exists; each entry's summary (and each of its
//     pieces') equals a recount of its attendees; a user attendee is on
//     GSI1, a waitlisted one on LSI2 under a ticket the entry handed out;
//     an attendee changed within the retention has its entry's change record;
//   - every calendar, membership, entry and series changed within the change
//     log's retention has a change record in its calendar's log, and every
//     such membership one in its user's log too;
//   - every entry and series written since history began (it has a last
//     editor, or records) has the record of its last write (at seq 1, its
//     item stands for its CREATED record: history_write.go), and its records
//     form one unbroken chain back to where it began or the ring dropped
//     the older ones (check_history.go);
//   - every user's own reminders decode whole and within their bounds, in
//     their entry's calendar, and their entry or series exists;
//   - every user's stats items count exactly the entries and series they
//     created that exist (totals, due times, and starts wherever a read can
//     still reach them), and their latest creation is no earlier than any
//     of their events'; no stats tree node counts a child it does not have;
//   - every webhook's user exists, and its waiting count is the number of
//     deliveries waiting for it; no delivery waits for a missing webhook.
//
// Items of a calendar or user whose deletion is under way (pending) count as
// consistent: the deletion finishes them.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	c := &checker{store: s, users: map[string]userRecord{}, calendars: map[string]calendarRecord{},
		byCalendar: map[string][]item{}, pending: map[string]bool{}, changed: map[changeRef]bool{},
		stats: map[string]*statsSeen{}, counted: map[string]*calendar.Tally{}, created: map[string]time.Time{},
		hooks: map[itemKey]*hookSeen{}}
	if err := s.scan(ctx, c.add); err != nil {
		return nil, err
	}
	c.checkUsers()
	c.checkCalendars()
	c.checkHolds()
	c.checkStats()
	c.checkReminders()
	c.checkWebhooks()
	c.checkCalHooks()
	slices.Sort(c.problems)
	return c.problems, nil
}

// scan calls fn with every item of the table, read consistently.
func (s *Store) scan(ctx context.Context, fn func(item) error) error {
	in := &dynamodb.ScanInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true)}
	for {
		page, err := s.db.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("scan %s: %w", s.table, err)
		}
		for _, it := range page.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

type checker struct {
	store      *Store
	users      map[string]userRecord
	calendars  map[string]calendarRecord
	emails     []guardRecord
	identities []guardRecord
	feedTokens []feedRecord
	byCalendar map[string][]item     // the items of each calendar's partition
	pending    map[string]bool       // "calendar#id" and "user#id"
	changed    map[changeRef]bool    // the objects change records name, by log
	stats      map[string]*statsSeen // each user's stats items
	counted    map[string]*calendar.Tally
	hooks      map[itemKey]*hookSeen // webhooks and the deliveries waiting for them
	calHooks   *calHooksSeen         // calendar webhooks and their cursors (calhook_check.go)
	created    map[string]time.Time  // the latest creation of each user's events
	hours      []string              // the users whose working hours were read
	alerts     []*calendar.Alert     // every user's alerts
	dues       []dueRecord           // the schedule's due items
	problems   []string
}

func (c *checker) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *checker) add(it item) error {
	var err error
	switch stringAttr(it, "entityType") {
	case entityUser:
		var r userRecord
		r, err = unmarshal[userRecord](it)
		c.users[r.ID] = r
	case entityEmail:
		var r guardRecord
		r, err = unmarshal[guardRecord](it)
		c.emails = append(c.emails, r)
	case entityIdentity:
		var r guardRecord
		r, err = unmarshal[guardRecord](it)
		c.identities = append(c.identities, r)
	case entityFeedToken:
		var r feedRecord
		r, err = unmarshal[feedRecord](it)
		c.feedTokens = append(c.feedTokens, r)
	case entityPending:
		var r pendingRecord
		r, err = unmarshal[pendingRecord](it)
		c.pending[r.Kind+"#"+r.ID] = true
	case entityWorkingHours:
		var r workingHoursRecord
		if r, err = unmarshal[workingHoursRecord](it); err == nil {
			c.checkWorkingHours(r)
		}
	case entityIdempotent, entityMigration:
	case entityWebhook, entityWebhookQueued, entityWebhookWaiting:
		err = c.checkWebhookItem(it)
	case entityCalHook, entityCalHookCount, entityCalHookCursor:
		err = c.addCalHookItem(it)
	case entityStats, entityStatsTotal, entityStatsNode:
		err = c.addStats(it)
	case entityAlert:
		err = c.addAlert(it)
	case entityDue:
		err = c.addDue(it)
	case entityChange:
		c.changed[changeRef{stringAttr(it, attrPK), stringAttr(it, "object")}] = true
	case entityEntry, entitySeries:
		c.count(it)
		c.addToCalendar(it)
	case entityCalendar:
		var r calendarRecord
		r, err = decodeCalendarRecord(it)
		c.calendars[r.ID] = r
		c.byCalendar[r.ID] = append(c.byCalendar[r.ID], it)
	default:
		c.addToCalendar(it)
	}
	return err
}

// addToCalendar files an item of a calendar's partition.
func (c *checker) addToCalendar(it item) {
	pk := stringAttr(it, attrPK)
	id, ok := strings.CutPrefix(pk, prefixCalendar)
	if !ok || id == "" {
		c.problem("item %s/%s of unknown kind %q", pk, stringAttr(it, attrSK), stringAttr(it, "entityType"))
		return
	}
	c.byCalendar[id] = append(c.byCalendar[id], it)
}

// checkWorkingHours reports working hours that do not read back as valid.
// (Whose they are is checked with the users: checkUsers.)
func (c *checker) checkWorkingHours(r workingHoursRecord) {
	h, err := r.hours()
	if err == nil {
		err = h.Validate("workingHours")
	}
	if err != nil {
		c.problem("working hours of %s: %v", r.UserID, err)
	}
	c.hours = append(c.hours, r.UserID)
}

func (c *checker) checkUsers() {
	for _, id := range c.hours {
		if _, ok := c.users[id]; !ok && !c.pending[pendingUser+"#"+id] {
			c.problem("working hours of %s, who is not a user", id)
		}
	}
	emails, identities := map[string]string{}, map[string]string{}
	for _, g := range c.emails {
		emails[g.PK] = g.UserID
		if u, ok := c.users[g.UserID]; !ok || emailKey(u.Email).PK != g.PK {
			c.problem("email item %s names user %s, who does not have that email", g.PK, g.UserID)
		}
	}
	for _, g := range c.identities {
		identities[g.PK] = g.UserID
		if u, ok := c.users[g.UserID]; !ok || identityKey(u.Provider, u.Subject).PK != g.PK {
			c.problem("identity item %s names user %s, who does not have that identity", g.PK, g.UserID)
		}
	}
	for id, u := range c.users {
		if emails[emailKey(u.Email).PK] != id {
			c.problem("user %s has no email item for %s", id, u.Email)
		}
		if u.Provider != "" && identities[identityKey(u.Provider, u.Subject).PK] != id {
			c.problem("user %s has no identity item", id)
		}
	}
}

func (c *checker) checkCalendars() {
	tokens := map[string]string{}
	for _, t := range c.feedTokens {
		tokens[t.TokenHash] = t.CalendarID
	}
	feeds := map[string]bool{}
	for id, items := range c.byCalendar {
		if c.pending[pendingCalendar+"#"+id] {
			continue
		}
		cal, exists := c.calendars[id]
		if !exists {
			c.problem("calendar %s is gone but %d of its items are left, with no deletion under way", id, len(items))
			continue
		}
		cc := c.calendarCheck(cal, items)
		if cc.feed != "" {
			feeds[cc.feed] = true
			if tokens[cc.feed] != id {
				c.problem("calendar %s: its feed has no token item", id)
			}
		}
	}
	for hash, cal := range tokens {
		if !feeds[hash] && !c.pending[pendingCalendar+"#"+cal] {
			c.problem("feed token item %s names calendar %s, whose feed is not it", hash, cal)
		}
	}
}

// calendarCheck is what the checks of one calendar found.
type calendarCheck struct {
	feed string // the feed's token hash, if any
}

func (c *checker) calendarCheck(cal calendarRecord, items []item) calendarCheck {
	var out calendarCheck
	owners, tally := 0, -1
	entries := map[string]entryRecord{}
	pieces := map[string]int{}
	var exceptions []entryRecord
	var slots []slotRecord
	var days []dayRecord
	var attendees []attendeeRecord
	var pieceRecords []entryRecord
	members, raw := map[string][]calendar.Reminder{}, map[string]item{}
	var defaults []item
	var reminders []item
	var trashed, trashParts []item
	histories := map[string][]historyRecord{}
	for _, it := range items {
		raw[stringAttr(it, attrSK)] = it
		switch stringAttr(it, "entityType") {
		case entityOwnerTally:
			r, _ := unmarshal[ownerTallyRecord](it)
			tally = r.Owners
		case entityMembership:
			r, err := decodeMembershipRecord(it)
			if err != nil {
				c.problem("calendar %s: membership item %s: %v", cal.ID, keyOf(it).SK, err)
			}
			c.wantChange(r.UpdatedAt, changeRef{calendarPartition(cal.ID), changedMember + r.UserID}, "membership of "+r.UserID)
			if err := checkSettings(r.settingsRecord); err != nil {
				c.problem("calendar %s: membership of %s: %v", cal.ID, r.UserID, err)
			}
			if r.SetUpdatedAt != nil {
				c.wantChange(*r.SetUpdatedAt, changeRef{userPartition(r.UserID), changedMember + cal.ID}, "settings of "+r.UserID+" (in the user's log)")
			}
			c.wantChange(r.UpdatedAt, changeRef{userPartition(r.UserID), changedMember + cal.ID}, "membership of "+r.UserID+" (in the user's log)")
			owners += boolInt(r.Role == string(calendar.RoleOwner))
			members[r.UserID] = []calendar.Reminder{}
			if m := r.membership(); m.Settings != nil && len(m.Settings.DefaultReminders) > 0 {
				members[r.UserID] = m.Settings.DefaultReminders
			}
			if _, ok := c.users[r.UserID]; !ok && !c.pending[pendingUser+"#"+r.UserID] {
				c.problem("calendar %s: member %s does not exist", cal.ID, r.UserID)
			}
			if k := membershipIndexKey(cal.ID, r.UserID); r.GSI1PK != k.PK || r.GSI1SK != k.SK {
				c.problem("calendar %s: membership of %s is not on GSI1", cal.ID, r.UserID)
			}
		case entityEntry, entitySeries:
			r, _ := decodeEntryRecord(it)
			entries[r.ID] = r
			c.wantChange(r.UpdatedAt, changeRef{calendarPartition(cal.ID), changedEntry + r.ID}, "entry "+r.ID)
		case entityException:
			r, _ := decodeEntryRecord(it)
			exceptions = append(exceptions, r)
		case entityEntryPiece:
			r, _ := decodeEntryRecord(it)
			pieces[r.ID]++
			pieceRecords = append(pieceRecords, r)
		case entitySlot:
			r, _ := unmarshal[slotRecord](it)
			slots = append(slots, r)
		case entitySlotDay:
			r, _ := unmarshal[dayRecord](it)
			days = append(days, r)
		case entityFeed:
			r, _ := unmarshal[feedRecord](it)
			out.feed = r.TokenHash
		case entityOpeningHours:
			c.checkOpeningHours(cal, it)
		case entityAttendee:
			r, _ := unmarshal[attendeeRecord](it)
			attendees = append(attendees, r)
		case entityReminderDefs:
			defaults = append(defaults, it)
		case entityMyReminder:
			reminders = append(reminders, it)
		case entityTrash: // trash.go: a deleted entry, never a live one
			trashed = append(trashed, it)
		case entityTrashPart:
			trashParts = append(trashParts, it)
		case entityHistory:
			r, err := unmarshal[historyRecord](it)
			if err != nil {
				c.problem("calendar %s: history item %s: %v", cal.ID, keyOf(it).SK, err)
			}
			histories[r.Root] = append(histories[r.Root], r)
		case entityInvitation:
			r, _ := unmarshal[invitationRecord](it)
			if r.GSI2PK == "" || r.GSI2SK == "" {
				c.problem("calendar %s: invitation %s is not on GSI2", cal.ID, r.ID)
			}
		}
	}
	c.wantChange(cal.UpdatedAt, changeRef{calendarPartition(cal.ID), changedCalendar}, "the calendar")
	if tally != owners || owners < 1 {
		c.problem("calendar %s has %d owners and an owner tally of %d", cal.ID, owners, tally)
	}
	c.checkTrash(cal.ID, entries, trashed, trashParts)
	c.checkEntries(cal.ID, entries, exceptions, pieces)
	c.checkHistory(cal.ID, entries, histories)
	c.checkNeverHeldSeries(cal, entries, exceptions)
	c.checkBookings(cal, entries, exceptions, slots, days)
	c.checkAttendees(cal.ID, entries, pieceRecords, attendees)
	c.checkReminderDefaults(cal, defaults, members)
	c.checkWakes(cal, append(slices.Collect(maps.Values(entries)), exceptions...), raw)
	c.checkMyReminders(cal.ID, entries, reminders)
	return out
}

// wantChange reports an object changed at updated, within the retention,
// without a record in ref's log.
func (c *checker) wantChange(updated time.Time, ref changeRef, what string) {
	if updated.After(time.Now().Add(-c.store.retention+time.Hour)) && !c.changed[ref] {
		c.problem("%s: %s changed at %s without a change record", ref.partition, what, updated.Format(time.RFC3339))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
