package recurrence

import (
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// MoveRule implements calendar.RecurrenceEngine.
func (Engine) MoveRule(from, to *calendar.Entry, move func(time.Time) time.Time) (rule string, err error) {
	defer guard(&err)
	x, err := newExpansion(from)
	if err != nil {
		return "", err
	}
	opt := x.rule.opt
	if !from.Dated() {
		if err := moveTimes(&opt, x.rule.wall, wallClock(to)); err != nil {
			return "", err
		}
	}
	if !x.rule.until.IsZero() {
		last := from.FirstStart() // the first occurrence is the start; UNTIL is never before it
		next := x.ruleStarts(x.rule.until)
		for t, ok := next(); ok; t, ok = next() {
			last = t
		}
		opt.Count, opt.Until = 0, move(last).UTC()
	}
	return ruleString(opt, from.Dated()), nil
}

// wallClock is a timed series' start as a wall clock in its zone, labelled
// UTC (its LocalStart when a DST gap skipped it).
func wallClock(series *calendar.Entry) time.Time {
	if !series.LocalStart.IsZero() {
		return series.LocalStart
	}
	a := anchor(series)
	return floating(a, a.Location())
}

// moveTimes moves a rule's own times of day (BYHOUR, BYMINUTE, BYSECOND) as
// its series' start moves from one wall clock to another, part by part: a
// rule of 09:50 and 17:50 whose start moves from 09:50 to 10:10 gets
// BYHOUR=10,18 and BYMINUTE=10, each occurrence 20 minutes later. A rule
// without them takes its times from the start, which moves by itself. Errors:
// CodeInvalid when a time would leave its day (or a minute its hour): the
// occurrences would then move to other dates than the rule's days say.
func moveTimes(opt *rrule.ROption, from, to time.Time) error {
	parts := []struct {
		name   string
		values *[]int
		by     int
		max    int
	}{
		{"BYHOUR", &opt.Byhour, to.Hour() - from.Hour(), 23},
		{"BYMINUTE", &opt.Byminute, to.Minute() - from.Minute(), 59},
		{"BYSECOND", &opt.Bysecond, to.Second() - from.Second(), 59},
	}
	for _, p := range parts {
		if len(*p.values) == 0 || p.by == 0 {
			continue
		}
		moved := make([]int, len(*p.values))
		for i, v := range *p.values {
			if moved[i] = v + p.by; moved[i] < 0 || moved[i] > p.max {
				return calendar.Invalidf("timing", "the series' rule sets its own times of day, and %s=%d would move to %d: "+
					"give the rule with its new times along with the timing, or move the series by whole days", p.name, v, moved[i])
			}
		}
		*p.values = moved
	}
	return nil
}
