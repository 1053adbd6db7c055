package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// crowdedMeeting is dailyMeeting with n guests invited 25 at a time (the
// most one change adds), who answer: every third ACCEPTED for the series,
// every fifth DECLINED on December 12 alone, every seventh TENTATIVE from
// December 8 on.
func (f *fixture) crowdedMeeting(n int) meeting {
	f.t.Helper()
	m := meeting{organizer: f.user("org@example.com")}
	m.cal = f.calendarOf(m.organizer, "Events")
	m.entry = f.series(m.organizer, m.cal.ID, "Stand-up", timed("2026-12-07T09:00:00Z", "2026-12-07T09:15:00Z", "UTC"), "FREQ=DAILY")
	for from := 0; from < n; from += calendar.MaxAttendeeDelta {
		d := calendar.AttendeeDelta{Key: m.entry.Key()}
		for i := from; i < min(n, from+calendar.MaxAttendeeDelta); i++ {
			email := fmt.Sprintf("guest%03d@example.com", i)
			m.guests = append(m.guests, f.user(email))
			d.Add = append(d.Add, calendar.NewAttendee{Email: email})
		}
		e, err := f.store.ChangeAttendees(m.organizer, d)
		f.mustDo(err)
		m.entry = e
	}
	for i, g := range m.guests {
		if i%3 == 0 {
			_, err := f.answer(m, g, 0, calendar.ScopeAll, calendar.ResponseAccepted)
			f.mustDo(err)
		}
		if i%5 == 0 {
			_, err := f.answer(m, g, 12, calendar.ScopeThis, calendar.ResponseDeclined)
			f.mustDo(err)
		}
		if i%7 == 0 {
			_, err := f.answer(m, g, 8, calendar.ScopeThisAndFollowing, calendar.ResponseTentative)
			f.mustDo(err)
		}
	}
	return m
}

// splitAt splits the meeting's series at December d with a new title and
// returns the series split off.
func (f *fixture) splitAt(s *dynamo.Store, m meeting, d int) (*calendar.Entry, error) {
	f.t.Helper()
	cur, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	e, _, err := s.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(d)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: cur.Master.Version, Title: calendar.Set("Later")})
	return e, err
}

// inboxHas counts guest's invitations to entry in their inbox (GSI1).
func (f *fixture) inboxHas(guest context.Context, entry calendar.EntryKey) int {
	f.t.Helper()
	n := 0
	p := calendar.Page{First: 100}
	for {
		page, err := f.store.EntryInvitations(guest, calendar.AttendeeFilter{}, p)
		f.mustDo(err)
		for _, a := range page.Attendees {
			if a.Key() == entry {
				n++
			}
		}
		if !page.HasNextPage {
			return n
		}
		p.After = page.EndCursor
	}
}

// invitationToken reads guest's invitations to the end and returns the
// token that continues from there.
func (f *fixture) invitationToken(guest context.Context) string {
	f.t.Helper()
	token := ""
	for {
		p, err := f.store.InvitationChanges(guest, token, 100)
		f.mustDo(err)
		token = p.Token
		if !p.More {
			return token
		}
	}
}

// logged counts the changes to entry in guest's invitation log after token.
func (f *fixture) logged(guest context.Context, token string, entry calendar.EntryKey) int {
	f.t.Helper()
	n := 0
	for {
		p, err := f.store.InvitationChanges(guest, token, 100)
		f.mustDo(err)
		for _, c := range p.Changes {
			if c.Entry == entry && !c.Removed {
				n++
			}
		}
		token = p.Token
		if !p.More {
			return n
		}
	}
}

// wantSplitRight checks a split of m at December 10: every day of the
// week shows the summary it showed before (before the 10th from the old
// series, after from the new), both series keep every guest, each
// sampled guest holds the same answers on the new side, sees both
// series once in their inbox, and finds the new one in their log.
func (f *fixture) wantSplitRight(m meeting, split *calendar.Entry, before map[int]calendar.AttendeeSummary, tokens map[int]string) {
	f.t.Helper()
	if after := f.summariesOn(m); fmt.Sprint(after) != fmt.Sprint(before) {
		f.t.Errorf("summaries by day:\nbefore %v\nafter  %v", before, after)
	}
	for _, key := range []calendar.EntryKey{m.entry.Key(), split.Key()} {
		s, err := f.store.Series(m.organizer, key)
		f.mustDo(err)
		e := s.Master
		if got := e.Attendance.Summary.Total(); got != len(m.guests) {
			f.t.Errorf("%s holds %d attendees, want %d", e.Title, got, len(m.guests))
		}
	}
	for i, token := range tokens {
		g := m.guests[i]
		if n := f.inboxHas(g, split.Key()); n != 1 {
			f.t.Errorf("guest %d sees the new series %d times in their inbox, want once", i, n)
		}
		if n := f.inboxHas(g, m.entry.Key()); n != 1 {
			f.t.Errorf("guest %d sees the old series %d times in their inbox, want once", i, n)
		}
		if n := f.logged(g, token, split.Key()); n < 1 {
			f.t.Errorf("guest %d's log does not name the new series", i)
		}
		a, err := f.store.Attendance(g, split.Key())
		f.mustDo(err)
		if a == nil {
			f.t.Fatalf("guest %d is not invited to the new series", i)
		}
		want := calendar.ResponseNeedsAction
		switch {
		case i%7 == 0:
			want = calendar.ResponseTentative
		case i%3 == 0:
			want = calendar.ResponseAccepted
		}
		if a.Response != want {
			f.t.Errorf("guest %d answers the new series %s, want %s", i, a.Response, want)
		}
	}
}

// sampled are the guests whose inbox and log the split tests read.
var sampled = []int{0, 1, 5, 21, 35, 99}

// tokensOf returns the sampled guests' invitation tokens.
func (f *fixture) tokensOf(m meeting) map[int]string {
	out := map[int]string{}
	for _, i := range sampled {
		if i < len(m.guests) {
			out[i] = f.invitationToken(m.guests[i])
		}
	}
	return out
}

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

// invitationsBut lists guest's invitations in their inbox other than to
// entry.
func (f *fixture) invitationsBut(guest context.Context, entry calendar.EntryKey) []calendar.EntryKey {
	f.t.Helper()
	page, err := f.store.EntryInvitations(guest, calendar.AttendeeFilter{}, calendar.Page{First: 100})
	f.mustDo(err)
	var out []calendar.EntryKey
	for _, a := range page.Attendees {
		if a.Key() != entry {
			out = append(out, a.Key())
		}
	}
	return out
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
			if a.AtOccurrence(dayOf(13)).Response != calendar.ResponseAccepted { // refused: given again on the new series
				r := calendar.RSVP{Key: split.Key(), Occurrence: dayOf(13), Scope: calendar.ScopeThis, ExpectedVersion: a.Version, Response: calendar.ResponseAccepted}
				_, err := f.store.Respond(g, r)
				f.mustDo(err)
			}
		}
	}
	for i, g := range m.guests {
		a, err := f.store.Attendance(g, split.Key())
		f.mustDo(err)
		want13 := a.AtOccurrence(dayOf(13)).Response
		if i >= 10 && i < 30 && want13 != calendar.ResponseAccepted {
			t.Errorf("guest %d's answer to December 13 is %s on the new series, want ACCEPTED", i, want13)
		}
		if got := a.AtOccurrence(dayOf(12)).Response; (i == 1 || i == 2) && got != calendar.ResponseAccepted {
			t.Errorf("guest %d answered December 12 between the copy and the switch; the new series shows %s", i, got)
		}
	}
	if hooked != 2 {
		t.Errorf("the hook answered %d times, want 2 (the first switch refused, the second made)", hooked)
	}
}

// callCounter counts a client's calls by operation, and the items of its
// writes, while on is set.
type callCounter struct {
	mu    sync.Mutex
	on    atomic.Bool
	calls map[string]int
	items map[string]int
}

// option returns the client option that counts.
func (c *callCounter) option() func(*dynamodb.Options) {
	count := middleware.InitializeMiddlewareFunc("count", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if c.on.Load() {
			op, n := middleware.GetOperationName(ctx), 1
			switch p := in.Parameters.(type) {
			case *dynamodb.BatchWriteItemInput:
				n = 0
				for _, w := range p.RequestItems {
					n += len(w)
				}
			case *dynamodb.TransactWriteItemsInput:
				n = len(p.TransactItems)
			}
			c.mu.Lock()
			c.calls[op]++
			c.items[op] += n
			c.mu.Unlock()
		}
		return next.HandleInitialize(ctx, in)
	})
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(count, middleware.Before) })
	}
}

// TestSplitPlan pins what a split of a series with 100 calgraph users as
// attendees costs: the calls by operation and the items they write.
func TestSplitPlan(t *testing.T) {
	f := newFixture(t)
	m := f.crowdedMeeting(calendar.MaxAttendees)
	c := &callCounter{calls: map[string]int{}, items: map[string]int{}}
	counted := dynamo.New(dynamotest.Client(t, c.option()), f.store.Table(), engine)
	c.on.Store(true)
	_, err := f.splitAt(counted, m, 10)
	c.on.Store(false)
	f.mustDo(err)
	got := fmt.Sprint(c.calls, " ", c.items)
	// Reads: the calendar's access (BatchGetItem), the series, its
	// attendees, the split's copies to index (Query). Writes: the pending
	// item (PutItem), the copies (4 BatchWriteItem of 25), the switch (8
	// actions), and the indexing with the log records: 49 attendees to a
	// transaction of 98 actions, the last 2 with the pending item's deletion.
	want := "map[BatchGetItem:1 BatchWriteItem:4 PutItem:1 Query:3 TransactWriteItems:4] map[BatchGetItem:1 BatchWriteItem:100 PutItem:1 Query:3 TransactWriteItems:209]"
	if got != want {
		t.Errorf("a split of 100 attendees, calls and items by operation:\ngot  %s\nwant %s", got, want)
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
