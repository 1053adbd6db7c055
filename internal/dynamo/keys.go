package dynamo

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Attribute and index names of the table. Every item has PK and SK; the GSI key
// attributes are present only on items that belong in that index (sparse indexes).
const (
	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	attrGSI3PK = "GSI3PK"
	attrGSI3SK = "GSI3SK"
	attrGSI4PK = "GSI4PK" // GSI4's sort key is the table's SK
	attrGSI5PK = "GSI5PK"
	attrGSI5SK = "GSI5SK"
	attrLSI1SK = "LSI1SK"
	attrLSI2SK = "LSI2SK"
	attrXrev   = "xrev" // a series master's exception revision (series.go)

	// attrSeriesStart holds where a series master's first occurrence's reach
	// starts, as instantKey writes it, for a range to leave out later series.
	attrSeriesStart = "seriesStart"

	// attrReachEnd holds where an entry's reach ends (as instantKey writes
	// it) on the entry item and each piece, so a range Query's filter drops
	// the lookback's entries that end before the range (see pieces.go).
	attrReachEnd = "reachEnd"

	// attrNeverHeldSeries marks a calendar in which no series was ever
	// written (calendar.Calendar.NeverHeldSeries).
	attrNeverHeldSeries = "neverHeldSeries"

	// attrHasHolds marks a calendar on which an entry of another calendar
	// once held time (calendar.Calendar.HasHolds).
	attrHasHolds = "hasHolds"

	// indexGSI1 maps a user to their memberships (seed 001's access pattern 5).
	indexGSI1 = "GSI1"
	// indexGSI2 maps an invitation token's hash to its invitation (seed
	// 004's invitation lookup).
	indexGSI2 = "GSI2"
	// indexGSI3 maps a sign-in identity to its user (seed 001's access pattern 8).
	indexGSI3 = "GSI3"
	// indexGSI4 holds the recent writes: one change record per log and
	// transaction, by shard and position (recent.go).
	indexGSI4 = "GSI4"
	// indexGSI5 holds when entries' reminders are next to be armed, by
	// shard and instant (remind_arming.go).
	indexGSI5 = "GSI5"
	// indexLSI1 orders a calendar's entries (and their pieces) by where their
	// reach starts: one strongly consistent Query answers a range view.
	indexLSI1 = "LSI1"
	// indexLSI2 orders a calendar's tasks (open by due, completed by
	// completion) and its series (by where their last occurrence ends).
	indexLSI2 = "LSI2"
)

// Entity types, stored in every item's entityType attribute so that exports and
// consistency checks can tell items apart without parsing keys.
const (
	entityUser       = "USER"
	entityEmail      = "EMAIL"
	entityIdentity   = "IDENTITY"
	entityCalendar   = "CALENDAR"
	entityOwnerTally = "OWNER_TALLY"
	entityMembership = "MEMBERSHIP"
	entityEntry      = "ENTRY"
	entityEntryPiece = "ENTRY_PIECE"
	entitySeries     = "SERIES"
	entityException  = "EXCEPTION"
	entityFeed       = "FEED"
	entityIdempotent = "IDEMPOTENCY"
	entityInvitation = "INVITATION"
	entitySlot       = "SLOT"
	entitySlotDay    = "SLOT_DAY"
	entityPending    = "PENDING_DELETION"
	entityFeedToken  = "FEED_TOKEN"
	entityChange     = "CHANGE"
	entityStats      = "USER_STATS" // a user's whole tally, as kept before the stats trees
	entityStatsTotal = "STATS_TOTALS"
	entityStatsNode  = "STATS_NODE"
	entityAttendee   = "ATTENDEE"
	entityHold       = "HOLD"
	entityMyReminder = "MY_REMINDERS"

	entityDue          = "DUE"               // a scheduled reminder task (remind_due.go)
	entityAlert        = "ALERT"             // a user's reminder that fell due
	entityReminderDefs = "REMINDER_DEFAULTS" // a member's default reminders on a calendar

	entityWorkingHours = "WORKING_HOURS"
	entityOpeningHours = "OPENING_HOURS"

	entityHistory = "HISTORY" // a record of an entry's history (history.go)

	entityWebhook        = "WEBHOOK"
	entityWebhookQueued  = "WEBHOOK_QUEUED"
	entityWebhookWaiting = "WEBHOOK_WAITING"
	entityCalHook        = "CALENDAR_WEBHOOK"        // a calendar webhook (calhook_*.go)
	entityCalHookCursor  = "CALENDAR_WEBHOOK_CURSOR" // where it stands in one calendar's log
	entityCalHookCount   = "CALENDAR_WEBHOOK_COUNT"  // how many a user has

	entityTrash     = "TRASH"      // a deleted entry kept for restore (trash.go)
	entityTrashRef  = "TRASH_REF"  // where a trashed entry's item is, by its ID
	entityTrashPart = "TRASH_PART" // what of a trashed entry its trash item had no room for
)

// Key prefixes that queries match with begins_with.
const (
	prefixCalendar  = "CAL#"
	prefixMember    = "MEMBER#"
	prefixReach     = "SPAN#"
	prefixOpenTasks = "TASK#OPEN#"
	prefixDoneTasks = "TASK#DONE#"
	prefixSeries    = "SERIES#"
	prefixInvite    = "INVITE#"
	prefixSlot      = "SLOT#"
	prefixChange    = "CHG#"
	prefixAttendee  = "ATT#"
	prefixWaitlist  = "WAIT#"
	prefixHold      = "HOLD#"
	prefixTrash     = "TRASH#"
	prefixHistory   = "HIST#"

	prefixAlert            = "ALERT#"
	prefixReminderDefaults = "REMDEF#"
	prefixMyRem            = "MYREM#"
)

// itemKey is an item's primary key.
type itemKey struct {
	PK string
	SK string
}

// indexKey is an item's key in one GSI.
type indexKey struct {
	PK string
	SK string
}

// userKey: the user item. PK = SK = USER#<userID>.
func userKey(userID string) itemKey {
	return itemKey{PK: "USER#" + userID, SK: "USER#" + userID}
}

// A user's stats (stats.go) are items of their partition, beside the user
// item so that a profile write does not contend with entry writes; every
// one's sort key starts with STATS (statsRange).

// statsKey: the single item that held a user's whole tally before the
// stats trees (stats_legacy.go). PK = USER#<userID>, SK = STATS.
func statsKey(userID string) itemKey {
	return itemKey{PK: userPartition(userID), SK: "STATS"}
}

// statsTotalsKey: a user's totals and latest moments. SK = STATS#TOTALS.
func statsTotalsKey(userID string) itemKey {
	return itemKey{PK: userPartition(userID), SK: "STATS#TOTALS"}
}

// openingHoursKey: a resource calendar's opening hours, in its partition
// (deleted with it), read by findTimes (hours.go).
func openingHoursKey(calendarID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "HOURS"}
}

// workingHoursKey: a user's working hours, beside the user item (hours.go).
func workingHoursKey(userID string) itemKey {
	return itemKey{PK: userPartition(userID), SK: "HOURS"}
}

// statsNodePrefix starts the sort keys of stats tree nodes.
const statsNodePrefix = "STATS#N#"

// statsNodeKey: a node of a stats tree (stats_tree.go), SK =
// STATS#N#<tree><level>#<index>, e.g. STATS#N#SI1#494880, the 494,880th
// hour since 1970 of the tree of event starts at instants.
func statsNodeKey(userID string, n statsNode) itemKey {
	return itemKey{PK: userPartition(userID), SK: statsNodePrefix + n.tree.name + strconv.Itoa(n.level) + "#" + strconv.FormatInt(n.index, 10)}
}

// parseStatsNodeKey reads the node a statsNodeKey sort key names.
func parseStatsNodeKey(sk string) (statsNode, bool) {
	rest, ok := strings.CutPrefix(sk, statsNodePrefix)
	if !ok {
		return statsNode{}, false
	}
	for _, t := range statsTrees {
		rest, ok := strings.CutPrefix(rest, t.name)
		if !ok {
			continue
		}
		levelText, indexText, _ := strings.Cut(rest, "#")
		level, err := strconv.Atoi(levelText)
		if err != nil || level < 0 || level >= len(t.spans) {
			return statsNode{}, false
		}
		index, err := strconv.ParseInt(indexText, 10, 64)
		if err != nil {
			return statsNode{}, false
		}
		return statsNode{t, level, index}, true
	}
	return statsNode{}, false
}

// statsRange: the sort keys of all of a user's stats items.
func statsRange() (lo, hi string) { return prefixRange("STATS") }

// Reminders (remind_*.go). Every entry, series master and exception that
// can still start carries a wake in GSI5 (wakeIndexKey): when its next
// occurrences' reminders are to be armed. Arming writes one due item per
// reminder of a user (dueKey, kind F), in a DUE partition sorted by instant,
// which the scheduler reads from the front; settings that change whose
// reminders fire add due items of their own (kinds A and C) to arm again.
// Firing a reminder writes the user's alert (alertKey) and a record in
// their log, once: the alert's key is the reminder's identity.

// dueShards and wakeShards spread the due items and the wakes over
// partitions, so that neither is one hot partition.
const (
	dueShards  = 4
	wakeShards = 4
)

// shardOf picks one of n shards by a hash of s.
func shardOf(s string, n int) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return strconv.Itoa(int(h.Sum32() % uint32(n)))
}

// wakeIndexKey: an entry's wake in GSI5. PK = WAKE#<shard>, SK =
// <instant>#<calendar ID>#<entry ID>.
func wakeIndexKey(calendarID, entryID string, at time.Time) indexKey {
	return indexKey{PK: wakePartition(shardOf(entryID, wakeShards)), SK: instantKey(at) + "#" + calendarID + "#" + entryID}
}

// wakePartition: GSI5PK of a shard of the wakes.
func wakePartition(shard string) string { return "WAKE#" + shard }

// dueKey: a due item. PK = DUE#<shard>, SK = <instant>#<ref>, ref naming
// what is due (remind_due.go), its shard by ref.
func dueKey(at time.Time, ref string) itemKey {
	return itemKey{PK: duePartition(shardOf(ref, dueShards)), SK: instantKey(at) + "#" + ref}
}

// duePartition: a shard of the due items.
func duePartition(shard string) string { return "DUE#" + shard }

// alertKey: a user's alert, beside the user item. SK = ALERT#<alert ID>,
// so that a user's alerts sort by when they fell due.
func alertKey(userID string, id calendar.AlertID) itemKey {
	return itemKey{PK: userPartition(userID), SK: prefixAlert + id.String()}
}

// reminderDefaultsKey: a member's default reminders on a calendar, in its
// partition, so that arming reads every member's with one Query
// (prefixReminderDefaults) and they go with the calendar.
func reminderDefaultsKey(calendarID, userID string) itemKey {
	return itemKey{PK: calendarPartition(calendarID), SK: prefixReminderDefaults + userID}
}

// emailKey: the uniqueness item that reserves an email for one user, written in
// the same transaction as the user (a GSI cannot enforce uniqueness).
func emailKey(email string) itemKey {
	return itemKey{PK: "EMAIL#" + email, SK: "EMAIL#" + email}
}

// identityKey: the uniqueness item that reserves a sign-in identity for one user,
// so concurrent first sign-ins create exactly one user.
func identityKey(provider, subject string) itemKey {
	k := "IDENT#" + escape(provider) + "#" + escape(subject)
	return itemKey{PK: k, SK: k}
}

// identityIndexKey: the user item's GSI3 key, found by provider and subject.
func identityIndexKey(provider, subject, userID string) indexKey {
	return indexKey{PK: "PROV#" + escape(provider) + "#" + escape(subject), SK: "USER#" + userID}
}

// calendarKey: the calendar item. PK = SK = CAL#<calendarID>.
func calendarKey(calendarID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixCalendar + calendarID}
}

// calendarOfItemKey returns the calendar whose item k is (calendarKey), if
// it is one.
func calendarOfItemKey(k itemKey) (string, bool) {
	id, ok := strings.CutPrefix(k.PK, prefixCalendar)
	return id, ok && k.SK == k.PK
}

// ownerTallyKey: the item counting a calendar's owners, so a transaction can
// refuse to remove the last one. It sits in the calendar's partition.
func ownerTallyKey(calendarID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "OWNERS"}
}

// membershipKey: a user's membership of a calendar, in the calendar's partition so
// that one Query lists a calendar's members.
func membershipKey(calendarID, userID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixMember + userID}
}

// membershipIndexKey: the membership's GSI1 key, so that one Query lists a user's
// calendars.
func membershipIndexKey(calendarID, userID string) indexKey {
	return indexKey{PK: "USER#" + userID, SK: prefixCalendar + calendarID}
}

// entryKey: an entry, in its calendar's partition.
func entryKey(calendarID, entryID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "ENTRY#" + entryID}
}

// entryOf returns the ID of the entry or series an item of it (the entry's
// own, a piece, an exception of the series) has key k: the object its change
// records name (write.LogEntry).
func entryOf(k itemKey) string {
	id := strings.TrimPrefix(k.SK, "ENTRY#")
	return id[:min(len(id), idLength)]
}

// entryPieceKey: piece n (1-based) of a long entry, a full copy of the entry
// that makes it findable by a range query far from its start (see pieces.go).
func entryPieceKey(calendarID, entryID string, n int) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: fmt.Sprintf("ENTRY#%s#P%02d", entryID, n)}
}

// A series' master is an entry item (entryKey) that carries no LSI1 key, as
// its occurrences may go on forever, but an LSI2 key ordering it by where its
// last occurrence ends (seriesSortKey). Its exceptions sit right after it in
// the partition, so one Query reads a series whole (seriesKeyRange), and are
// stored like entries under the ID exceptionID makes, so they and their
// pieces are on LSI1 like any entry.

// exceptionID: the storage ID of the exception of series seriesID at an
// original start, in generation gen of the series' exceptions (a change of the
// series' timing or rule writes a new generation; see series.go).
func exceptionID(seriesID, gen string, originalStart time.Time) string {
	return seriesID + "#X" + gen + "#" + instantKey(originalStart)
}

// seriesKeyRange: the sort keys of a series' master, exceptions and their
// pieces, for a Query with SK BETWEEN first AND last. IDs have a fixed
// length, so no other entry's keys fall inside.
func seriesKeyRange(seriesID string) (first, last string) {
	k := entryKey("", seriesID).SK
	return k, k + "#~"
}

// seriesSortKey: LSI2 sort key of a series whose last occurrence's reach ends
// at end; forever when end is zero.
func seriesSortKey(end time.Time, seriesID string) string {
	if end.IsZero() {
		return prefixSeries + "9999-12-31T23:59:59.999Z#" + seriesID
	}
	return prefixSeries + instantKey(end) + "#" + seriesID
}

// seriesRange: the LSI2 sort keys of the series that end at from or later.
func seriesRange(from time.Time) (lo, hi string) {
	return prefixSeries + instantKey(from), prefixSeries + "~"
}

// An entry's attendees are items of its calendar's partition, under their
// own prefix (never inside entryKeyRange, so range reads, series reads and
// feeds' entry Query never meet them): one Query lists an entry's
// attendees, and one (attendeeKeyRange) a calendar's, for its feed.

// attendeeKey: attendee who of an entry (attendeeWho), SK =
// ATT#<entryId>#<who>. A per-occurrence answer (a later slice) goes right
// after it, at ATT#<entryId>#<who>#O<original start>, so one Query of the
// entry's prefix still reads every answer of every occurrence.
func attendeeKey(calendarID, entryID, who string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: attendeePrefix(entryID) + who}
}

// attendeePrefix starts the sort keys of an entry's attendees.
func attendeePrefix(entryID string) string { return prefixAttendee + entryID + "#" }

// attendeeKeyRange bounds the sort keys of every attendee of a calendar's
// entries (its partition's ATT# items), for a feed's one Query of them.
func attendeeKeyRange() (first, last string) { return prefixAttendee, prefixAttendee + "~" }

// attendeeWho names an attendee within its entry: U#<userId> for a calgraph
// user (so a change of their email keeps their answer), E#<email> (escaped)
// for an external address.
func attendeeWho(userID, email string) string {
	if userID != "" {
		return "U#" + userID
	}
	return "E#" + escape(email)
}

// attendeeIndexKey: GSI1 key of an attendee who is a calgraph user, their
// invitations inbox: GSI1PK = USER#<userId> (beside their memberships, which
// sort under CAL#), GSI1SK = ATT#<invited at>#<calendarId>#<entryId>, so the
// inbox reads newest invitation first and the key never changes while the
// invitation lasts.
func attendeeIndexKey(userID string, invitedAt time.Time, calendarID, entryID string) indexKey {
	return indexKey{PK: userPartition(userID), SK: prefixAttendee + instantKey(invitedAt) + "#" + calendarID + "#" + entryID}
}

// waitlistSortKey: LSI2 sort key of a waitlisted attendee of an entry, by
// ticket, so one strongly consistent Query (waitlistRange) finds the first
// waiting. Ticket numbers have a fixed width so keys sort by ticket.
func waitlistSortKey(entryID string, ticket int) string {
	return fmt.Sprintf("%s%s#%010d", prefixWaitlist, entryID, ticket)
}

// waitlistPrefix starts the LSI2 sort keys of an entry's waitlist.
func waitlistPrefix(entryID string) string { return prefixWaitlist + entryID + "#" }

// myRemindersKey: userID's own reminders on an entry or series (root: the
// series' ID for the series, its occurrences and exceptions; the entry's
// otherwise), SK = MYREM#<rootId>#<userId>. They live in the calendar's
// partition, so one Query of myRemindersPrefix reads every user's setting
// on one entry (the scheduler), a BatchGetItem the viewer's on many (a
// view), and the calendar's deletion sweeps them with the rest.
func myRemindersKey(calendarID, rootID, userID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: myRemindersPrefix(rootID) + userID}
}

// myRemindersPrefix starts the sort keys of every user's reminders on one
// entry or series.
func myRemindersPrefix(rootID string) string { return prefixMyRem + rootID + "#" }

// historyKey: slot n of the history of an entry or series (root: the
// series' ID for the series, its occurrences and exceptions; the entry's
// otherwise), in its calendar's partition, SK = HIST#<rootId>#<slot>. A
// record goes to slot seq mod historyKept (history.go): a ring, so each
// write puts one item and deletes none, one Query of historyPrefix reads
// an entry's whole history, and the calendar's deletion sweeps it.
func historyKey(calendarID, rootID string, slot int) itemKey {
	return itemKey{PK: calendarPartition(calendarID), SK: fmt.Sprintf("%s%s#%02d", prefixHistory, rootID, slot)}
}

// historyPrefix starts the sort keys of one entry's or series' history.
func historyPrefix(rootID string) string { return prefixHistory + rootID + "#" }

// invitationKey: an invitation, in its calendar's partition, so that one
// Query lists a calendar's invitations.
func invitationKey(calendarID, id string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixInvite + id}
}

// invitationIndexKey: an invitation's GSI2 key, found by its token's hash.
func invitationIndexKey(tokenHash string) indexKey {
	return indexKey{PK: prefixInvite + tokenHash, SK: "INVITE"}
}

// idempotencyItemKey: the marker of an idempotent request, by the name
// calendar.Once gives it (a hash of its key and its owner).
func idempotencyItemKey(name string) itemKey {
	k := "IDEM#" + name
	return itemKey{PK: k, SK: k}
}

// slotKey: the quarter hour starting at t of a resource calendar.
func slotKey(calendarID string, t time.Time) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixSlot + instantKey(t)}
}

// slotRange: the sort keys of a resource calendar's slots starting in [from, to).
func slotRange(from, to time.Time) (lo, hi string) {
	return prefixSlot + instantKey(from), prefixSlot + instantKey(to.Add(-time.Millisecond))
}

// holdKey: the time an entry of another calendar holds on calendarID
// (booking.go), by where the entry's reach ends (calendar.Entry.Reach, the
// same in every zone) and its ID: a calendar's busy read asks only for
// holds that end after its range starts, so past ones cost it nothing.
func holdKey(calendarID string, reachEnd time.Time, entryID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixHold + instantKey(reachEnd) + "#" + entryID}
}

// holdRange: the sort keys of the holds whose reach ends after from.
func holdRange(from time.Time) (lo, hi string) {
	return prefixHold + instantKey(from) + "#~", prefixHold + "~"
}

// dayKey: a day of a resource calendar, in its zone.
func dayKey(calendarID string, d calendar.Date) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "SLOTDAY#" + d.String()}
}

// trashKey: a deleted entry in its calendar's trash, ordered by when it was
// deleted (the trash lists newest first), the entry's ID keeping two
// deletions of one millisecond apart.
func trashKey(calendarID string, deletedAt time.Time, entryID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: prefixTrash + instantKey(deletedAt) + "#" + entryID}
}

// trashRefKey: which trashKey holds a deleted entry, so a restore finds it by
// the entry's ID. Its prefix sorts outside prefixTrash's range.
func trashRefKey(calendarID, entryID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "TRASHREF#" + entryID}
}

// trashPartKey: part n (1-based) of the trash item at trashSK (a trashKey's
// SK), holding what that item had no room for (trash_parts.go). Its prefix
// sorts outside prefixTrash's range, and the trash item's instant and
// entry ID keep two deletions' parts apart.
func trashPartKey(calendarID, trashSK string, n int) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: fmt.Sprintf("%s#%03d", trashPartPrefix(trashSK), n)}
}

// trashPartPrefix: the sort keys of the parts of the trash item at trashSK.
func trashPartPrefix(trashSK string) string {
	return "TRASHPART#" + strings.TrimPrefix(trashSK, prefixTrash)
}

// pendingPartition holds the deletions under way (see deletions.go).
const pendingPartition = "PENDING"

// pendingKey: a deletion under way of a calendar or a user.
func pendingKey(kind, id string) itemKey {
	return itemKey{PK: pendingPartition, SK: kind + "#" + id}
}

// pendingRange: the sort keys of every pending deletion.
func pendingRange() (lo, hi string) { return "!", "~" }

// feedKey: a calendar's feed, in its partition: the hash of its token.
func feedKey(calendarID string) itemKey {
	return itemKey{PK: prefixCalendar + calendarID, SK: "FEED"}
}

// feedTokenKey: the item a feed token's hash opens, naming its calendar.
func feedTokenKey(tokenHash string) itemKey {
	k := "FEED#" + tokenHash
	return itemKey{PK: k, SK: k}
}

// entryKeyRange: the sort keys of all of a calendar's entries, series,
// exceptions and pieces, for a Query with SK BETWEEN first AND last.
func entryKeyRange() (first, last string) { return "ENTRY#", "ENTRY#~" }

// prefixRange: the sort keys that start with prefix, as a BETWEEN range. Key
// characters after a prefix (IDs, timestamps, '#') all sort before '~'.
func prefixRange(prefix string) (lo, hi string) { return prefix, prefix + "~" }

// reachSortKey: LSI1 sort key of an entry or piece whose reach starts at start.
func reachSortKey(start time.Time, entryID string, piece int) string {
	return fmt.Sprintf("%s%s#%s#%02d", prefixReach, instantKey(start), entryID, piece)
}

// reachRange: the LSI1 sort keys of the pieces whose reach starts in [from,
// to]; the upper bound takes in every key of to's millisecond, as keys hold
// milliseconds and to may have more.
func reachRange(from, to time.Time) (lo, hi string) {
	return prefixReach + instantKey(from), prefixReach + instantKey(to) + "~"
}

// openTaskSortKey: LSI2 sort key of an open task, ordered by when it is due
// (a due date counts from its midnight UTC).
func openTaskSortKey(due time.Time, entryID string) string {
	return prefixOpenTasks + instantKey(due) + "#" + entryID
}

// doneTaskSortKey: LSI2 sort key of a completed task, ordered by completion.
func doneTaskSortKey(completedAt time.Time, entryID string) string {
	return prefixDoneTasks + instantKey(completedAt) + "#" + entryID
}

// changeKey: a change record in a calendar's partition (of its calendar,
// memberships and entries) or a user's (of their memberships), at position
// pos (microseconds since 1970, see changes.go), told apart from others at
// the same position by nonce.
func changeKey(partition string, pos int64, nonce string) itemKey {
	return itemKey{PK: partition, SK: changeSortKey(pos) + "#" + nonce}
}

// changeSortKey: the sort keys of a position's change records start with
// it; positions have a fixed width, so keys sort by position.
func changeSortKey(pos int64) string { return fmt.Sprintf("%s%016d", prefixChange, pos) }

// changesAfter: the sort keys of the change records after position pos.
func changesAfter(pos int64) (lo, hi string) { return changeSortKey(pos) + "#~", prefixChange + "~" }

// recentShardKey: GSI4PK of the write hints of a log whose partition is
// partition (recent.go): one of recentShards, by a hash of the partition, so
// that a log's hints are in one shard and shards share the writes evenly.
// GSI4's sort key is the change record's own (changeKey).
func recentShardKey(partition string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(partition))
	return recentShard(int(h.Sum32() % recentShards))
}

// Webhooks (webhook_*.go). A webhook is an item of its owner's partition;
// its deliveries wait in the outbox, partitioned by shard and sorted by when
// they are due, so that the worker reads only what is due (a Query of each
// shard up to now); deliveries for a FAILING webhook wait instead in its
// owner's partition, read only when it is resumed.

// webhookShards is how many partitions the outbox is spread over: each
// worker pass reads them all.
const webhookShards = 4

// reminderWebhookKey: a user's reminder webhook. PK = USER#<userID>, SK =
// HOOK#REMINDERS.
func reminderWebhookKey(userID string) itemKey {
	return itemKey{PK: userPartition(userID), SK: "HOOK#REMINDERS"}
}

// webhookQueuePartition: PK of outbox shard n, HOOKQ#<n>.
func webhookQueuePartition(n int) string { return "HOOKQ#" + strconv.Itoa(n) }

// webhookQueueKey: a delivery due at due for the webhook hook, in the
// shard of its webhook's partition. SK = <due instant>#<delivery ID>.
func webhookQueueKey(hook itemKey, due time.Time, deliveryID string) itemKey {
	h := fnv.New32a()
	_, _ = h.Write([]byte(hook.PK))
	return itemKey{PK: webhookQueuePartition(int(h.Sum32() % webhookShards)), SK: instantKey(due) + "#" + deliveryID}
}

// webhookDueBefore: the highest outbox sort key due at t (every delivery ID
// of t's millisecond included).
func webhookDueBefore(t time.Time) string { return instantKey(t) + "#~" }

// prefixWebhookWaiting starts the sort keys of deliveries waiting for a
// FAILING webhook, in its owner's partition.
const prefixWebhookWaiting = "HOOKWAIT#"

// webhookWaitingKey: a delivery waiting for hook, first due at since. PK =
// the webhook's, SK = HOOKWAIT#<webhook SK>#<since instant>#<delivery ID>.
func webhookWaitingKey(hook itemKey, since time.Time, deliveryID string) itemKey {
	return itemKey{PK: hook.PK, SK: webhookWaitingPrefix(hook) + instantKey(since) + "#" + deliveryID}
}

// webhookWaitingPrefix starts the sort keys of the deliveries waiting for hook.
func webhookWaitingPrefix(hook itemKey) string { return prefixWebhookWaiting + hook.SK + "#" }

// Calendar webhooks (calhook_*.go). The webhooks live in calHookShards
// partitions by their owner, so that the worker's sweep reads them all in
// a few Queries and a user's are one prefix; each follows each calendar
// through a cursor item, in calHookShards partitions by calendar, so that a
// write hint of a calendar finds its cursors with one Query.
const calHookShards = 4

// calHookPartition: PK of shard n of the calendar webhooks, CALHOOK#<n>.
func calHookPartition(n int) string { return "CALHOOK#" + strconv.Itoa(n) }

// calHookKey: a calendar webhook. PK = CALHOOK#<FNV-1a(owner) mod 4>, SK =
// <ownerID>#<webhookID>.
func calHookKey(ownerID, id string) itemKey {
	return itemKey{PK: "CALHOOK#" + shardOf(ownerID, calHookShards), SK: ownerID + "#" + id}
}

// calHookOwnerPrefix starts the sort keys of ownerID's calendar webhooks.
func calHookOwnerPrefix(ownerID string) string { return ownerID + "#" }

// calHookCursorPartition: PK of shard n of the cursors, HOOKCUR#<n>.
func calHookCursorPartition(n int) string { return "HOOKCUR#" + strconv.Itoa(n) }

// calHookCursorKey: webhook id's cursor in calendarID's log. PK =
// HOOKCUR#<FNV-1a(calendar) mod 4>, SK = <calendarID>#<ownerID>#<webhookID>.
func calHookCursorKey(calendarID, ownerID, id string) itemKey {
	return itemKey{PK: "HOOKCUR#" + shardOf(calendarID, calHookShards), SK: calendarID + "#" + ownerID + "#" + id}
}

// calHookCursorPrefix starts the sort keys of calendarID's cursors.
func calHookCursorPrefix(calendarID string) string { return calendarID + "#" }

// recentShard: GSI4PK of shard n of the write hints.
func recentShard(n int) string { return "RECENT#" + strconv.Itoa(n) }

// Change records name what changed by these object keys: "CAL" the calendar,
// "MEMBER#<user ID>" a membership of the calendar, "ENTRY#<entry ID>" an entry
// or a series (its master, exceptions and pieces); in a user's partition,
// "MEMBER#<calendar ID>" the user's membership of a calendar and
// "ATT#<calendar ID>#<entry ID>" their invitation to an entry.
const (
	changedCalendar   = "CAL"
	changedMember     = prefixMember
	changedEntry      = "ENTRY#"
	changedInvitation = prefixAttendee
	changedAlert      = prefixAlert
)

// invitationObject is the object key of a user's invitation to an entry in
// their log.
func invitationObject(calendarID, entryID string) string {
	return changedInvitation + calendarID + "#" + entryID
}

// invitationOfObject reads an invitationObject; false for any other object.
func invitationOfObject(obj string) (calendar.EntryKey, bool) {
	rest, ok := strings.CutPrefix(obj, changedInvitation)
	if !ok || len(rest) != 2*idLength+1 || rest[idLength] != '#' {
		return calendar.EntryKey{}, false
	}
	return calendar.EntryKey{CalendarID: rest[:idLength], EntryID: rest[idLength+1:]}, true
}

// instantKey formats an instant so that keys sort in time order: UTC, fixed
// width (four-digit years are guaranteed by calendar.ValidateInstant).
func instantKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// userPartition is the GSI1 partition of a user's memberships.
func userPartition(userID string) string { return "USER#" + userID }

// logOf names the change log a partition holds (a calendar's or a user's).
func logOf(partition string) calendar.LogRef {
	if id, ok := strings.CutPrefix(partition, prefixCalendar); ok {
		return calendar.LogRef{ID: id}
	}
	return calendar.LogRef{ID: strings.TrimPrefix(partition, userPartition("")), User: true}
}

// calendarPartition is the table partition holding a calendar and its members.
func calendarPartition(calendarID string) string { return prefixCalendar + calendarID }

// escape keeps a free-form key component from forging a "#" separator, so two
// different (provider, subject) pairs can never produce the same key.
func escape(s string) string {
	return strings.NewReplacer("%", "%25", "#", "%23").Replace(s)
}
