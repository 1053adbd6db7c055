package dynamo_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// TestSplitOfHundredAttendees: a THIS_AND_FOLLOWING split of a series
// with 100 calgraph users as attendees, too many for one transaction,
// carries every answer (series, single occurrence, and following) to the
// side it belongs to; the fixture's Check finds the table consistent.
func TestSplitOfHundredAttendees(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(calendar.MaxAttendees)
	before, tokens := f.summariesOn(m), f.tokensOf(m)
	split, err := f.splitAt(f.store, m, 10)
	f.mustDo(err)
	f.wantSplitRight(m, split, before, tokens)
	if n := f.countEntities()["ATTENDEE"]; n != 2*calendar.MaxAttendees {
		t.Errorf("%d attendee items, want %d", n, 2*calendar.MaxAttendees)
	}
}

// TestSplitCrashes: a split whose process stops after any of its steps
// leaves a table Check finds consistent, shows no copy of an attendee
// before the series split off exists, and, once ResumeDeletions has run,
// is either not made at all (stopped before its switch) or made whole,
// each invitation once.
func TestSplitCrashes(t *testing.T) {
	for _, step := range []string{"copied", "switched", "indexed"} {
		t.Run(step, func(t *testing.T) {
			f := newFixture(t)
			m := f.crowdedMeeting(30)
			f.edit(m.organizer, m.entry.OccurrenceAt(dayOf(12)), calendar.ScopeThis, title("Retro")) // an exception the split moves
			dynamo.SetMaxSeriesActions(f.store, 20)
			before, tokens := f.summariesOn(m), f.tokensOf(m)
			was, err := f.store.Series(m.organizer, m.entry.Key())
			f.mustDo(err)
			stopped := fmt.Errorf("stopped after %s", step)
			dynamo.SetSplitHook(f.store, func(at string) error {
				if at == step {
					return stopped
				}
				return nil
			})
			_, err = f.splitAt(f.store, m, 10)
			if err == nil {
				t.Fatalf("the split did not stop")
			}
			dynamo.SetSplitHook(f.store, nil)
			f.consistent()
			s, err := f.store.Series(m.organizer, m.entry.Key())
			f.mustDo(err)
			switched := s.Master.Version != was.Master.Version
			if want := step != "copied"; switched != want {
				t.Fatalf("switched: %v, want %v", switched, want)
			}
			for i := range tokens {
				if n := len(f.invitationsBut(m.guests[i], m.entry.Key())); n != 0 && step == "copied" {
					t.Errorf("guest %d sees %d copies of an unmade split", i, n)
				}
			}
			later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
			n, err := later.ResumeDeletions(context.Background())
			f.mustDo(err)
			if n != 1 {
				t.Errorf("resumed %d, want the split", n)
			}
			f.consistent()
			if step == "copied" {
				if n := f.countEntities()["ATTENDEE"]; n != len(m.guests) {
					t.Errorf("%d attendee items left, want %d", n, len(m.guests))
				}
				split, err := f.splitAt(f.store, m, 10) // made again, whole
				f.mustDo(err)
				f.wantSplitRight(m, split, before, tokens)
				return
			}
			others := f.invitationsBut(m.guests[0], m.entry.Key())
			if len(others) != 1 {
				t.Fatalf("guest 0 is invited to %d other entries, want the new series", len(others))
			}
			split, err := f.store.Series(m.organizer, others[0])
			f.mustDo(err)
			f.wantSplitRight(m, split.Master, before, tokens)
			for _, o := range f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", false) {
				if o.OriginalStart.Equal(dayOf(12)) && (o.Title != "Retro" || o.SeriesID != split.Master.ID) {
					t.Errorf("December 12 shows %q of series %s, want the exception on the new series", o.Title, o.SeriesID)
				}
			}
		})
	}
}

// TestSplitWhileAnswering: answers land between a split's copy and its
// switch (from its hook, so surely) and alongside it (goroutines); each
// answer that succeeded shows on the series split off, and one refused
// (the occurrence moved to the new series) is given there again. None is
// lost.
func TestSplitWhileAnswering(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(40)
	dynamo.SetMaxSeriesActions(f.store, 20)
	hooked := 0
	dynamo.SetSplitHook(f.store, func(at string) error {
		if at == "copied" && hooked < 2 { // the first attempt, and the one built again
			_, err := f.answer(m, m.guests[hooked+1], 12, calendar.ScopeThis, calendar.ResponseAccepted)
			hooked++
			return err
		}
		if at == "switched" { // between the switch and the indexing: an answer to the new series
			for _, o := range f.occurrences(m.organizer, m.cal.ID, weekOf("2026-12-07"), "UTC", false) {
				if o.SeriesID != m.entry.ID && o.OriginalStart.Equal(dayOf(11)) {
					key := calendar.EntryKey{CalendarID: m.cal.ID, EntryID: o.SeriesID}
					own, err := f.store.Attendance(m.guests[3], key)
					f.mustDo(err)
					_, err = f.store.Respond(m.guests[3], calendar.RSVP{Key: key,
						Occurrence: dayOf(11), Scope: calendar.ScopeThis, ExpectedVersion: own.Version, Response: calendar.ResponseDeclined})
					return err
				}
			}
			return fmt.Errorf("no occurrence of the new series on December 11")
		}
		return nil
	})
	racers := m.guests[10:30]
	errs := make(chan error, len(racers))
	for _, g := range racers {
		go func() {
			_, err := f.answer(m, g, 13, calendar.ScopeThis, calendar.ResponseAccepted)
			errs <- err
		}()
	}
	split, err := f.splitAt(f.store, m, 10)
	for tries := 1; calendar.ErrorCode(err) == calendar.CodeUnavailable && tries < 3; tries++ { // as a client would
		split, err = f.splitAt(f.store, m, 10)
	}
	f.mustDo(err)
	refused := 0
	for range racers {
		if err := <-errs; err != nil {
			if calendar.ErrorCode(err) != calendar.CodeNotFound && calendar.ErrorCode(err) != calendar.CodeVersionConflict {
				t.Fatalf("an answer racing the split: %v", err)
			}
			refused++
		}
	}
	dynamo.SetSplitHook(f.store, nil)
	t.Logf("%d of %d racing answers were refused and given again", refused, len(racers))
	for i, g := range m.guests {
		if i >= 10 && i < 30 {
			a, err := f.store.Attendance(g, split.Key())
			f.mustDo(err)
			if a.AtOccurrence(dayOf(13), 0).Response != calendar.ResponseAccepted { // refused: given again on the new series
				r := calendar.RSVP{Key: split.Key(), Occurrence: dayOf(13), Scope: calendar.ScopeThis, ExpectedVersion: a.Version, Response: calendar.ResponseAccepted}
				_, err := f.store.Respond(g, r)
				f.mustDo(err)
			}
		}
	}
	for i, g := range m.guests {
		a, err := f.store.Attendance(g, split.Key())
		f.mustDo(err)
		want13 := a.AtOccurrence(dayOf(13), 0).Response
		if i >= 10 && i < 30 && want13 != calendar.ResponseAccepted {
			t.Errorf("guest %d's answer to December 13 is %s on the new series, want ACCEPTED", i, want13)
		}
		if got := a.AtOccurrence(dayOf(12), 0).Response; (i == 1 || i == 2) && got != calendar.ResponseAccepted {
			t.Errorf("guest %d answered December 12 between the copy and the switch; the new series shows %s", i, got)
		}
	}
	if a, err := f.store.Attendance(m.guests[3], split.Key()); err != nil || a.AtOccurrence(dayOf(11), 0).Response != calendar.ResponseDeclined {
		t.Errorf("guest 3 declined December 11 between the switch and the indexing; the new series shows %v (%v)", a, err)
	}
	if n := f.inboxHas(m.guests[3], split.Key()); n != 1 {
		t.Errorf("guest 3, who answered before the indexing, sees the new series %d times in their inbox, want once", n)
	}
	if hooked != 2 {
		t.Errorf("the hook answered %d times, want 2 (the first switch refused, the second made)", hooked)
	}
}

// TestSplitSettledUnderWay: ResumeDeletions settling a split while it is
// still under way (its request slower than splitGrace) abandons it and
// removes its copies; the split's switch then fails, and the split is
// built again and made whole.
func TestSplitSettledUnderWay(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(30)
	dynamo.SetMaxSeriesActions(f.store, 20)
	before, tokens := f.summariesOn(m), f.tokensOf(m)
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
	settled := 0
	dynamo.SetSplitHook(f.store, func(at string) error {
		if at != "copied" || settled > 0 {
			return nil
		}
		n, err := later.ResumeDeletions(context.Background())
		settled += n
		return err
	})
	split, err := f.splitAt(f.store, m, 10)
	f.mustDo(err)
	dynamo.SetSplitHook(f.store, nil)
	if settled != 1 {
		t.Fatalf("ResumeDeletions settled %d splits, want the one under way", settled)
	}
	f.wantSplitRight(m, split, before, tokens)
}

// TestSplitCopyFails: a split whose copies cannot be written (every
// BatchWriteItem failing) is refused and leaves a table Check finds
// consistent, with nothing left once ResumeDeletions has run; the split
// made again is whole.
func TestSplitCopyFails(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(30)
	before, tokens := f.summariesOn(m), f.tokensOf(m)
	var stopped atomic.Bool
	stopped.Store(true)
	broken := dynamo.New(dynamotest.Client(t, failingBatchWrites(&stopped)), f.store.Table(), engine)
	dynamo.SetMaxSeriesActions(broken, 20)
	if _, err := f.splitAt(broken, m, 10); err == nil {
		t.Fatal("a split whose copies cannot be written was made")
	}
	f.consistent()
	stopped.Store(false)
	later := dynamo.New(f.db, f.store.Table(), engine, dynamo.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) }))
	if _, err := later.ResumeDeletions(context.Background()); err != nil { // nothing left to settle, or the split
		t.Fatal(err)
	}
	if n := f.countEntities()["PENDING_DELETION"]; n != 0 {
		t.Errorf("%d pending items left", n)
	}
	if n := f.countEntities()["ATTENDEE"]; n != len(m.guests) {
		t.Errorf("%d attendee items, want %d", n, len(m.guests))
	}
	dynamo.SetMaxSeriesActions(f.store, 20)
	split, err := f.splitAt(f.store, m, 10)
	f.mustDo(err)
	f.wantSplitRight(m, split, before, tokens)
}
