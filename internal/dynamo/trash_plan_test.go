package dynamo_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestSeriesTrashPlan pins what deleting and restoring a series with two
// exceptions and 100 calgraph users as attendees costs (both in steps:
// trash_steps.go, trash_restore.go): the calls by operation, the items
// they write, and the restore's switch action by action.
func TestSeriesTrashPlan(t *testing.T) {
	f := newFixture(t)
	m := f.meetingWithExceptions(calendar.MaxAttendees)
	was, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	c := &callCounter{calls: map[string]int{}, items: map[string]int{}}
	counted := dynamo.New(dynamotest.Client(t, c.option()), f.store.Table(), engine)
	var plans [][]string
	dynamo.SetPlanHook(counted, func(plan []string) { plans = append(plans, plan) })
	measure := func(what string, do func() error) string {
		clear(c.calls)
		clear(c.items)
		c.on.Store(true)
		start := time.Now()
		err := do()
		c.on.Store(false)
		f.mustDo(err)
		t.Logf("%s took %v", what, time.Since(start))
		return fmt.Sprint(c.calls, " ", c.items)
	}
	// Reads: access (BatchGetItem, twice: deleteEntry's, then the series
	// edit's); the series, its attendees as stored, its key range as
	// stored (Query ×3); what is left after the switch: the
	// exceptions, the attendees (Query ×2); the users' own reminders
	// (Query) and the trash ref, whose purge time they get (GetItem).
	// Writes: the pending item (a transaction of 1), the switch
	// (10 actions), the exceptions' deletes (BatchWriteItem), the
	// attendees with their log records (49 to a transaction: 3), the
	// pending item's delete (DeleteItem).
	got := measure("the deletion", func() error { return counted.DeleteEntry(m.organizer, m.entry.Key(), was.Master.Version) })
	want := "map[BatchGetItem:2 BatchWriteItem:1 DeleteItem:1 GetItem:1 Query:6 TransactWriteItems:5] map[BatchGetItem:2 BatchWriteItem:2 DeleteItem:1 GetItem:1 Query:6 TransactWriteItems:210]"
	if got != want {
		t.Errorf("a series deletion in steps, calls and items by operation:\ngot  %s\nwant %s", got, want)
	}
	plans = nil
	// Reads: access, the trash ref and any deletion under way
	// (BatchGetItem), the trash item (GetItem), the copies to index and
	// the parts (Query ×2: none). Writes: the pending item (a transaction
	// of 1), the exceptions and attendee copies (5 BatchWriteItem, 102
	// items), the switch (10 actions, below), the indexing with log
	// records (3 transactions of 98, 98 and 4), the pending item's delete
	// (DeleteItem).
	got = measure("the restore", func() error { _, _, err := counted.RestoreEntry(m.organizer, m.entry.Key()); return err })
	want = "map[BatchGetItem:1 BatchWriteItem:5 DeleteItem:1 GetItem:1 Query:3 TransactWriteItems:5] map[BatchGetItem:1 BatchWriteItem:102 DeleteItem:1 GetItem:1 Query:3 TransactWriteItems:211]"
	if got != want {
		t.Errorf("a series restore in steps, calls and items by operation:\ngot  %s\nwant %s", got, want)
	}
	var switchOver []string
	for _, p := range plans {
		if len(p) > 0 && strings.Contains(strings.Join(p, "\n"), "RESTORED") {
			switchOver = p
		}
	}
	names := strings.NewReplacer(m.cal.ID, "cal", m.entry.ID, "s", viewer(t, m.organizer), "org")
	for i, line := range switchOver {
		switchOver[i] = names.Replace(line)
		if at := strings.Index(switchOver[i], "TRASH#"); at >= 0 {
			switchOver[i] = switchOver[i][:at+6] + "<deletedAt>" + switchOver[i][at+6+24:]
		}
	}
	wantSwitch := []string{
		`Check CAL#cal/MEMBER#org if (attribute_exists (PK)) AND (role IN ("OWNER", "WRITER"))`,
		"Check PENDING/trash#cal/s if attribute_not_exists (PK)",
		"Delete CAL#cal/TRASH#<deletedAt>#s if attribute_exists (PK)",
		`Delete CAL#cal/TRASHREF#s if trashSK = "TRASH#<deletedAt>#s"`,
		"Put CAL#cal/ENTRY#s if attribute_not_exists (PK)", // the master; its exceptions and attendees are there already, unread
		"Check PENDING/restore#cal/s if (attribute_exists (PK)) AND (attribute_not_exists (abandoned))",
		"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists(PK)",
		`Update USER#org/STATS#TOTALS SET entityType = "STATS_TOTALS" ADD events 1`,
		"Put CAL#cal/HIST#s#05 history record 5 of s after 4 (RESTORED)",
		"Put CAL#cal/CHG#… change record of ENTRY#s",
	}
	if diff := cmp.Diff(wantSwitch, switchOver); diff != "" {
		t.Errorf("the restore's switch (-want +got):\n%s", diff)
	}
}
