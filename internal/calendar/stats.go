package calendar

import (
	"context"
	"time"
)

// A user's stats (seed 002's USER_META stats) describe the entries they
// created, in whichever calendars those are now, and the tasks they completed:
//
//   - TotalEvents and TotalTasks count the live entries the user created: a
//     series counts once, its occurrences and exceptions not at all, and an
//     entry moved to another calendar still counts for whoever created it.
//     Entries go when they are deleted or their calendar is.
//   - UpcomingEvents counts, of those events, the ones that do not repeat and
//     start within UpcomingWindow from now: a timed event by its start
//     instant, a dated one by its first day, from today to the sixth day after
//     it in the user's time zone (UTC when they have none). A series is left
//     out, since its occurrences in a window change with the clock alone.
//   - OverdueTasks counts, of those tasks, the open ones that do not repeat and
//     whose due time has passed: an instant before now, or a day before today
//     in the user's time zone.
//   - LastEventCreated is the latest creation time (createdAt) of an event
//     the user created (createEntry or an import; a task made an event counts
//     from its own creation), and LastTaskCompleted when they last completed
//     a task, anyone's, that does not repeat. Deleting the event or reopening
//     the task does not move them back.
//
// A store adds what each write changes in its users' Tally (TallyChange) in
// the same transaction as the entries it counts, and computes Stats from
// what it kept and the clock (StatsTime) when read; Tally.Stats is that
// computation on a whole tally in memory.
type Stats struct {
	TotalEvents       int
	TotalTasks        int
	UpcomingEvents    int
	OverdueTasks      int
	LastEventCreated  time.Time // zero if never
	LastTaskCompleted time.Time // zero if never
}

// UpcomingWindow is how far ahead UpcomingEvents looks; UpcomingDays is the
// same for whole-day events, in days from today.
const (
	UpcomingWindow = 7 * 24 * time.Hour
	UpcomingDays   = 7
)

// StatsService reads the signed-in user's stats.
type StatsService interface {
	// Stats returns the viewer's stats as of now. Errors: CodeUnauthenticated.
	Stats(ctx context.Context) (Stats, error)
}

// Mark is when a counted entry happens: an instant, or a day (At zero).
type Mark struct {
	At  time.Time
	Day Date
}

// StatsTime is the moment stats are taken at, for a user: UpcomingEvents
// counts timed starts in [Now, Now+UpcomingWindow) and whole-day starts from
// Today to the day before Today+UpcomingDays; OverdueTasks counts timed due
// times before Now and due days before Today.
type StatsTime struct {
	Now   time.Time
	Today Date // in the user's time zone
}

// StatsTimeAt is now for a user in zone (UTC when "" or unknown).
func StatsTimeAt(now time.Time, zone string) StatsTime {
	loc := time.UTC
	if z, err := LoadLocation(zone); err == nil && zone != "" {
		loc = z
	}
	return StatsTime{Now: now, Today: DateOf(now.In(loc))}
}

// Tally is what a user's Stats are computed from, or a change to it: Starts
// counts the user's one-off events by start, Dues their open one-off tasks
// by due time. Created and Completed are the latest creation and completion
// (zero for none): they only ever move forward.
type Tally struct {
	Events, Tasks int
	Starts, Dues  map[Mark]int
	Created       time.Time
	Completed     time.Time
	TimeZone      string // the user's, "" for UTC
}

// Stats evaluates t at now.
func (t Tally) Stats(now time.Time) Stats {
	at := StatsTimeAt(now, t.TimeZone)
	s := Stats{TotalEvents: t.Events, TotalTasks: t.Tasks, LastEventCreated: t.Created, LastTaskCompleted: t.Completed}
	horizon := now.Add(UpcomingWindow)
	for m, n := range t.Starts {
		if m.At.IsZero() && !m.Day.Before(at.Today) && m.Day.Before(at.Today.AddDays(UpcomingDays)) ||
			!m.At.IsZero() && !m.At.Before(now) && m.At.Before(horizon) {
			s.UpcomingEvents += n
		}
	}
	for m, n := range t.Dues {
		if m.At.IsZero() && m.Day.Before(at.Today) || !m.At.IsZero() && m.At.Before(now) {
			s.OverdueTasks += n
		}
	}
	return s
}

// Plus adds the counts of s and o, keeping the later of each moment: stats
// kept in two parts (a store's older records and its newer ones) add up so.
func (s Stats) Plus(o Stats) Stats {
	return Stats{
		TotalEvents: s.TotalEvents + o.TotalEvents, TotalTasks: s.TotalTasks + o.TotalTasks,
		UpcomingEvents: s.UpcomingEvents + o.UpcomingEvents, OverdueTasks: s.OverdueTasks + o.OverdueTasks,
		LastEventCreated: later(s.LastEventCreated, o.LastEventCreated), LastTaskCompleted: later(s.LastTaskCompleted, o.LastTaskCompleted),
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TallyChange is what writing is in place of was (either nil for a creation
// or a deletion) changes in users' tallies, by user ID; actor is the user
// making the write. Entries with no recorded creator change only the actor's
// completions.
func TallyChange(actor string, was, is *Entry) map[string]*Tally {
	out := map[string]*Tally{}
	of := func(user string) *Tally {
		if out[user] == nil {
			out[user] = &Tally{Starts: map[Mark]int{}, Dues: map[Mark]int{}}
		}
		return out[user]
	}
	for _, c := range []struct {
		e    *Entry
		sign int
	}{{was, -1}, {is, 1}} {
		if c.e == nil || c.e.CreatedBy == "" || c.e.SeriesID != "" {
			continue
		}
		t := of(c.e.CreatedBy)
		if c.e.Kind == KindTask {
			t.Tasks += c.sign
			if !c.e.Completed && c.e.Recurrence == nil {
				t.Dues[markOf(c.e)] += c.sign
			}
			continue
		}
		t.Events += c.sign
		if c.e.Recurrence == nil {
			t.Starts[markOf(c.e)] += c.sign
		}
	}
	if becameEvent(was, is) {
		of(is.CreatedBy).Created = is.CreatedAt
	}
	if was != nil && is != nil && actor != "" && is.Kind == KindTask && !was.Completed && is.Completed && is.SeriesID == "" {
		of(actor).Completed = is.CompletedAt
	}
	prune(out)
	return out
}

// MergeTallies adds the changes in src to dst, by user, dropping what sums to
// nothing.
func MergeTallies(dst, src map[string]*Tally) {
	for user, d := range src {
		t := dst[user]
		if t == nil {
			t = &Tally{Starts: map[Mark]int{}, Dues: map[Mark]int{}}
			dst[user] = t
		}
		t.Events += d.Events
		t.Tasks += d.Tasks
		for m, n := range d.Starts {
			t.Starts[m] += n
		}
		for m, n := range d.Dues {
			t.Dues[m] += n
		}
		t.Created = later(t.Created, d.Created)
		t.Completed = later(t.Completed, d.Completed)
	}
	prune(dst)
}

// prune drops zero counts, and users left with no change.
func prune(ts map[string]*Tally) {
	for user, t := range ts {
		for m, n := range t.Starts {
			if n == 0 {
				delete(t.Starts, m)
			}
		}
		for m, n := range t.Dues {
			if n == 0 {
				delete(t.Dues, m)
			}
		}
		if t.Events == 0 && t.Tasks == 0 && len(t.Starts) == 0 && len(t.Dues) == 0 && t.Created.IsZero() && t.Completed.IsZero() {
			delete(ts, user)
		}
	}
}

// becameEvent reports whether writing is in place of was creates an event
// (was nil, version 1: not a move, which keeps the entry's version) or makes
// a task one; a series split off another is neither.
func becameEvent(was, is *Entry) bool {
	if is == nil || is.CreatedBy == "" || is.Kind == KindTask || is.SeriesID != "" || is.PreviousSeriesID != "" {
		return false
	}
	return was == nil && is.Version == 1 || was != nil && was.Kind == KindTask
}

// markOf is when e happens for its creator's stats: its first day if dated,
// else its start.
func markOf(e *Entry) Mark {
	if e.Dated() {
		return Mark{Day: e.StartDate}
	}
	return Mark{At: e.Start.UTC().Truncate(time.Millisecond)} // as stored
}
