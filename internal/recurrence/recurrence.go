// Package recurrence expands calgraph's series: RFC 5545 recurrence rules,
// with RDATE and EXDATE, by github.com/teambition/rrule-go. It implements
// calendar.RecurrenceEngine.
//
// A timed series recurs in its own time zone, so a 09:00 America/New_York
// meeting stays at 09:00 New York time on both sides of a DST change; a series
// of whole days recurs on dates, computed at midnight UTC. Where a DST change
// skips an occurrence's time of day it is read with the offset in force before
// the gap (02:30 on a day New York jumps from 02:00 to 03:00 is 03:30 EDT), and
// where a time of day happens twice it is the first one, as RFC 5545 section
// 3.3.5 says of local times.
package recurrence

import (
	"slices"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Limits on rules, so that no series is absurdly large or slow to expand.
const (
	MaxCount    = 5000 // COUNT
	MaxInterval = 1000 // INTERVAL
	MaxDates    = 500  // RDATE and EXDATE values each
	maxRuleLen  = 500  // characters of the RRULE value
)

// Engine is the calendar.RecurrenceEngine of rrule-go.
type Engine struct{}

var _ calendar.RecurrenceEngine = Engine{}

// unsupported rule parts: BYHOUR/BYMINUTE/BYSECOND would give occurrences other
// times of day than the series' own, and DTSTART is the series' start.
var unsupported = []string{"BYHOUR", "BYMINUTE", "BYSECOND", "BYEASTER", "DTSTART"}

// expansion is a series' recurrence set, ready to iterate.
type expansion struct {
	rule    *rrule.RRule
	anchor  time.Time // the first occurrence, in the series' zone
	rdates  []time.Time
	exdates map[int64]bool // by Unix milliseconds
}

func newExpansion(series *calendar.Entry) (*expansion, error) {
	if series.Recurrence == nil {
		return nil, calendar.Invalidf("recurrence", "recurrence is required for a series")
	}
	x := &expansion{anchor: anchor(series), exdates: map[int64]bool{}}
	rule, err := parse(series.Recurrence.Rule, x.anchor)
	if err != nil {
		return nil, err
	}
	x.rule = rule
	for _, d := range series.Recurrence.RDates {
		x.rdates = append(x.rdates, d.UTC())
	}
	slices.SortFunc(x.rdates, time.Time.Compare)
	for _, d := range series.Recurrence.ExDates {
		x.exdates[d.UnixMilli()] = true
	}
	return x, nil
}

// parse reads and checks a rule value and binds it to the series' start.
func parse(value string, anchor time.Time) (*rrule.RRule, error) {
	value = strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(value), "RRULE:"))
	if value == "" || len(value) > maxRuleLen || strings.ContainsAny(value, "\r\n") {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule must be an RRULE value like FREQ=WEEKLY;BYDAY=MO")
	}
	for _, part := range unsupported {
		if strings.Contains(";"+value, ";"+part+"=") {
			return nil, calendar.Invalidf("recurrence.rule", "%s is not supported: occurrences keep their series' start and time of day", part)
		}
	}
	opt, err := rrule.StrToROptionInLocation(value, anchor.Location())
	if err != nil {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule is not a valid RRULE: %s", err)
	}
	if err := checkOptions(opt, anchor); err != nil {
		return nil, err
	}
	opt.Dtstart = anchor
	rule, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule is not a valid RRULE: %s", err)
	}
	return rule, nil
}

func checkOptions(opt *rrule.ROption, anchor time.Time) error {
	switch {
	case opt.Freq > rrule.DAILY:
		return calendar.Invalidf("recurrence.rule", "FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY")
	case opt.Count < 0 || opt.Count > MaxCount:
		return calendar.Invalidf("recurrence.rule", "COUNT must be between 1 and %d", MaxCount)
	case opt.Interval < 0 || opt.Interval > MaxInterval:
		return calendar.Invalidf("recurrence.rule", "INTERVAL must be between 1 and %d", MaxInterval)
	case opt.Count > 0 && !opt.Until.IsZero():
		return calendar.Invalidf("recurrence.rule", "a rule has COUNT or UNTIL, not both")
	case !opt.Until.IsZero() && opt.Until.Before(anchor):
		return calendar.Invalidf("recurrence.rule", "UNTIL is before the series' start")
	case !opt.Until.IsZero() && opt.Until.Year() > calendar.MaxYear:
		return calendar.Invalidf("recurrence.rule", "UNTIL must be before the year %d", calendar.MaxYear+1)
	}
	return nil
}

// anchor is the series' start as the rule sees it: the first occurrence's
// wall-clock time in the series' zone, or its date at midnight UTC.
func anchor(series *calendar.Entry) time.Time {
	if series.Dated() {
		return series.StartDate.In(time.UTC)
	}
	loc, err := time.LoadLocation(series.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return series.Start.In(loc)
}

// ruleStarts returns an iterator over the rule's own occurrences (no RDATE or
// EXDATE), each at the series' time of day as RFC 5545 reads local times.
func (x *expansion) ruleStarts() func() (time.Time, bool) { return x.ruleStartsNear(time.Time{}) }

// ruleStartsNear is ruleStarts for a caller that only wants occurrences from
// t on: it may skip earlier ones (see fastForward).
func (x *expansion) ruleStartsNear(t time.Time) func() (time.Time, bool) {
	rule := x.rule
	if a, ok := x.fastForward(t); ok {
		opt := x.rule.OrigOptions
		opt.Dtstart = a
		if r, err := rrule.NewRRule(opt); err == nil {
			rule = r
		}
	}
	next := rule.Iterator()
	return func() (time.Time, bool) {
		t, ok := next()
		if !ok {
			return t, false
		}
		return wallClock(t, x.anchor), true
	}
}

// fastForward returns a later start to expand a rule from, so that a view
// of a series begun years ago does not walk through all its occurrences. A
// DAILY or WEEKLY rule without COUNT repeats every INTERVAL days or weeks:
// moved forward by whole periods, to at least one period before t, it yields
// the same occurrences from t on (those it skips in its first period lie
// before it). Other rules, and a move that would land in a DST gap, are not
// moved.
func (x *expansion) fastForward(t time.Time) (time.Time, bool) {
	opt := x.rule.OrigOptions
	if t.IsZero() || opt.Count > 0 || (opt.Freq != rrule.DAILY && opt.Freq != rrule.WEEKLY) {
		return time.Time{}, false
	}
	period := max(opt.Interval, 1)
	if opt.Freq == rrule.WEEKLY {
		period *= 7
	}
	loc := x.anchor.Location()
	first := calendar.DateOf(x.anchor)
	days := first.DaysUntil(calendar.DateOf(t.In(loc))) - period
	h, mi, sec := x.anchor.Clock()
	for k := days / period; k > 0; k-- {
		d := first.AddDays(k * period)
		a := time.Date(d.Year, d.Month, d.Day, h, mi, sec, x.anchor.Nanosecond(), loc)
		if ah, am, as := a.Clock(); ah == h && am == mi && as == sec {
			return a, true
		}
	}
	return time.Time{}, false
}

// wallClock returns the instant on t's day at anchor's time of day in
// anchor's zone, as RFC 5545 reads local times (calendar.WallClock).
func wallClock(t, anchor time.Time) time.Time {
	loc := anchor.Location()
	h, mi, s := anchor.Clock()
	return calendar.WallClock(calendar.DateOf(t.In(loc)), h, mi, s, anchor.Nanosecond(), loc)
}

// iterator returns the recurrence set in order: the rule's occurrences and
// the RDATEs, less the EXDATEs, each once; from t on when t is set (earlier
// ones may or may not come).
func (x *expansion) iterator(t time.Time) func() (time.Time, bool) {
	rule := x.ruleStartsNear(t)
	r, rok := rule()
	i := 0
	var last time.Time
	return func() (time.Time, bool) {
		for {
			var t time.Time
			switch {
			case rok && (i == len(x.rdates) || !x.rdates[i].Before(r)):
				t = r
				r, rok = rule()
			case i < len(x.rdates):
				t = x.rdates[i]
				i++
			default:
				return time.Time{}, false
			}
			t = t.UTC()
			if x.exdates[t.UnixMilli()] || t.Equal(last) {
				continue
			}
			last = t
			return t, true
		}
	}
}

// Validate implements calendar.RecurrenceEngine.
func (Engine) Validate(series *calendar.Entry) error {
	if series.Recurrence != nil && (len(series.Recurrence.RDates) > MaxDates || len(series.Recurrence.ExDates) > MaxDates) {
		return calendar.Invalidf("recurrence", "a series has at most %d RDATE and %d EXDATE values", MaxDates, MaxDates)
	}
	x, err := newExpansion(series)
	if err != nil {
		return err
	}
	if err := checkDates(series); err != nil {
		return err
	}
	first, ok := x.ruleStarts()()
	if !ok || !first.Equal(x.anchor) {
		return calendar.Invalidf("recurrence.rule", "the series' start must be the first occurrence of its rule (RFC 5545: DTSTART must match the rule)")
	}
	return nil
}

// checkDates refuses RDATEs and EXDATEs of the wrong form: a series of whole
// days lists dates, at midnight UTC, and nothing comes before the start.
func checkDates(series *calendar.Entry) error {
	first := series.FirstStart()
	for _, d := range slices.Concat(series.Recurrence.RDates, series.Recurrence.ExDates) {
		if err := calendar.ValidateInstant("recurrence", d); err != nil {
			return err
		}
		if series.Dated() && !d.Equal(calendar.DateOf(d.UTC()).In(time.UTC)) {
			return calendar.Invalidf("recurrence", "a series of whole days lists RDATE and EXDATE as dates")
		}
		if d.Before(first) {
			return calendar.Invalidf("recurrence", "RDATE and EXDATE values cannot be before the series' start")
		}
	}
	return nil
}

// Starts implements calendar.RecurrenceEngine.
func (Engine) Starts(series *calendar.Entry, from, to time.Time, max int) ([]time.Time, error) {
	x, err := newExpansion(series)
	if err != nil {
		return nil, err
	}
	var out []time.Time
	next := x.iterator(from)
	for t, ok := next(); ok && t.Before(to); t, ok = next() {
		if t.Before(from) {
			continue
		}
		if len(out) == max {
			return nil, calendar.Invalidf("range", "this range holds too many occurrences of series (more than %d): narrow it", calendar.MaxOccurrencesPerRange)
		}
		out = append(out, t)
	}
	return out, nil
}

// Last implements calendar.RecurrenceEngine.
func (Engine) Last(series *calendar.Entry) (time.Time, bool) {
	x, err := newExpansion(series)
	if err != nil || (x.rule.OrigOptions.Count == 0 && x.rule.OrigOptions.Until.IsZero()) {
		return time.Time{}, false
	}
	last := series.FirstStart()
	next := x.iterator(time.Time{}) // bounded by COUNT or UNTIL
	for t, ok := next(); ok; t, ok = next() {
		last = t
	}
	return last, true
}

// Has implements calendar.RecurrenceEngine.
func (Engine) Has(series *calendar.Entry, start time.Time) bool {
	x, err := newExpansion(series)
	if err != nil {
		return false
	}
	next := x.iterator(start)
	for t, ok := next(); ok && !t.After(start); t, ok = next() {
		if t.Equal(start) {
			return true
		}
	}
	return false
}

// Split implements calendar.RecurrenceEngine: before ends with UNTIL just
// before start; after continues from start with what is left of a COUNT, and
// each side keeps the RDATEs and EXDATEs on its side of start.
func (Engine) Split(series *calendar.Entry, start time.Time) (before, after calendar.Recurrence, err error) {
	x, err := newExpansion(series)
	if err != nil {
		return before, after, err
	}
	opt := x.rule.OrigOptions
	until := start.Add(-time.Second).UTC()
	if series.Dated() {
		until = start.AddDate(0, 0, -1).UTC()
	}
	done, found := 0, false
	next := x.ruleStarts()
	for t, ok := next(); ok && !t.After(start); t, ok = next() {
		if found = t.Equal(start); !found {
			done++
		}
	}
	if !found || done == 0 {
		return before, after, calendar.Invalidf("scope", "a series can only be split at a later occurrence of its rule, not at an extra date (RDATE)")
	}
	bOpt, aOpt := opt, opt
	bOpt.Count, bOpt.Until = 0, until
	if opt.Count > 0 {
		aOpt.Count = opt.Count - done
	}
	before = calendar.Recurrence{Rule: ruleString(bOpt, series.Dated())}
	after = calendar.Recurrence{Rule: ruleString(aOpt, series.Dated())}
	for _, d := range series.Recurrence.RDates {
		appendSide(&before.RDates, &after.RDates, d, start)
	}
	for _, d := range series.Recurrence.ExDates {
		appendSide(&before.ExDates, &after.ExDates, d, start)
	}
	return before, after, nil
}

func appendSide(before, after *[]time.Time, d, start time.Time) {
	if d.Before(start) {
		*before = append(*before, d)
	} else {
		*after = append(*after, d)
	}
}

// ruleString writes an RRULE value without DTSTART; a series of whole days
// gets its UNTIL as a date.
func ruleString(opt rrule.ROption, dated bool) string {
	opt.Dtstart = time.Time{}
	s := opt.RRuleString()
	if dated && !opt.Until.IsZero() {
		full := "UNTIL=" + opt.Until.UTC().Format("20060102T150405Z")
		s = strings.Replace(s, full, "UNTIL="+opt.Until.UTC().Format("20060102"), 1)
	}
	return strings.TrimPrefix(s, "RRULE:")
}
