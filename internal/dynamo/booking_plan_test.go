package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestBookingWritePlans pins what mustNotOverlap adds to createEntry's
// transaction: per calendar named, its item updated on condition that its
// revision is as read (raising it; the first hold on it also marks it as
// held, so that busy reads look for holds there), and for a calendar other
// than the entry's own a hold. Naming the entry's own calendar costs nothing more:
// the condition joins the raise the write makes anyway.
func TestBookingWritePlans(t *testing.T) {
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	s, db := dynamotest.Store(t, dynamo.WithClock(func() time.Time { return now }), dynamo.WithIDs(sequentialIDs()))
	f := &fixture{t: t, store: s, db: db}
	t.Cleanup(func() {
		if !t.Failed() {
			f.consistent()
		}
	})
	dynamo.SetViewCacheSettle(s, 0, time.Now)
	ann := f.user("ann@example.com") // …001
	names := map[string]string{"001": "ann"}
	name := func(id, as string) { names[id[len(id)-3:]] = as }
	cal := f.calendarOf(ann, "Ann")
	name(cal.ID, "cal")
	var others []string
	for _, n := range []string{"c1", "c2", "c3"} {
		c := f.calendarOf(ann, n)
		name(c.ID, n)
		others = append(others, c.ID)
	}
	var plans [][]string
	dynamo.SetPlanHook(s, func(p []string) { plans = append(plans, p) })
	steps := []struct {
		name  string
		named []string
		start string
		want  []string
	}{
		{"naming its own calendar", []string{cal.ID}, "2026-11-23T09:00:00Z", []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal ADD rev 1 if (attribute_exists (PK)) AND ((attribute_not_exists (rev)) OR (rev = 0))",
			"Put CAL#cal/ENTRY#e1 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c9 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCreated = 1795253400000 ADD events 1 if (attribute_not_exists(lastCreated) OR lastCreated <= 1795253400000)",
			"Put CAL#cal/CHG#… change record of ENTRY#e1",
		}},
		{"naming one other calendar", others[:1], "2026-11-23T10:00:00Z", []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Update CAL#c1/CAL#c1 SET hasHolds = true ADD rev 1 if (attribute_exists (PK)) AND ((attribute_not_exists (rev)) OR (rev = 0))",
			"Put CAL#c1/HOLD#2026-11-23T11:00:00.000Z#e2",
			"Put CAL#cal/ENTRY#e2 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c10 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCreated = 1795253400000 ADD events 1 if (attribute_not_exists(lastCreated) OR lastCreated <= 1795253400000)",
			"Put CAL#cal/CHG#… change record of ENTRY#e2",
		}},
		{"naming three other calendars", others, "2026-11-23T11:00:00Z", []string{
			"Check CAL#cal/MEMBER#ann if (attribute_exists (PK)) AND (role IN (\"OWNER\", \"WRITER\"))",
			"Update CAL#cal/CAL#cal ADD rev 1 if attribute_exists (PK)",
			"Update CAL#c1/CAL#c1 ADD rev 1 if (attribute_exists (PK)) AND (rev = 1)",
			"Update CAL#c2/CAL#c2 SET hasHolds = true ADD rev 1 if (attribute_exists (PK)) AND ((attribute_not_exists (rev)) OR (rev = 0))",
			"Update CAL#c3/CAL#c3 SET hasHolds = true ADD rev 1 if (attribute_exists (PK)) AND ((attribute_not_exists (rev)) OR (rev = 0))",
			"Put CAL#c1/HOLD#2026-11-23T12:00:00.000Z#e3",
			"Put CAL#c2/HOLD#2026-11-23T12:00:00.000Z#e3",
			"Put CAL#c3/HOLD#2026-11-23T12:00:00.000Z#e3",
			"Put CAL#cal/ENTRY#e3 if attribute_not_exists (PK)",
			"Update USER#ann/STATS#N#SI0#20780 SET entityType = \"STATS_NODE\" ADD c11 1",
			"Update USER#ann/STATS#TOTALS SET entityType = \"STATS_TOTALS\", lastCreated = 1795253400000 ADD events 1 if (attribute_not_exists(lastCreated) OR lastCreated <= 1795253400000)",
			"Put CAL#cal/CHG#… change record of ENTRY#e3",
		}},
	}
	for i, st := range steps {
		plans = nil
		start := at(st.start)
		e, _, err := s.CreateEntry(ann, calendar.NewEntry{CalendarID: cal.ID, Title: st.name,
			Timing: timed(st.start, start.Add(time.Hour).Format(time.RFC3339), "UTC"), MustNotOverlap: st.named})
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		name(e.ID, "e"+string(rune('1'+i)))
		if len(plans) != 1 {
			t.Fatalf("%s: %d transactions, want 1", st.name, len(plans))
		}
		var got []string
		for _, line := range plans[0] {
			got = append(got, readable(line, names))
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s's plan (-want +got):\n%s\ngot:\n%s", st.name, diff, quoted(got))
		}
	}
	_ = context.Background
}
