package recurrence_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// moveCase is a series moved by a change of its timing with scope ALL, as
// testdata/rrulejs-moves.json holds it: the rule from its start and the moved
// rule from the moved start, each expanded by rrule.js 2.8.1 (Before, After).
// testdata/rrulejs-moves-gen.js wrote it:
//
//	npm install rrule@2.8.1 && node rrulejs-moves-gen.js > rrulejs-moves.json
type moveCase struct {
	Name, Start, Rule, MovedStart, MovedRule string
	Before, After                            []string
}

// TestMovesLikeRRuleJS moves sub-daily series (HOURLY, MINUTELY, DAILY with
// BYHOUR) through one of their occurrences with scope ALL, with exceptions
// on several occurrences, two of them on one day, and checks against
// rrule.js that every occurrence moved alike: the series starts where
// rrule.js's moved series starts, with the rule rrule.js expanded (its own
// times of day moved too), and the exception of the nth occurrence before
// is the exception of the nth after, each once.
func TestMovesLikeRRuleJS(t *testing.T) {
	b, err := os.ReadFile("testdata/rrulejs-moves.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []moveCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			s := series(t, "UTC", c.Start[:15], c.Rule)
			if err := engine.Validate(s); err != nil {
				t.Fatal(err)
			}
			before, after := instants(t, c.Before), instants(t, c.After)
			if got := expandAll(t, s); !slices.EqualFunc(got, before, time.Time.Equal) {
				t.Fatalf("before the move: got %v, want rrule.js's %v", got, before)
			}
			n := len(before)
			picked := slices.Compact([]int{1, 2, 5, n / 2, n - 1})
			var excs []*calendar.Entry
			for _, i := range picked {
				x := s.OccurrenceAt(before[i])
				x.Recurrence, x.IsException, x.Version = nil, true, 1
				x.Title, x.Overrides = fmt.Sprint("exception ", i), []string{calendar.FieldTitle}
				excs = append(excs, x)
			}
			through := picked[1] // an occurrence with an exception, not the first
			shift := after[0].Sub(before[0])
			start := before[through].Add(shift)
			edit, err := calendar.PlanSeriesEdit(engine, calendar.SeriesEditInput{
				Series: &calendar.Series{Master: s, Exceptions: excs}, Occurrence: before[through], Scope: calendar.ScopeAll, Now: start,
				Update: calendar.EntryUpdate{ExpectedVersion: s.Version + 1,
					Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: "UTC"}})},
			})
			if err != nil {
				t.Fatal(err)
			}
			m := edit.Master
			want := series(t, "UTC", c.MovedStart[:15], c.MovedRule)
			if err := engine.Validate(want); err != nil {
				t.Fatal(err)
			}
			if !m.Start.Equal(after[0]) || m.Recurrence.Rule != want.Recurrence.Rule {
				t.Fatalf("moved series: starts %v with %s; want %v with %s", m.Start, m.Recurrence.Rule, after[0], want.Recurrence.Rule)
			}
			if got := expandAll(t, m); !slices.EqualFunc(got, after, time.Time.Equal) {
				t.Fatalf("after the move: got %v, want rrule.js's %v", got, after)
			}
			if len(edit.Put) != len(picked) {
				t.Fatalf("%d exceptions carried over, want %d", len(edit.Put), len(picked))
			}
			ids := map[string]bool{}
			for _, x := range edit.Put {
				var i int
				fmt.Sscanf(x.Title, "exception %d", &i)
				if !x.OriginalStart.Equal(after[i]) || ids[x.ID] || x.ID != calendar.OccurrenceID(m.ID, after[i]) {
					t.Fatalf("%q is at %v (ID %s), want at rrule.js's %v, once", x.Title, x.OriginalStart, x.ID, after[i])
				}
				ids[x.ID] = true
			}
		})
	}
}

func instants(t *testing.T, ss []string) []time.Time {
	t.Helper()
	out := make([]time.Time, len(ss))
	for i, s := range ss {
		var err error
		if out[i], err = time.Parse(time.RFC3339, s); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func expandAll(t *testing.T, s *calendar.Entry) []time.Time {
	t.Helper()
	got, err := engine.Starts(s, s.Start, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), 5000)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// moveThrough plans a change with scope ALL of series s, with exceptions
// titled at the given starts, through its occurrence at through to start at
// start (an hour long).
func moveThrough(t *testing.T, s *calendar.Entry, excs []time.Time, through, start time.Time) (*calendar.SeriesEdit, error) {
	t.Helper()
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	var xs []*calendar.Entry
	for _, at := range excs {
		x := s.OccurrenceAt(at)
		x.Recurrence, x.IsException, x.Version = nil, true, 1
		x.Title, x.Overrides = "exception "+at.Format(time.RFC3339), []string{calendar.FieldTitle}
		xs = append(xs, x)
	}
	version := s.Version
	if slices.ContainsFunc(excs, through.Equal) {
		version++
	}
	return calendar.PlanSeriesEdit(engine, calendar.SeriesEditInput{
		Series: &calendar.Series{Master: s, Exceptions: xs}, Occurrence: through, Scope: calendar.ScopeAll, Now: start,
		Update: calendar.EntryUpdate{ExpectedVersion: version,
			Timing: calendar.Set(calendar.Timing{Timed: &calendar.TimedTiming{Start: start, End: start.Add(time.Hour), TimeZone: s.TimeZone}})},
	})
}

// TestMoveAcrossADSTGap: a daily 02:30 New York series has its occurrence
// on the day of the spring gap at 03:30 EDT (02:30 read with the offset
// before the gap). Moved an hour later, to 03:30, that occurrence's
// exception moves with it, to 03:30 EDT that day.
func TestMoveAcrossADSTGap(t *testing.T) {
	s := series(t, "America/New_York", "20260306T023000", "FREQ=DAILY;COUNT=5")
	gapDay := time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC) // 03:30 EDT
	if !engine.Has(s, gapDay) {
		t.Fatal("no occurrence at 03:30 EDT on the gap's day")
	}
	edit, err := moveThrough(t, s, []time.Time{gapDay}, s.Start.AddDate(0, 0, 1), s.Start.AddDate(0, 0, 1).Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(edit.Put) != 1 || !edit.Put[0].OriginalStart.Equal(gapDay) {
		t.Fatalf("the gap day's exception: %v, want it at %v", edit.Put, gapDay)
	}
}

// TestMoveRefusedAcrossMidnight: a rule's own times of day move with its
// start, but not off their day: a daily rule at 09:00 and 23:00 moved two
// hours later is refused, naming the timing; moved a day later, it keeps its
// times.
func TestMoveRefusedAcrossMidnight(t *testing.T) {
	s := series(t, "UTC", "20260105T090000", "FREQ=DAILY;BYHOUR=9,23;COUNT=6")
	_, err := moveThrough(t, s, nil, s.Start, s.Start.Add(2*time.Hour))
	if calendar.ErrorCode(err) != calendar.CodeInvalid || calendar.ErrorField(err) != "timing" {
		t.Fatalf("two hours later: got %v, want BAD_USER_INPUT on timing", err)
	}
	late := s.Start.Add(14 * time.Hour) // the 23:00 occurrence
	edit, err := moveThrough(t, s, []time.Time{late}, late, late.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if m := edit.Master; !m.Start.Equal(s.Start.AddDate(0, 0, 1)) || m.Recurrence.Rule != s.Recurrence.Rule ||
		len(edit.Put) != 1 || !edit.Put[0].OriginalStart.Equal(late.AddDate(0, 0, 1)) {
		t.Fatalf("a day later: starts %v with %s, exceptions %v", m.Start, m.Recurrence.Rule, edit.Put)
	}
}
