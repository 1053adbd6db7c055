package calendar_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestTallyStatsWindows(t *testing.T) {
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) calendar.Mark { return calendar.Mark{At: now.Add(d)} }
	day := func(d int) calendar.Mark { return calendar.Mark{Day: calendar.Date{Year: 2026, Month: 6, Day: d}} }
	for _, tc := range []struct {
		name           string
		zone           string
		starts, dues   []calendar.Mark
		upcoming, late int
	}{
		{name: "now is upcoming, the window's end is not", starts: []calendar.Mark{at(0), at(calendar.UpcomingWindow - time.Millisecond), at(calendar.UpcomingWindow), at(-time.Millisecond)}, upcoming: 2},
		{name: "days from today to the sixth after it", starts: []calendar.Mark{day(14), day(15), day(21), day(22)}, upcoming: 2},
		{name: "days in the user's zone", zone: "Pacific/Kiritimati", starts: []calendar.Mark{day(15), day(16), day(22)}, upcoming: 2},
		{name: "behind UTC", zone: "America/Los_Angeles", starts: []calendar.Mark{day(15), day(21)}, upcoming: 2},
		{name: "due before now is overdue, at now is not", dues: []calendar.Mark{at(-time.Millisecond), at(0), at(time.Hour)}, late: 1},
		{name: "due days before today", dues: []calendar.Mark{day(14), day(15)}, late: 1},
		{name: "due days in the user's zone", zone: "Pacific/Kiritimati", dues: []calendar.Mark{day(14), day(15), day(16)}, late: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tally := calendar.Tally{Starts: map[calendar.Mark]int{}, Dues: map[calendar.Mark]int{}, TimeZone: tc.zone}
			for _, m := range tc.starts {
				tally.Starts[m]++
			}
			for _, m := range tc.dues {
				tally.Dues[m]++
			}
			s := tally.Stats(now)
			if s.UpcomingEvents != tc.upcoming || s.OverdueTasks != tc.late {
				t.Errorf("upcoming %d, overdue %d; want %d and %d", s.UpcomingEvents, s.OverdueTasks, tc.upcoming, tc.late)
			}
		})
	}
}

func TestTallyChange(t *testing.T) {
	t0 := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	event := &calendar.Entry{ID: "e", Kind: calendar.KindTimed, Start: t0, End: t0.Add(time.Hour), CreatedBy: "ada", Version: 1, CreatedAt: t0}
	moved := *event
	moved.Start, moved.Version = t0.Add(time.Hour), 2
	series := *event
	series.Recurrence = &calendar.Recurrence{Rule: "FREQ=DAILY"}
	split := series
	split.PreviousSeriesID = "s0"
	occurrence := *event
	occurrence.SeriesID = "s"
	task := &calendar.Entry{ID: "t", Kind: calendar.KindTask, Start: t0, End: t0, CreatedBy: "ada", Version: 1, CreatedAt: t0}
	done := *task
	done.Completed, done.CompletedAt, done.Version = true, t0.Add(time.Minute), 2
	madeEvent := *event
	madeEvent.Version = 3
	legacy := *event
	legacy.CreatedBy = ""
	fine := *event
	fine.Start = t0.Add(1500 * time.Microsecond)
	tally := func(events, tasks int, starts, dues map[calendar.Mark]int, created, completed []time.Time) *calendar.Tally {
		if starts == nil {
			starts = map[calendar.Mark]int{}
		}
		if dues == nil {
			dues = map[calendar.Mark]int{}
		}
		first := func(ts []time.Time) time.Time {
			if len(ts) == 0 {
				return time.Time{}
			}
			return ts[0]
		}
		return &calendar.Tally{Events: events, Tasks: tasks, Starts: starts, Dues: dues, Created: first(created), Completed: first(completed)}
	}
	m := func(t time.Time) calendar.Mark { return calendar.Mark{At: t} }
	for _, tc := range []struct {
		name    string
		was, is *calendar.Entry
		want    map[string]*calendar.Tally
	}{
		{"create an event", nil, event, map[string]*calendar.Tally{"ada": tally(1, 0, map[calendar.Mark]int{m(t0): 1}, nil, []time.Time{t0}, nil)}},
		{"delete it", event, nil, map[string]*calendar.Tally{"ada": tally(-1, 0, map[calendar.Mark]int{m(t0): -1}, nil, nil, nil)}},
		{"move its start", event, &moved, map[string]*calendar.Tally{"ada": tally(0, 0, map[calendar.Mark]int{m(t0): -1, m(t0.Add(time.Hour)): 1}, nil, nil, nil)}},
		{"put it elsewhere (a move's second half)", nil, &moved, map[string]*calendar.Tally{"ada": tally(1, 0, map[calendar.Mark]int{m(t0.Add(time.Hour)): 1}, nil, nil, nil)}},
		{"a series counts, not its start", nil, &series, map[string]*calendar.Tally{"ada": tally(1, 0, nil, nil, []time.Time{t0}, nil)}},
		{"a split series counts, not as a creation", nil, &split, map[string]*calendar.Tally{"ada": tally(1, 0, nil, nil, nil, nil)}},
		{"occurrences do not count", nil, &occurrence, map[string]*calendar.Tally{}},
		{"a task, open", nil, task, map[string]*calendar.Tally{"ada": tally(0, 1, nil, map[calendar.Mark]int{m(t0): 1}, nil, nil)}},
		{"completed by bob", task, &done, map[string]*calendar.Tally{
			"ada": tally(0, 0, nil, map[calendar.Mark]int{m(t0): -1}, nil, nil),
			"bob": tally(0, 0, nil, nil, nil, []time.Time{t0.Add(time.Minute)}),
		}},
		{"reopened by bob", &done, task, map[string]*calendar.Tally{"ada": tally(0, 0, nil, map[calendar.Mark]int{m(t0): 1}, nil, nil)}},
		{"a task made an event counts from its creation", task, &madeEvent, map[string]*calendar.Tally{"ada": tally(1, -1, map[calendar.Mark]int{m(t0): 1}, map[calendar.Mark]int{m(t0): -1}, []time.Time{t0}, nil)}},
		{"no creator recorded", nil, &legacy, map[string]*calendar.Tally{}},
		{"a start counts to the millisecond, as stored", nil, &fine, map[string]*calendar.Tally{"ada": tally(1, 0, map[calendar.Mark]int{m(t0.Add(time.Millisecond)): 1}, nil, []time.Time{t0}, nil)}},
		{"an unchanged rewrite", event, event, map[string]*calendar.Tally{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := calendar.TallyChange("bob", tc.was, tc.is)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatsTimeAt(t *testing.T) {
	now := time.Date(2026, 6, 15, 11, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		zone  string
		today calendar.Date
	}{
		{"", calendar.Date{Year: 2026, Month: 6, Day: 15}},
		{"Pacific/Kiritimati", calendar.Date{Year: 2026, Month: 6, Day: 16}}, // UTC+14
		{"Etc/GMT+12", calendar.Date{Year: 2026, Month: 6, Day: 14}},         // UTC-12
		{"Not/AZone", calendar.Date{Year: 2026, Month: 6, Day: 15}},          // read as UTC
	} {
		if got := calendar.StatsTimeAt(now, tc.zone); got.Today != tc.today || !got.Now.Equal(now) {
			t.Errorf("%q: got %+v, want today %v", tc.zone, got, tc.today)
		}
	}
}

func TestStatsPlus(t *testing.T) {
	t0 := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	a := calendar.Stats{TotalEvents: 3, TotalTasks: 1, UpcomingEvents: 2, OverdueTasks: 1, LastEventCreated: t0}
	b := calendar.Stats{TotalEvents: -1, UpcomingEvents: -1, LastEventCreated: t0.Add(-time.Hour), LastTaskCompleted: t0}
	want := calendar.Stats{TotalEvents: 2, TotalTasks: 1, UpcomingEvents: 1, OverdueTasks: 1, LastEventCreated: t0, LastTaskCompleted: t0}
	if diff := cmp.Diff(want, a.Plus(b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
