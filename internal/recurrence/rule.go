package recurrence

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Limits on rules, so that no series is absurdly large or slow to expand.
const (
	MaxCount    = 10000 // COUNT
	MaxInterval = 1000  // INTERVAL
	MaxDates    = 500   // RDATE and EXDATE values each
	maxRuleLen  = 500   // characters of the RRULE value

	// MaxOccurrences bounds the occurrences of a rule with UNTIL (a century
	// of days fits), so that finding its last one stays quick.
	MaxOccurrences = 50000
	// MaxYearlyDensity bounds the occurrences in a year of a rule that goes
	// on for ever and is expanded from its start (MONTHLY and YEARLY: those
	// of shorter periods skip to the range a view asks for).
	MaxYearlyDensity = 1000
)

// unsupported rule parts: BYEASTER is not RFC 5545, and DTSTART is the
// series' start.
var unsupported = []string{"BYEASTER", "DTSTART"}

// weekdays are BYDAY's day names.
var weekdays = []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}

// lint checks what rrule-go lets through: each part once, COUNT and INTERVAL
// positive, BYDAY ordinals between 1 and 53 either way (5 within a month), no
// unsupported parts.
func lint(value string) error {
	bad := func(format string, args ...any) error { return calendar.Invalidf("recurrence.rule", format, args...) }
	if value == "" || len(value) > maxRuleLen || strings.ContainsAny(value, "\r\n") {
		return bad("recurrence.rule must be an RRULE value like FREQ=WEEKLY;BYDAY=MO")
	}
	maxOrdinal := 53
	if strings.Contains(";"+value, ";FREQ=MONTHLY") || strings.Contains(";"+value, ";BYMONTH=") {
		maxOrdinal = 5 // the nth weekday of a month
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(value, ";") {
		name, v, _ := strings.Cut(part, "=")
		switch {
		case slices.Contains(unsupported, name):
			return bad("%s is not supported: occurrences keep their series' start and time of day", name)
		case seen[name]:
			return bad("%s is given twice", name)
		case (name == "COUNT" || name == "INTERVAL") && !positive(v):
			return bad("%s must be a whole number from 1", name)
		case name == "BYSECOND" && slices.Contains(strings.Split(v, ","), "60"):
			return bad("BYSECOND=60 (a leap second) is not supported")
		case name == "BYDAY":
			for _, d := range strings.Split(v, ",") {
				if n := strings.TrimRight(d, "MOTUWEHFRSA"); n != "" && !ordinal(n, maxOrdinal) || !slices.Contains(weekdays, d[len(n):]) {
					return bad("BYDAY %q is not a day like MO, 2MO or -1FR", d)
				}
			}
		}
		seen[name] = true
	}
	return nil
}

func positive(s string) bool { n, err := strconv.Atoi(s); return err == nil && n > 0 }

func ordinal(s string, max int) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n != 0 && n >= -max && n <= max
}

// rule is a series' RRULE, read.
//
// A start that is not an occurrence of its rule (a weekly TU,TH rule begun
// on a Monday, as real exports have) is an occurrence all the same, the
// first: RFC 5545 leaves that set undefined, and this is its "first
// instance" reading, Google Calendar's. It counts towards COUNT ("the
// DTSTART property value always counts as the first occurrence"), so the
// rule itself yields COUNT − 1 more.
type rule struct {
	opt     rrule.ROption  // as the client gave it, in the series' zone
	anchor  time.Time      // the first occurrence, in the series' zone
	wall    time.Time      // the first occurrence's wall clock (floating): anchor's, or the series' LocalStart
	until   time.Time      // the last instant an occurrence may start at; zero for none
	forever bool           // no COUNT and no UNTIL
	loc     *time.Location // the series' zone (UTC for whole days)
	// extraStart: the anchor is not an occurrence of the rule, and comes
	// before the rule's own (see above).
	extraStart bool
}

// parse reads and checks a rule value for a series starting at anchor, on
// the wall clock local when set (a start in a DST gap: see
// calendar.Entry.LocalStart), else anchor's own.
func parse(value string, anchor, local time.Time) (*rule, error) {
	value = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(value)), "RRULE:")
	if err := lint(value); err != nil {
		return nil, err
	}
	opt, err := rrule.StrToROptionInLocation(value, anchor.Location())
	if err != nil {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule is not a valid RRULE: %s", err)
	}
	if err := checkOptions(opt, anchor); err != nil {
		return nil, err
	}
	r := &rule{opt: *opt, anchor: anchor, wall: local, until: opt.Until, forever: opt.Count == 0 && opt.Until.IsZero(), loc: anchor.Location()}
	if r.wall.IsZero() {
		r.wall = floating(anchor, anchor.Location())
	}
	rr, err := r.rrule(r.start())
	if err != nil {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule is not a valid RRULE: %s", err)
	}
	first, ok := rr.Iterator()()
	if !ok {
		return nil, calendar.Invalidf("recurrence.rule", "recurrence.rule has no occurrence")
	}
	r.extraStart = !first.Equal(r.start())
	return r, nil
}

func checkOptions(opt *rrule.ROption, anchor time.Time) error {
	switch {
	case opt.Count > MaxCount:
		return calendar.Invalidf("recurrence.rule", "COUNT must be between 1 and %d", MaxCount)
	case opt.Interval > MaxInterval:
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

// The rule is expanded on the wall clock of the series' zone with no DST in
// it: rrule-go sees local dates and times labelled UTC, where every day has
// every time, and each occurrence becomes an instant by calendar.WallClock.
// (Given the zone itself, rrule-go builds days with time.Date, which puts a
// midnight that a DST change skips on the day before.)

// floating returns t's wall clock in loc, labelled UTC.
func floating(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// endOfTime is where a rule without COUNT or UNTIL stops being expanded: after
// the last supported year (rrule-go would stop about 292 years after DTSTART).
var endOfTime = time.Date(calendar.MaxYear+1, time.January, 1, 0, 0, 0, 0, time.UTC)

// start is the anchor on the floating clock.
func (r *rule) start() time.Time { return r.wall }

// rrule returns the rule on the floating wall clock, starting at start (the
// anchor's, or a later start of the same period; see fastForward). With an
// extra start, COUNT counts it: the rule yields one fewer (and with COUNT=1,
// only the start is left: nothing is yielded).
func (r *rule) rrule(start time.Time) (*rrule.RRule, error) {
	opt := r.opt
	opt.Dtstart = start
	if r.extraStart && opt.Count > 0 {
		if opt.Count--; opt.Count == 0 {
			opt.Count, opt.Until = 0, start.Add(-time.Second) // nothing
		}
	}
	switch {
	case r.forever:
		opt.Until = endOfTime
	case !r.until.IsZero():
		// A margin for the wall clock's DST offsets; instant reads the exact UNTIL.
		opt.Until = floating(r.until, r.loc).Add(3 * time.Hour)
	}
	return rrule.NewRRule(opt)
}

// instant returns the instant of an occurrence found on the floating clock.
// The first occurrence is the series' start itself, even where its time of
// day happens twice and the start is the second time (RFC 5545: DTSTART is
// always the first occurrence).
func (r *rule) instant(w time.Time) time.Time {
	if w.Equal(r.start()) {
		return r.anchor.UTC()
	}
	return calendar.WallClock(calendar.DateOf(w), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), r.loc).UTC()
}

// String writes the rule as RFC 5545 does, without DTSTART; a series of whole
// days gets its UNTIL as a date.
func (r *rule) String(dated bool) string { return ruleString(r.opt, dated) }

func ruleString(opt rrule.ROption, dated bool) string {
	opt.Dtstart = time.Time{}
	s := strings.TrimPrefix(opt.RRuleString(), "RRULE:")
	if dated && !opt.Until.IsZero() {
		full := "UNTIL=" + opt.Until.UTC().Format("20060102T150405Z")
		s = strings.Replace(s, full, "UNTIL="+opt.Until.UTC().Format("20060102"), 1)
	}
	return s
}
