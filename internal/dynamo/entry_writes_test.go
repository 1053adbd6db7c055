package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestEntryWritesByRole(t *testing.T) {
	ops := []struct {
		name string
		do   func(f *fixture, r roles, e *calendar.Entry, ctx context.Context) error
	}{
		{"create", func(f *fixture, r roles, _ *calendar.Entry, ctx context.Context) error {
			_, _, err := f.store.CreateEntry(ctx, calendar.NewEntry{CalendarID: r.cal.ID, Title: "x", Timing: allDay("2026-01-01")})
			return err
		}},
		{"update", func(f *fixture, _ roles, e *calendar.Entry, ctx context.Context) error {
			_, _, err := f.store.UpdateEntry(ctx, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version, Title: calendar.Set("y")})
			return err
		}},
		{"complete", func(f *fixture, _ roles, e *calendar.Entry, ctx context.Context) error {
			_, _, err := f.store.SetTaskCompleted(ctx, e.Key(), e.Version, true)
			return err
		}},
		{"delete", func(f *fixture, _ roles, e *calendar.Entry, ctx context.Context) error {
			return f.store.DeleteEntry(ctx, e.Key(), e.Version)
		}},
		{"reopen", func(f *fixture, r roles, e *calendar.Entry, ctx context.Context) error {
			done, _, err := f.store.SetTaskCompleted(r.owner, e.Key(), e.Version, true)
			if err != nil {
				f.t.Fatal(err)
			}
			_, _, err = f.store.SetTaskCompleted(ctx, e.Key(), done.Version, false)
			return err
		}},
		{"move", func(f *fixture, r roles, e *calendar.Entry, ctx context.Context) error {
			to := r.cal.ID
			if viewerOrEmpty(ctx) != "" {
				to = f.calendarOf(ctx, "own").ID
			}
			_, _, err := f.store.MoveEntry(ctx, e.Key(), e.Version, to)
			return err
		}},
	}
	actors := []struct {
		name string
		ctx  func(roles) context.Context
		want calendar.Code
	}{
		{"anonymous", func(roles) context.Context { return context.Background() }, calendar.CodeUnauthenticated},
		{"outsider", func(r roles) context.Context { return r.outsider }, calendar.CodeNotFound},
		{"reader", func(r roles) context.Context { return r.reader }, calendar.CodeForbidden},
		{"writer", func(r roles) context.Context { return r.writer }, -1},
		{"owner", func(r roles) context.Context { return r.owner }, -1},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.roles()
			for _, a := range actors {
				t.Run(a.name, func(t *testing.T) {
					e, _, err := f.store.CreateEntry(r.owner, calendar.NewEntry{CalendarID: r.cal.ID, Title: "task", Timing: dueOn("2026-01-01")})
					if err != nil {
						t.Fatal(err)
					}
					err = op.do(f, r, e, a.ctx(r))
					if a.want >= 0 {
						wantCode(t, err, a.want)
					} else if err != nil {
						t.Fatalf("got %v, want success", err)
					}
				})
			}
		})
	}
}

func TestMoveEntry(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	target := f.calendarOf(r.writer, "Writer's own")
	readOnly := f.calendarOf(r.outsider, "Outsider's")
	f.share(r.outsider, readOnly, r.writer, "writer@example.com", calendar.RoleReader)
	e, _, err := f.store.CreateEntry(r.writer, calendar.NewEntry{CalendarID: r.cal.ID, Title: "trip", Timing: multiDay("2026-01-01", "2026-07-01")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ctx  context.Context
		to   string
		ver  int
		want calendar.Code
	}{
		{"into a calendar the mover only reads", r.writer, readOnly.ID, 1, calendar.CodeForbidden},
		{"into a calendar the mover is not on", r.owner, target.ID, 1, calendar.CodeNotFound},
		{"by a reader of the source", r.reader, target.ID, 1, calendar.CodeForbidden},
		{"into the same calendar", r.writer, r.cal.ID, 1, calendar.CodeInvalid},
		{"with a stale version", r.writer, target.ID, 7, calendar.CodeVersionConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.store.MoveEntry(tt.ctx, e.Key(), tt.ver, tt.to)
			wantCode(t, err, tt.want)
		})
	}
	before := f.countEntities()
	moved, _, err := f.store.MoveEntry(r.writer, e.Key(), 1, target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if moved.ID != e.ID || moved.ICalUID != e.ICalUID || moved.CalendarID != target.ID || moved.Version != 2 {
		t.Fatalf("moved entry: %+v", moved)
	}
	if after := f.countEntities(); after["ENTRY"] != before["ENTRY"] || after["ENTRY_PIECE"] != before["ENTRY_PIECE"] {
		t.Fatalf("items before %v, after %v: a move must neither lose nor copy pieces", before, after)
	}
	spec := calendar.RangeSpec{FromDate: day("2026-05-01"), ToDate: day("2026-05-08")}
	if got := f.view(r.writer, r.cal.ID, spec, "UTC"); len(got) != 0 {
		t.Fatalf("source calendar still shows %q", got)
	}
	if got := f.view(r.writer, target.ID, spec, "UTC"); len(got) != 1 {
		t.Fatalf("target calendar shows %q, want the trip", got)
	}
}

func TestConcurrentEntryUpdatesWithOneVersion(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	cal := f.calendarOf(ada, "Home")
	e, _, err := f.store.CreateEntry(ada, calendar.NewEntry{CalendarID: cal.ID, Title: "x", Timing: allDay("2026-01-01")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, _, errs[i] = f.store.UpdateEntry(ada, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: 1, Title: calendar.Set(fmt.Sprint("by ", i))})
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if calendar.ErrorCode(err) != calendar.CodeVersionConflict {
			t.Errorf("got %v, want success or VERSION_CONFLICT", err)
		}
	}
	if won != 1 {
		t.Fatalf("got %d successful updates with version 1, want exactly 1", won)
	}
}

func viewerOrEmpty(ctx context.Context) string {
	id, _ := calendar.ViewerID(ctx)
	return id
}
