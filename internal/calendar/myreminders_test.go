package calendar

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func mins(ms ...int) []Reminder {
	out := []Reminder{}
	for _, m := range ms {
		out = append(out, Reminder{Minutes: m, Method: ReminderInApp})
	}
	return out
}

func TestReminderSettingAt(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	// A weekly series at 09:00 New York across the DST change of 2026-11-01:
	// original starts are instants, 13:00Z before and 14:00Z after.
	before := time.Date(2026, 10, 26, 9, 0, 0, 0, ny)
	after := time.Date(2026, 11, 2, 9, 0, 0, 0, ny)
	later := time.Date(2026, 11, 9, 9, 0, 0, 0, ny)
	s := &ReminderSetting{
		All:       ReminderChoice{Reminders: mins(10)},
		Following: []ReminderSegment{{From: after.UTC(), ReminderChoice: ReminderChoice{Reminders: mins(30)}}},
		Overrides: []ReminderOverride{{OriginalStart: later.UTC(), ReminderChoice: ReminderChoice{Default: true}}},
	}
	cases := []struct {
		name string
		at   time.Time
		want []Reminder
		set  bool
	}{
		{"single entry reads All", time.Time{}, mins(10), true},
		{"before the segment", before, mins(10), true},
		{"the segment's first, given in another zone", after.In(time.UTC), mins(30), true},
		{"an hour off the segment's instant is not its occurrence", after.Add(-time.Hour), mins(10), true},
		{"an override back to the default", later, nil, false},
		{"after the override, the segment again", later.AddDate(0, 0, 7), mins(30), true},
	}
	for _, c := range cases {
		got, set := s.At(c.at)
		if set != c.set || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v, %v", c.name, got, set, c.want, c.set)
		}
	}
	if got, set := (*ReminderSetting)(nil).At(before); got != nil || set {
		t.Errorf("nil setting: got %v, %v; want nothing set", got, set)
	}
}

// An override follows its occurrence's original start: moving the occurrence
// (an exception starting elsewhere) does not move or lose it.
func TestReminderOverrideFollowsMovedOccurrence(t *testing.T) {
	orig := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	s := &ReminderSetting{All: ReminderChoice{Default: true}}
	if err := s.Apply(ScopeThis, orig, ReminderChoice{Reminders: mins(5)}); err != nil {
		t.Fatal(err)
	}
	movedTo := orig.Add(3 * time.Hour) // the exception's new start
	if got := EffectiveReminders(s, orig, mins(60)); !slices.Equal(got, mins(5)) {
		t.Errorf("moved occurrence: got %v, want its own 5 minutes", got)
	}
	if got := EffectiveReminders(s, movedTo, mins(60)); !slices.Equal(got, mins(60)) {
		t.Errorf("at the moved start: got %v, want the calendar default", got)
	}
}

// A new setting gives the calendar default everywhere: an override set on
// one occurrence leaves the others at the default, not at "none".
func TestNewReminderSetting(t *testing.T) {
	s := NewReminderSetting(EntryKey{CalendarID: "c", EntryID: "s"}, "u")
	one := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := s.Apply(ScopeThis, one, ReminderChoice{Reminders: mins(5)}); err != nil {
		t.Fatal(err)
	}
	if got, set := s.At(one.AddDate(0, 0, 7)); set || got != nil {
		t.Errorf("another occurrence: got %v, %v; want the default", got, set)
	}
}

func TestEffectiveReminders(t *testing.T) {
	cases := []struct {
		name string
		own  *ReminderSetting
		def  []Reminder
		want []Reminder
	}{
		{"none set: the default", nil, mins(15), mins(15)},
		{"none set, no default: none", nil, nil, []Reminder{}},
		{"own, even none, win", &ReminderSetting{All: ReminderChoice{Reminders: []Reminder{}}}, mins(15), []Reminder{}},
		{"own", &ReminderSetting{All: ReminderChoice{Reminders: mins(1, 2)}}, mins(15), mins(1, 2)},
		{"own says default", &ReminderSetting{All: ReminderChoice{Default: true}}, mins(15), mins(15)},
	}
	for _, c := range cases {
		if got := EffectiveReminders(c.own, time.Time{}, c.def); got == nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReminderSettingApply(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 12, d, 9, 0, 0, 0, time.UTC) }
	s := &ReminderSetting{All: ReminderChoice{Reminders: mins(10)}}
	steps := []struct {
		scope Scope
		at    time.Time
		c     ReminderChoice
	}{
		{ScopeThis, day(3), ReminderChoice{Reminders: mins(1)}},
		{ScopeThis, day(10), ReminderChoice{Reminders: mins(2)}},
		{ScopeThisAndFollowing, day(5), ReminderChoice{Reminders: mins(30)}},     // drops day 10's override
		{ScopeThisAndFollowing, day(20), ReminderChoice{Default: true}},          // a second segment
		{ScopeThis, day(3), ReminderChoice{Reminders: mins(4)}},                  // replaces day 3's
		{ScopeThisAndFollowing, day(5), ReminderChoice{Reminders: mins(45, 50)}}, // replaces both segments
	}
	for _, st := range steps {
		if err := s.Apply(st.scope, st.at, st.c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		at   time.Time
		want []Reminder
		set  bool
	}{{day(1), mins(10), true}, {day(3), mins(4), true}, {day(5), mins(45, 50), true}, {day(10), mins(45, 50), true}, {day(20), mins(45, 50), true}} {
		if got, set := s.At(c.at); set != c.set || !slices.Equal(got, c.want) {
			t.Errorf("at %s: got %v, %v; want %v, %v", c.at, got, set, c.want, c.set)
		}
	}
	if len(s.Following) != 1 || len(s.Overrides) != 1 {
		t.Errorf("got %d segments, %d overrides; want 1, 1", len(s.Following), len(s.Overrides))
	}
	if err := s.Apply(ScopeAll, time.Time{}, ReminderChoice{Default: true}); err != nil || !s.Unset() {
		t.Errorf("ALL back to the default: got %v, unset %v; want nothing set", err, s.Unset())
	}
}

func TestReminderSettingBounds(t *testing.T) {
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	s := &ReminderSetting{}
	for i := range MaxReminderOverrides {
		if err := s.Apply(ScopeThis, start.AddDate(0, 0, i), ReminderChoice{Reminders: mins(i % 60)}); err != nil {
			t.Fatalf("override %d: %v", i, err)
		}
	}
	if err := s.Apply(ScopeThis, start.AddDate(0, 0, -1), ReminderChoice{}); ErrorCode(err) != CodeInvalid {
		t.Errorf("override past the bound: got %v, want BAD_USER_INPUT", err)
	}
	if err := s.Apply(ScopeThis, start, ReminderChoice{Default: true}); err != nil {
		t.Errorf("changing an existing override at the bound: got %v, want it allowed", err)
	}
	s = &ReminderSetting{}
	for i := range MaxReminderSegments {
		if err := s.Apply(ScopeThisAndFollowing, start.AddDate(0, 0, -i), ReminderChoice{}); err != nil {
			t.Fatalf("segment %d: %v", i, err)
		}
		s.Following = append(s.Following[:0:0], s.Following...)
	}
	// Each earlier segment replaced the later ones: only one is kept.
	if len(s.Following) != 1 {
		t.Fatalf("got %d segments, want 1", len(s.Following))
	}
	s = &ReminderSetting{}
	for i := range MaxReminderSegments {
		if err := s.Apply(ScopeThisAndFollowing, start.AddDate(0, 0, i), ReminderChoice{}); err != nil {
			t.Fatalf("segment %d: %v", i, err)
		}
	}
	if err := s.Apply(ScopeThisAndFollowing, start.AddDate(1, 0, 0), ReminderChoice{}); ErrorCode(err) != CodeInvalid {
		t.Errorf("segment past the bound: got %v, want BAD_USER_INPUT", err)
	}
}

func TestMyRemindersScopeOn(t *testing.T) {
	occ := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		c         MyRemindersChange
		series    bool
		want      Scope
		wantError bool
	}{
		{"single entry, no scope", MyRemindersChange{}, false, ScopeAll, false},
		{"single entry, ALL", MyRemindersChange{Scope: ScopeAll}, false, ScopeAll, false},
		{"single entry, THIS", MyRemindersChange{Scope: ScopeThis}, false, "", true},
		{"single entry with an occurrence", MyRemindersChange{Occurrence: occ, Scope: ScopeThis}, false, "", true},
		{"series, no scope", MyRemindersChange{}, true, ScopeAll, false},
		{"series, THIS without an occurrence", MyRemindersChange{Scope: ScopeThis}, true, "", true},
		{"occurrence, no scope", MyRemindersChange{Occurrence: occ}, true, ScopeThis, false},
		{"occurrence, following", MyRemindersChange{Occurrence: occ, Scope: ScopeThisAndFollowing}, true, ScopeThisAndFollowing, false},
		{"occurrence, ALL", MyRemindersChange{Occurrence: occ, Scope: ScopeAll}, true, ScopeAll, false},
		{"bad scope", MyRemindersChange{Scope: "SOME"}, true, "", true},
	}
	for _, c := range cases {
		got, err := c.c.ScopeOn(c.series)
		if c.wantError != (ErrorCode(err) == CodeInvalid) || !c.wantError && got.Scope != c.want {
			t.Errorf("%s: got %q, %v; want %q (error %v)", c.name, got.Scope, err, c.want, c.wantError)
		}
	}
}

func TestLegacyReminders(t *testing.T) {
	e := &Entry{CreatedBy: "u1", Reminders: []int{10, 60}}
	if got, set := LegacyReminders(e, "u1").At(time.Time{}); !set || !slices.Equal(got, []Reminder{{60, ReminderInApp}, {10, ReminderInApp}}) {
		t.Errorf("creator: got %v, %v; want their shared reminders as their own", got, set)
	}
	if got := LegacyReminders(e, "u2"); got != nil {
		t.Errorf("another user: got %v, want nothing", got)
	}
	if got := LegacyReminders(&Entry{CreatedBy: "u1"}, "u1"); got != nil {
		t.Errorf("no shared reminders: got %v, want nothing", got)
	}
}

func TestReminderSettingSplitAt(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2027, 5, d, 9, 0, 0, 0, time.UTC) }
	root := EntryKey{CalendarID: "c", EntryID: "new"}
	s := &ReminderSetting{UserID: "u", All: ReminderChoice{Reminders: mins(5)},
		Following: []ReminderSegment{{From: day(4), ReminderChoice: ReminderChoice{Reminders: mins(10)}}, {From: day(8), ReminderChoice: ReminderChoice{Default: true}}},
		Overrides: []ReminderOverride{{OriginalStart: day(3), ReminderChoice: ReminderChoice{Reminders: mins(1)}}, {OriginalStart: day(6), ReminderChoice: ReminderChoice{Reminders: mins(45)}}}}
	got := s.SplitAt(day(5), root)
	for _, c := range []struct {
		at   time.Time
		want string
	}{{day(5), "[{10 IN_APP}] true"}, {day(6), "[{45 IN_APP}] true"}, {day(7), "[{10 IN_APP}] true"}, {day(9), "[] false"}} {
		r, set := got.At(c.at)
		if g := fmt.Sprint(r, " ", set); g != c.want && !(c.want == "[] false" && !set) {
			t.Errorf("split at the 5th, at %s: %s, want %s", c.at.Format("01-02"), g, c.want)
		}
	}
	if got.Root != root || len(got.Overrides) != 1 || len(got.Following) != 1 {
		t.Errorf("split: %+v", got)
	}
	if unset := (&ReminderSetting{All: ReminderChoice{Default: true}, Overrides: []ReminderOverride{{OriginalStart: day(3), ReminderChoice: ReminderChoice{Reminders: mins(1)}}}}).SplitAt(day(5), root); unset != nil {
		t.Errorf("a setting of nothing after the split carried over: %+v", unset)
	}
}
