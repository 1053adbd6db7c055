package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Arming: writing a fire item (remind_due.go) for each reminder of each
// user that falls due, over a window of occurrences: those that start
// within calendar.ArmHorizon of now, their reminders due from the moment
// the arming stands for (since) on. An entry's wake arms every user's
// reminders, an arm item one user's; arming again writes the same items
// (their keys are the reminders'), and firing counts each once. A fire item
// is checked against the entry and the user's reminders as they are when it
// falls due (remind_fire.go): one a later change made wrong is dropped then,
// and the change's own wake or arm item writes the right one.

// armBudget bounds the occurrences one arming expands (calendar.Expand).
const armBudget = 4 * calendar.MaxViewEntries

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// armWake arms the entry whose item holds the wake at k (from GSI5) and
// moves its wake on: a series' to an ArmHorizon before its next occurrence
// past what was armed (noting in wakeArmed how far it armed); a single
// entry's or exception's away (it is armed). A wake changed meanwhile by a
// write of the entry is left to be read again.
func (s *Store) armWake(ctx context.Context, k itemKey, now time.Time) error {
	it, found, err := s.getItem(ctx, k)
	if err != nil || !found {
		return err
	}
	r, err := decodeEntryRecord(it)
	if err != nil {
		return err
	}
	if r.WakeAt == "" {
		return nil
	}
	since, err := wakeInstant(r.WakeAt)
	if err != nil {
		return err
	}
	win := armWindow{since: since, after: since.Add(-time.Millisecond), until: now.Add(calendar.ArmHorizon)}
	if armed := stringAttr(it, attrWakeArmed); armed != "" {
		if win.after, err = time.Parse(time.RFC3339Nano, armed); err != nil {
			return fmt.Errorf("entry %s/%s: %w", k.PK, k.SK, err)
		}
	}
	root := r.ID
	if r.role() == roleException {
		root = r.SeriesID
	}
	next, more, err := s.arm(ctx, r.CalendarID, root, "", win)
	if err != nil {
		return err
	}
	upd := expression.Remove(expression.Name(attrGSI5PK)).Remove(expression.Name(attrGSI5SK)).Remove(expression.Name(attrWakeArmed))
	if r.role() == roleSeries && more {
		wk := wakeIndexKey(r.CalendarID, r.ID, next.Add(-calendar.ArmHorizon))
		upd = expression.Set(expression.Name(attrGSI5SK), expression.Value(wk.SK)).
			Set(expression.Name(attrWakeArmed), expression.Value(formatTime(win.until)))
	}
	w := newWrite()
	w.Update(k, upd, expression.Name(attrGSI5SK).Equal(expression.Value(r.WakeAt)), func(item) error { return errWakeMoved })
	if err := s.commitSmall(ctx, w); err != nil && !errors.Is(err, errWakeMoved) {
		return err
	}
	return nil
}

// attrWakeArmed, on a series master whose wake the scheduler moved on, is
// how far its occurrences are armed: the next arming starts after it. A
// write of the series drops it with the wake it sets (wakeOf).
const attrWakeArmed = "wakeArmed"

// armWindow is what an arming covers: the occurrences that start after
// after and at until at the latest, their reminders due at since or later.
type armWindow struct {
	since, after, until time.Time
}

// from is the window of an arming that starts at since (an arm item's).
func armFrom(since, now time.Time) armWindow {
	return armWindow{since: since, after: since.Add(-time.Millisecond), until: now.Add(calendar.ArmHorizon)}
}

// errWakeMoved: a write of the entry moved its wake while it was armed; the
// new wake arms it again.
var errWakeMoved = errors.New("the entry's wake moved")

// wakeInstant reads the instant a wake's GSI5 sort key starts with.
func wakeInstant(sk string) (time.Time, error) {
	at, _, _ := strings.Cut(sk, "#")
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, fmt.Errorf("wake %q: %w", sk, err)
	}
	return t, nil
}

// arm writes the fire items of an entry or series (rootID) for its
// occurrences in window win, of every user's reminders, or of only's when
// set. It returns where the series' next occurrence after the window starts
// (more false: none, or a single entry). A series too dense to expand, or
// whose rule cannot be, arms nothing (a view cannot show it either).
func (s *Store) arm(ctx context.Context, calendarID, rootID, only string, win armWindow) (next time.Time, more bool, err error) {
	cal, candidates, err := s.readRoot(ctx, calendarID, rootID)
	if err != nil || cal == nil {
		return time.Time{}, false, err
	}
	occs, err := s.occurrencesIn(cal, candidates, win)
	if code := calendar.ErrorCode(err); code == calendar.CodeInvalid || code == calendar.CodeTooManyOccurrences {
		s.log.WarnContext(ctx, "reminders not armed: the series cannot be expanded", "calendar", calendarID, "entry", rootID, "err", err)
		occs, err = nil, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	people, err := s.reminderPeople(ctx, cal.ID, map[string]*calendar.Entry{rootID: candidates[0]}, only)
	if err != nil {
		return time.Time{}, false, err
	}
	if err := s.writeFires(ctx, cal, occs, people, win.since); err != nil {
		return time.Time{}, false, err
	}
	if m := candidates[0]; m.IsSeries() {
		next, more, err = s.nextStart(m, win.until.Add(time.Millisecond))
	}
	return next, more, err
}

// readRoot reads a calendar and an entry, or a series' master and current
// exceptions: the candidates an expansion takes. A calendar or entry that
// is gone is no error (cal nil).
func (s *Store) readRoot(ctx context.Context, calendarID, rootID string) (*calendar.Calendar, []*calendar.Entry, error) {
	found, err := s.batchGet(ctx, []itemKey{calendarKey(calendarID), entryKey(calendarID, rootID)})
	if err != nil {
		return nil, nil, err
	}
	calItem, entryItem := found[calendarKey(calendarID)], found[entryKey(calendarID, rootID)]
	if calItem == nil || entryItem == nil {
		return nil, nil, nil
	}
	cr, err := decodeCalendarRecord(calItem)
	if err != nil {
		return nil, nil, err
	}
	e, err := decodeEntryItem(entryItem)
	if err != nil {
		return nil, nil, err
	}
	if !e.IsSeries() {
		return cr.calendar(), []*calendar.Entry{e}, nil
	}
	st, err := s.readSeries(ctx, calendarID, rootID)
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return cr.calendar(), append([]*calendar.Entry{st.Master}, st.Exceptions...), nil
}

// armedOccurrence is an occurrence whose reminders count back from start.
type armedOccurrence struct {
	root          string
	originalStart time.Time // zero for a single entry
	start         time.Time
}

// occurrencesIn expands candidates (entries, series and exceptions) into
// the occurrences of window win that fire reminders.
func (s *Store) occurrencesIn(cal *calendar.Calendar, candidates []*calendar.Entry, win armWindow) ([]armedOccurrence, error) {
	loc, err := calendar.LoadLocation(cal.TimeZone)
	if err != nil {
		return nil, err
	}
	r := calendar.Range{Start: win.after, End: win.until.Add(time.Millisecond), Zone: loc}
	x, err := calendar.Expand(s.recur, candidates, r, false, armBudget)
	if err != nil {
		return nil, err
	}
	var out []armedOccurrence
	for _, e := range x.Entries {
		start, ok := calendar.ReminderStart(e, loc)
		if !ok || !start.After(win.after) || start.After(win.until) {
			continue
		}
		o := armedOccurrence{root: e.ID, start: start}
		if e.SeriesID != "" {
			o.root, o.originalStart = e.SeriesID, e.OriginalStart
		}
		out = append(out, o)
	}
	return out, nil
}

// nextStart is where series m's first occurrence from t on starts, by its
// rule, looking up to a year ahead (more false: none there; its wake then
// comes back in a year, or never for a series that ended).
func (s *Store) nextStart(m *calendar.Entry, t time.Time) (time.Time, bool, error) {
	if last, ok := s.recur.Last(m); ok && last.Before(t) {
		return time.Time{}, false, nil
	}
	for _, span := range []time.Duration{7 * 24 * time.Hour, 366 * 24 * time.Hour} {
		starts, err := s.recur.Starts(m, t, t.Add(span), calendar.MaxViewEntries)
		if err != nil && !errors.Is(err, calendar.ErrTooManyStarts) {
			return time.Time{}, false, err
		}
		if len(starts) > 0 {
			return starts[0], true, nil
		}
		if errors.Is(err, calendar.ErrTooManyStarts) {
			return t, true, nil
		}
	}
	return t.Add(366 * 24 * time.Hour), true, nil
}

// writeFires writes a fire item for each reminder of each person at each
// occurrence that falls due from since on.
func (s *Store) writeFires(ctx context.Context, cal *calendar.Calendar, occs []armedOccurrence, people reminderPeople, since time.Time) error {
	var ops []txOp
	for _, o := range occs {
		for userID, remindersAt := range people {
			for _, r := range remindersAt(o.root, o.originalStart) {
				due := calendar.DueAt(o.start, r)
				if due.Before(since) {
					continue
				}
				id := calendar.AlertID{DueAt: due, CalendarID: cal.ID, EntryID: o.root, OriginalStart: o.originalStart, Reminder: r}
				d := newDue(due, dueRecord{Kind: dueFire, UserID: userID, CalendarID: cal.ID, EntryID: o.root,
					Alert: id.String(), Start: formatTime(o.start)})
				ops = append(ops, opPut(itemKey{PK: d.PK, SK: d.SK}, d, noCondition(), nil))
			}
		}
	}
	return s.writeUnconditionally(ctx, ops)
}
