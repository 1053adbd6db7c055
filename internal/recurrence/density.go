package recurrence

import (
	"slices"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// How dense a series may be. A view shows at most calendar.MaxViewEntries
// entries and covers at most calendar.MaxRangeSpan, so a series is refused
// when some range that long holds more of its occurrences than that: then
// every view of one series, the longest included, can show it whole. That is
// about 13 occurrences a day (every two hours, or every quarter of an hour
// for three hours a day, but not every hour around the clock), more than any
// calendar shows a person. A series stored before this bound may be denser:
// a view that holds too many of its occurrences says so for its calendar
// alone (see calendar.Expand).
//
// The bound is measured, not derived from the rule's parts: the rule (with
// every RDATE counted in, wherever it falls, and no EXDATE counted out, since
// a series' later years have none) is expanded over its first year and the
// longest range after it, and every range that long within counted. Rules
// repeat by periods of at most a year, apart from INTERVAL, which only
// spaces their busy periods further apart; COUNT and UNTIL only cut them
// short. Rules of at most one occurrence a day (DAILY or longer, without
// times of day of their own) are far below the bound and not expanded.

// checkDensity refuses what a series' views could not show: SECONDLY rules
// (rrule-go walks every second of a day to find their times, and no calendar
// needs them), times of day in a series of whole days, and rules denser than
// the bound above.
func (x *expansion) checkDensity(series *calendar.Entry) error {
	opt := x.rule.opt
	if opt.Freq == rrule.SECONDLY {
		return calendar.Invalidf("recurrence.rule", "FREQ=SECONDLY is not supported: a series repeats at most every minute (MINUTELY)")
	}
	if series.Dated() && (opt.Freq == rrule.HOURLY || opt.Freq == rrule.MINUTELY || len(opt.Byhour)+len(opt.Byminute)+len(opt.Bysecond) > 0) {
		return calendar.Invalidf("recurrence.rule", "a series of whole days recurs on dates: HOURLY, MINUTELY, BYHOUR, BYMINUTE and BYSECOND are for timed series")
	}
	if opt.Freq <= rrule.DAILY && len(opt.Byhour)+len(opt.Byminute)+len(opt.Bysecond) == 0 {
		// At most one occurrence a day, at the start's time of day: far
		// below the bound (two years of days, RDATEs included), whatever
		// else the rule says.
		return nil
	}
	limit := calendar.MaxViewEntries - len(series.Recurrence.RDates)
	span := calendar.MaxRangeSpan + occurrenceLength(series)
	end := x.rule.anchor.AddDate(1, 0, 0).Add(span)
	var window []time.Time // the starts within span of the latest
	next := x.ruleStarts(time.Time{})
	for t, ok := next(); ok && t.Before(end); t, ok = next() {
		i, _ := slices.BinarySearchFunc(window, t.Add(-span), time.Time.Compare)
		if window = append(window[i:], t); len(window) > limit {
			return calendar.Invalidf("recurrence.rule", "a series may have at most %d occurrences (RDATEs included) in any %d days, the longest view: this rule has more; "+
				"repeat less often (a longer INTERVAL, fewer BYHOUR or BYMINUTE values) or end sooner", calendar.MaxViewEntries, calendar.MaxRangeSpan/(24*time.Hour))
		}
	}
	return nil
}

// occurrenceLength is how long each occurrence of a series lasts: one that
// starts up to that long before a range still shows in it.
func occurrenceLength(series *calendar.Entry) time.Duration {
	if series.Dated() {
		return time.Duration(series.StartDate.DaysUntil(series.EndDate)) * 24 * time.Hour
	}
	return series.End.Sub(series.Start)
}
