package recurrence

import (
	"slices"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Portable implements calendar.RecurrenceEngine.
func (Engine) Portable(series *calendar.Entry) (_ calendar.Recurrence, err error) {
	defer guard(&err)
	x, err := newExpansion(series)
	if err != nil {
		return calendar.Recurrence{}, err
	}
	r := *series.Recurrence
	r.RDates, r.ExDates = slices.Clone(r.RDates), slices.Clone(r.ExDates)
	opt := x.rule.opt
	switch {
	case !x.rule.extraStart:
		return r, nil
	case opt.Count == 1:
		// The start alone: a rule of its FREQ without parts that would move
		// it gives the start and nothing else, to every reader.
		r.Rule = ruleString(rrule.ROption{Freq: opt.Freq, Count: 1}, series.Dated())
		return r, nil
	case opt.Count > 0:
		var last time.Time
		next := x.ruleStarts(time.Time{})
		for t, ok := next(); ok; t, ok = next() {
			last = t
		}
		opt.Count, opt.Until = 0, last.UTC()
		r.Rule = ruleString(opt, series.Dated())
	}
	if first := series.FirstStart(); !x.exdates[first.UnixMilli()] {
		r.RDates = canonicalDates(append(r.RDates, first))
	}
	return r, nil
}
