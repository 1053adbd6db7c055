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
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Engine is the calendar.RecurrenceEngine of rrule-go.
type Engine struct{}

var _ calendar.RecurrenceEngine = Engine{}

// expansion is a series' recurrence set, ready to iterate.
type expansion struct {
	rule    *rule
	rdates  []time.Time
	exdates map[int64]bool // by Unix milliseconds
}

func newExpansion(series *calendar.Entry) (*expansion, error) {
	if series.Recurrence == nil {
		return nil, calendar.Invalidf("recurrence", "recurrence is required for a series")
	}
	r, err := parse(series.Recurrence.Rule, anchor(series), series.LocalStart)
	if err != nil {
		return nil, err
	}
	x := &expansion{rule: r, exdates: map[int64]bool{}}
	for _, d := range series.Recurrence.RDates {
		x.rdates = append(x.rdates, d.UTC())
	}
	slices.SortFunc(x.rdates, time.Time.Compare)
	for _, d := range series.Recurrence.ExDates {
		x.exdates[d.UnixMilli()] = true
	}
	return x, nil
}

// anchor is the series' start as the rule sees it: the first occurrence's
// wall-clock time in the series' zone, or its date at midnight UTC.
func anchor(series *calendar.Entry) time.Time {
	if series.Dated() {
		return series.StartDate.In(time.UTC)
	}
	loc, err := calendar.LoadLocation(series.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return series.Start.In(loc)
}

// ruleStarts returns an iterator over the rule's own occurrences (no RDATE or
// EXDATE), as instants; from t on when t is set (it may skip earlier ones,
// see fastForward).
func (x *expansion) ruleStarts(t time.Time) func() (time.Time, bool) {
	r := x.rule
	start, extra := r.start(), r.extraStart
	if a, ok := x.fastForward(t); ok {
		start, extra = a, false // the anchor lies before t
	}
	rr, err := r.rrule(start)
	if err != nil {
		rr, _ = r.rrule(r.start()) // parse succeeded with the anchor
	}
	next := rr.Iterator()
	return func() (time.Time, bool) {
		if extra {
			extra = false
			return r.anchor.UTC(), true
		}
		w, ok := next()
		if !ok {
			return time.Time{}, false
		}
		i := r.instant(w)
		if !r.until.IsZero() && i.After(r.until) {
			return time.Time{}, false
		}
		return i, true
	}
}

// fastForward returns a later (floating) start to expand a rule from, so that a view
// of a series begun years ago does not walk through all its occurrences. A
// DAILY or WEEKLY rule without COUNT repeats every INTERVAL days or weeks:
// moved forward by whole periods, to at least one period before t, it yields
// the same occurrences from t on (those it skips in its first period lie
// before it). Other rules are not moved.
//
// HOURLY, MINUTELY and SECONDLY rules without COUNT move the same way by
// whole periods of their length on the floating clock, which has no DST.
func (x *expansion) fastForward(t time.Time) (time.Time, bool) {
	opt := x.rule.opt
	if t.IsZero() || opt.Count > 0 {
		return time.Time{}, false
	}
	if unit, ok := subDaily[opt.Freq]; ok {
		period := time.Duration(max(opt.Interval, 1)) * unit
		first := x.rule.start()
		if k := floating(t, x.rule.loc).Sub(first)/period - 1; k > 0 {
			return first.Add(k * period), true
		}
		return time.Time{}, false
	}
	if opt.Freq != rrule.DAILY && opt.Freq != rrule.WEEKLY {
		return time.Time{}, false
	}
	period := max(opt.Interval, 1)
	if opt.Freq == rrule.WEEKLY {
		period *= 7
	}
	first := x.rule.start()
	days := calendar.DateOf(first).DaysUntil(calendar.DateOf(t.In(x.rule.loc))) - period
	if k := days / period; k > 0 {
		return first.AddDate(0, 0, k*period), true
	}
	return time.Time{}, false
}

// subDaily are the frequencies shorter than a day, by their period.
var subDaily = map[rrule.Frequency]time.Duration{rrule.HOURLY: time.Hour, rrule.MINUTELY: time.Minute, rrule.SECONDLY: time.Second}

// iterator returns the recurrence set in order: the rule's occurrences and
// the RDATEs, less the EXDATEs, each once; from t on when t is set (earlier
// ones may or may not come).
func (x *expansion) iterator(t time.Time) func() (time.Time, bool) {
	rule := x.ruleStarts(t)
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
			if x.exdates[t.UnixMilli()] || t.Equal(last) {
				continue
			}
			last = t
			return t, true
		}
	}
}

// Validate implements calendar.RecurrenceEngine. It also puts the recurrence
// in canonical form: the rule as RFC 5545 writes it (parts in a fixed order,
// UNTIL in UTC, or as a date for a series of whole days), dates sorted, once.
func (Engine) Validate(series *calendar.Entry) (err error) {
	defer guard(&err)
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
	if err := x.checkSize(); err != nil {
		return err
	}
	if err := x.checkDensity(series); err != nil {
		return err
	}
	r := series.Recurrence
	r.Rule = x.rule.String(series.Dated())
	r.RDates, r.ExDates = canonicalDates(r.RDates), canonicalDates(r.ExDates)
	return nil
}

// checkSize refuses a rule too large to expand quickly: one with UNTIL
// (COUNT is capped by itself) of more than MaxOccurrences occurrences, and
// one that goes on for ever, expanded from its start (MONTHLY, YEARLY), with
// more than MaxYearlyDensity occurrences in its first year.
func (x *expansion) checkSize() error {
	r := x.rule
	var limit int
	var end time.Time
	switch _, fast := subDaily[r.opt.Freq]; {
	case !r.until.IsZero():
		limit = MaxOccurrences
	case r.forever && !fast && r.opt.Freq != rrule.DAILY && r.opt.Freq != rrule.WEEKLY:
		limit, end = MaxYearlyDensity, r.anchor.AddDate(1, 0, 0)
	default:
		return nil
	}
	next := x.ruleStarts(time.Time{})
	for n := 0; ; n++ {
		t, ok := next()
		if !ok || (!end.IsZero() && !t.Before(end)) {
			return nil
		}
		if n == limit {
			if end.IsZero() {
				return calendar.Invalidf("recurrence.rule", "a rule with UNTIL may have at most %d occurrences: end it sooner, or leave UNTIL out", MaxOccurrences)
			}
			return calendar.Invalidf("recurrence.rule", "a monthly or yearly rule without an end may have at most %d occurrences a year", MaxYearlyDensity)
		}
	}
}

func canonicalDates(ds []time.Time) []time.Time {
	out := make([]time.Time, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.UTC())
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

// checkDates refuses RDATEs and EXDATEs of the wrong form: whole seconds (an
// occurrence's ID holds its start to the second), and dates at midnight UTC
// for a series of whole days. They may come before the start (RFC 5545
// allows it: the series then begins with them).
func checkDates(series *calendar.Entry) error {
	for _, d := range slices.Concat(series.Recurrence.RDates, series.Recurrence.ExDates) {
		if err := calendar.ValidateInstant("recurrence", d); err != nil {
			return err
		}
		switch {
		case !d.Equal(d.Truncate(time.Second)):
			return calendar.Invalidf("recurrence", "RDATE and EXDATE values are whole seconds")
		case series.Dated() && !d.Equal(calendar.DateOf(d.UTC()).In(time.UTC)):
			return calendar.Invalidf("recurrence", "a series of whole days lists RDATE and EXDATE as dates")
		}
	}
	return nil
}

// Starts implements calendar.RecurrenceEngine.
func (Engine) Starts(series *calendar.Entry, from, to time.Time, max int) (_ []time.Time, err error) {
	defer guard(&err)
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
		if len(out) >= max {
			return nil, calendar.ErrTooManyStarts
		}
		out = append(out, t)
	}
	return out, nil
}

// Last implements calendar.RecurrenceEngine.
func (Engine) Last(series *calendar.Entry) (_ time.Time, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	x, err := newExpansion(series)
	if err != nil || x.rule.forever {
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
func (Engine) Has(series *calendar.Entry, start time.Time) (has bool) {
	defer func() {
		if recover() != nil {
			has = false
		}
	}()
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
	defer guard(&err)
	x, err := newExpansion(series)
	if err != nil {
		return before, after, err
	}
	done, found := 0, false
	next := x.ruleStarts(time.Time{})
	for t, ok := next(); ok && !t.After(start); t, ok = next() {
		if found = t.Equal(start); !found {
			done++
		}
	}
	if !found || done == 0 {
		return before, after, calendar.Invalidf("scope", "a series can only be split at a later occurrence of its rule, not at an extra date (RDATE)")
	}
	until := start.Add(-time.Second).UTC()
	if series.Dated() {
		until = start.AddDate(0, 0, -1).UTC()
	}
	bOpt, aOpt := x.rule.opt, x.rule.opt
	bOpt.Count, bOpt.Until = 0, until
	if aOpt.Count > 0 {
		aOpt.Count -= done
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

// guard turns a panic of rrule-go, on a rule it parsed but cannot expand,
// into an invalid rule: nothing a client sends may take the process down.
func guard(err *error) {
	if p := recover(); p != nil {
		*err = calendar.Invalidf("recurrence.rule", "recurrence.rule cannot be expanded: %v", p)
	}
}
