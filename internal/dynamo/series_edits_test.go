package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestSeriesChangesExcludeEachOther runs a second change of the same series
// between the first one's read and its write: the second lands, the first
// fails with VERSION_CONFLICT and writes nothing.
func TestSeriesChangesExcludeEachOther(t *testing.T) {
	type change func(f *fixture, ctx context.Context, view []*calendar.Entry) error
	this := func(when, t string) change {
		return func(f *fixture, ctx context.Context, view []*calendar.Entry) error {
			occ := find(f.t, view, paris, when)
			u := title(t)
			u.ExpectedVersion = occ.Version
			_, _, err := f.store.UpdateOccurrence(ctx, occKey(occ), calendar.ScopeThis, u)
			return err
		}
	}
	scoped := func(scope calendar.Scope, when, t string) change {
		return func(f *fixture, ctx context.Context, view []*calendar.Entry) error {
			occ := find(f.t, view, paris, when)
			u := title(t)
			u.ExpectedVersion = occ.Version
			_, _, err := f.store.UpdateOccurrence(ctx, occKey(occ), scope, u)
			return err
		}
	}
	cancelFollowing := func(when string) change {
		return func(f *fixture, ctx context.Context, view []*calendar.Entry) error {
			occ := find(f.t, view, paris, when)
			return f.store.DeleteOccurrence(ctx, occKey(occ), calendar.ScopeThisAndFollowing, occ.Version)
		}
	}
	tests := []struct {
		name          string
		first, second change
	}{
		{"ALL and ALL", scoped(calendar.ScopeAll, "01-19 09:00", "a"), scoped(calendar.ScopeAll, "01-19 09:00", "b")},
		{"THIS and THIS of one occurrence", this("02-09 09:00", "a"), this("02-09 09:00", "b")},
		{"ALL, then THIS of another occurrence", scoped(calendar.ScopeAll, "01-19 09:00", "a"), this("02-23 09:00", "b")},
		{"THIS, then ALL through another occurrence", this("02-23 09:00", "a"), scoped(calendar.ScopeAll, "01-19 09:00", "b")},
		{"a split, then THIS after it", scoped(calendar.ScopeThisAndFollowing, "02-02 09:00", "a"), this("02-23 09:00", "b")},
		{"THIS, then a split before it", this("02-23 09:00", "a"), scoped(calendar.ScopeThisAndFollowing, "02-02 09:00", "b")},
		{"ending the series, then THIS after the end", cancelFollowing("02-02 09:00"), this("02-23 09:00", "b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ada, cal := syncSeries(f)
			view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
			interleave(t, f.store, func() {
				if err := tt.second(f, ada, view); err != nil {
					t.Errorf("the change made meanwhile: %v", err)
				}
			})
			err := tt.first(f, ada, view)
			wantCode(t, err, calendar.CodeVersionConflict)
		})
	}
}

// TestConcurrentSeriesEdits sends the same kind of change from many
// goroutines at once, all with the version they read: exactly one wins.
func TestConcurrentSeriesEdits(t *testing.T) {
	for _, scope := range []calendar.Scope{calendar.ScopeThis, calendar.ScopeAll, calendar.ScopeThisAndFollowing} {
		t.Run(string(scope), func(t *testing.T) {
			f := newFixture(t)
			ada, cal := syncSeries(f)
			occ := find(t, f.occurrences(ada, cal.ID, eightWeeks, paris, false), paris, "02-02 09:00")
			const n = 8
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					u := title(fmt.Sprint("by ", i))
					u.ExpectedVersion = occ.Version
					_, _, errs[i] = f.store.UpdateOccurrence(ada, occKey(occ), scope, u)
				})
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch code := calendar.ErrorCode(err); {
				case err == nil:
					won++
				case code == calendar.CodeVersionConflict:
				case code == calendar.CodeNotFound && scope == calendar.ScopeThisAndFollowing:
					// read after the winning split: the occurrence is in the new series now
				default:
					t.Errorf("got %v, want success or VERSION_CONFLICT", err)
				}
			}
			if won != 1 {
				t.Fatalf("%d of %d concurrent %s changes won, want exactly 1", won, n, scope)
			}
		})
	}
	t.Run("THIS of different occurrences", func(t *testing.T) {
		f := newFixture(t)
		ada, cal := syncSeries(f)
		view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
		var wg sync.WaitGroup
		for _, when := range []string{"01-05 09:00", "01-19 09:00", "02-02 09:00", "02-23 09:00"} {
			occ := find(t, view, paris, when)
			wg.Go(func() {
				u := title("changed " + when)
				u.ExpectedVersion = occ.Version
				if _, _, err := f.store.UpdateOccurrence(ada, occKey(occ), calendar.ScopeThis, u); err != nil {
					t.Errorf("%s: %v", when, err)
				}
			})
		}
		wg.Wait()
	})
}

// TestLargeSeriesChanges lowers the actions per transaction so that a split
// and a retiming take the three-step path, and checks the outcome is the same
// as in one transaction, with nothing left behind.
func TestLargeSeriesChanges(t *testing.T) {
	f := newFixture(t)
	dynamo.SetMaxSeriesActions(f.store, 6)
	ada, cal := syncSeries(f)
	view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	u := title("Sync v2")
	u.Timing = calendar.Set(timed("2026-01-19T09:00:00Z", "2026-01-19T10:00:00Z", paris))
	f.edit(ada, find(t, view, paris, "01-19 09:00"), calendar.ScopeThisAndFollowing, u)
	wantShown(t, "after a large split", f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris,
		"Sync @ Mon 01-05 09:00", "Sync (moved) @ Tue 01-13 10:00", "Sync v2 @ Mon 01-19 10:00", "Sync v2 @ Mon 01-26 10:00 (cancelled)",
		"Sync v2 @ Mon 02-02 10:00", "Sync with guests @ Mon 02-09 10:00", "Sync v2 @ Mon 02-16 10:00 (cancelled)", "Sync v2 @ Mon 02-23 10:00")
	if n := f.countEntities()["EXCEPTION"]; n != 4 {
		t.Fatalf("%d exception items, want 4: the old ones after the split are deleted", n)
	}

	view = f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	f.edit(ada, find(t, view, paris, "02-02 10:00"), calendar.ScopeAll, calendar.EntryUpdate{
		Timing: calendar.Set(timed("2026-02-02T07:00:00Z", "2026-02-02T08:00:00Z", paris))}) // 08:00 from now on
	wantShown(t, "after a large retiming", f.occurrences(ada, cal.ID, eightWeeks, paris, true)[2:], paris,
		"Sync v2 @ Mon 01-19 08:00", "Sync v2 @ Mon 01-26 08:00 (cancelled)", "Sync v2 @ Mon 02-02 08:00",
		"Sync with guests @ Mon 02-09 08:00", "Sync v2 @ Mon 02-16 08:00 (cancelled)", "Sync v2 @ Mon 02-23 08:00")
	if n := f.countEntities()["EXCEPTION"]; n != 4 {
		t.Fatalf("%d exception items, want 4: the old generation is deleted", n)
	}
}

// TestLargeSeriesChangeInterrupted changes an occurrence between a large
// split's first step and its switch: the split fails, the occurrence's change
// stands, and the split's first step leaves nothing behind.
func TestLargeSeriesChangeInterrupted(t *testing.T) {
	f := newFixture(t)
	dynamo.SetMaxSeriesActions(f.store, 6)
	ada, cal := syncSeries(f)
	view := f.occurrences(ada, cal.ID, eightWeeks, paris, false)
	before := f.countEntities()
	interleave(t, f.store, func() {
		f.edit(ada, find(t, view, paris, "02-23 09:00"), calendar.ScopeThis, title("changed meanwhile"))
	})
	u := title("Sync v2")
	u.ExpectedVersion = find(t, view, paris, "01-19 09:00").Version
	_, _, err := f.store.UpdateOccurrence(ada, occKey(find(t, view, paris, "01-19 09:00")), calendar.ScopeThisAndFollowing, u)
	wantCode(t, err, calendar.CodeVersionConflict)
	wantShown(t, "after the failed split", f.occurrences(ada, cal.ID, eightWeeks, paris, false), paris,
		"Sync @ Mon 01-05 09:00", "Sync (moved) @ Tue 01-13 10:00", "Sync @ Mon 01-19 09:00",
		"Sync @ Mon 02-02 09:00", "Sync with guests @ Mon 02-09 09:00", "changed meanwhile @ Mon 02-23 09:00")
	after := f.countEntities()
	if after["EXCEPTION"] != before["EXCEPTION"]+1 || after["SERIES"] != before["SERIES"] {
		t.Fatalf("items before %v, after %v: want only the one new exception", before, after)
	}
}

// faultyTransactions returns a client option that makes the next
// TransactWriteItems fail once armed is set: after DynamoDB applied it (the
// answer lost on the way back) or before it is sent.
func faultyTransactions(armed *atomic.Bool, afterApplying bool) func(*dynamodb.Options) {
	fault := middleware.InitializeMiddlewareFunc("fault", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if middleware.GetOperationName(ctx) != "TransactWriteItems" || !armed.CompareAndSwap(true, false) {
			return next.HandleInitialize(ctx, in)
		}
		if !afterApplying {
			return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("connection refused")
		}
		out, md, err := next.HandleInitialize(ctx, in)
		if err == nil {
			err = errors.New("connection reset before the answer")
		}
		return out, md, err
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(fault, middleware.Before) })
	}
}

// TestLargeSeriesChangeWithALostAnswer makes the switch of a large change
// fail in transit, once after DynamoDB applied it and once before: the store
// finds out from the master which it was, and neither loses an exception.
func TestLargeSeriesChangeWithALostAnswer(t *testing.T) {
	for _, applied := range []bool{true, false} {
		t.Run(fmt.Sprint("applied ", applied), func(t *testing.T) {
			f := newFixture(t)
			ada, cal := syncSeries(f)
			var armed atomic.Bool
			store := dynamo.New(dynamotest.Client(t, faultyTransactions(&armed, applied)), f.store.Table(), engine)
			dynamo.SetMaxSeriesActions(store, 6)
			view := f.occurrences(ada, cal.ID, eightWeeks, paris, true)
			before := shown(view, paris)
			occ := find(t, view, paris, "02-02 09:00")
			armed.Store(true)
			_, _, err := store.UpdateOccurrence(ada, occKey(occ), calendar.ScopeAll, calendar.EntryUpdate{ExpectedVersion: occ.Version,
				Timing: calendar.Set(timed("2026-02-02T07:00:00Z", "2026-02-02T07:30:00Z", paris))})
			after := shown(f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris)
			if applied {
				if err != nil {
					t.Fatalf("a switch that was applied: %v", err)
				}
				want := []string{"Sync @ Mon 01-05 08:00", "Sync (moved) @ Tue 01-13 10:00", "Sync @ Mon 01-19 08:00", "Sync @ Mon 01-26 08:00 (cancelled)",
					"Sync @ Mon 02-02 08:00", "Sync with guests @ Mon 02-09 08:00", "Sync @ Mon 02-16 08:00 (cancelled)", "Sync @ Mon 02-23 08:00"}
				if !slices.Equal(after, want) {
					t.Fatalf("after the change:\ngot  %q\nwant %q", after, want)
				}
			} else {
				wantCode(t, err, calendar.CodeInternal)
				if !slices.Equal(after, before) {
					t.Fatalf("a failed change changed the series:\ngot  %q\nwant %q", after, before)
				}
			}
			if n := f.countEntities()["EXCEPTION"]; n != 4 {
				t.Fatalf("%d exception items, want 4: nothing left behind", n)
			}
		})
	}
}

// TestKeyedLargeSeriesChangeWithALostAnswer: under an idempotency key, a
// large change whose switch was applied though its answer was lost keeps
// its outcome, so a retry gets the result.
func TestKeyedLargeSeriesChangeWithALostAnswer(t *testing.T) {
	f := newFixture(t)
	ada, cal := syncSeries(f)
	var armed atomic.Bool
	store := dynamo.New(dynamotest.Client(t, faultyTransactions(&armed, true)), f.store.Table(), engine)
	dynamo.SetMaxSeriesActions(store, 6)
	occ := find(t, f.occurrences(ada, cal.ID, eightWeeks, paris, true), paris, "02-02 09:00")
	call := func(ctx context.Context) (int, error) {
		e, _, err := store.UpdateOccurrence(ctx, occKey(occ), calendar.ScopeAll, calendar.EntryUpdate{ExpectedVersion: occ.Version,
			Timing: calendar.Set(timed("2026-02-02T07:00:00Z", "2026-02-02T07:30:00Z", paris))})
		if err != nil {
			return 0, err
		}
		return e.Version, nil
	}
	armed.Store(true)
	first, err := calendar.Once(ada, store, "move", "fp", call)
	if err != nil {
		t.Fatalf("a switch that was applied: %v", err)
	}
	again, err := calendar.Once(ada, store, "move", "fp", call)
	if err != nil || again != first {
		t.Fatalf("retry: %d, %v, want %d", again, err, first)
	}
}

// TestRetimedSeriesKeepTheirOccurrences: a series ending with UNTIL, moved by
// ALL or split by THIS_AND_FOLLOWING with a new timing, keeps as many
// occurrences: its UNTIL moves with it.
func TestRetimedSeriesKeepTheirOccurrences(t *testing.T) {
	fortnight := calendar.RangeSpec{FromDate: day("2026-01-01"), ToDate: day("2026-01-15")}
	daily := func(f *fixture, ada context.Context, calID string) {
		f.series(ada, calID, "Daily", timed("2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z", paris), "FREQ=DAILY;UNTIL=20260109T080000Z")
	}
	tests := []struct {
		name   string
		create func(f *fixture, ada context.Context, calID string)
		at     string // the occurrence edited, as shown in Paris
		scope  calendar.Scope
		timing calendar.Timing
		want   []string
	}{
		{"ALL an hour later", daily, "01-05 09:00", calendar.ScopeAll, timed("2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", paris),
			[]string{"Daily @ Mon 01-05 10:00", "Daily @ Tue 01-06 10:00", "Daily @ Wed 01-07 10:00", "Daily @ Thu 01-08 10:00", "Daily @ Fri 01-09 10:00"}},
		{"ALL a day earlier", daily, "01-05 09:00", calendar.ScopeAll, timed("2026-01-04T08:00:00Z", "2026-01-04T09:00:00Z", paris),
			[]string{"Daily @ Sun 01-04 09:00", "Daily @ Mon 01-05 09:00", "Daily @ Tue 01-06 09:00", "Daily @ Wed 01-07 09:00", "Daily @ Thu 01-08 09:00"}},
		{"THIS_AND_FOLLOWING at the last, later", daily, "01-09 09:00", calendar.ScopeThisAndFollowing, timed("2026-01-09T09:00:00Z", "2026-01-09T10:00:00Z", paris),
			[]string{"Daily @ Mon 01-05 09:00", "Daily @ Tue 01-06 09:00", "Daily @ Wed 01-07 09:00", "Daily @ Thu 01-08 09:00", "Daily @ Fri 01-09 10:00"}},
		{"THIS_AND_FOLLOWING in the middle, a day later", daily, "01-07 09:00", calendar.ScopeThisAndFollowing, timed("2026-01-08T08:00:00Z", "2026-01-08T09:00:00Z", paris),
			[]string{"Daily @ Mon 01-05 09:00", "Daily @ Tue 01-06 09:00", "Daily @ Thu 01-08 09:00", "Daily @ Fri 01-09 09:00", "Daily @ Sat 01-10 09:00"}},
		{"all-day ALL a day later", func(f *fixture, ada context.Context, calID string) {
			f.series(ada, calID, "Off", allDay("2026-01-05"), "FREQ=DAILY;UNTIL=20260109")
		}, "01-05 00:00", calendar.ScopeAll, allDay("2026-01-06"),
			[]string{"Off @ Tue 01-06 00:00", "Off @ Wed 01-07 00:00", "Off @ Thu 01-08 00:00", "Off @ Fri 01-09 00:00", "Off @ Sat 01-10 00:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ada := f.user("ada@example.com")
			cal := f.calendarOf(ada, "Work")
			tt.create(f, ada, cal.ID)
			occ := find(t, f.occurrences(ada, cal.ID, fortnight, paris, false), paris, tt.at)
			f.edit(ada, occ, tt.scope, calendar.EntryUpdate{Timing: calendar.Set(tt.timing)})
			wantShown(t, tt.name, f.occurrences(ada, cal.ID, fortnight, paris, false), paris, tt.want...)
		})
	}
}
