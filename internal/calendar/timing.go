package calendar

import "time"

// Timing says when an entry happens; exactly one of its fields is set, which
// also sets the entry's kind.
type Timing struct {
	Timed    *TimedTiming
	AllDay   *Date
	MultiDay *DaySpan
	Task     *TaskDue
}

// TimedTiming is a TIMED entry's timing. A zero End means the viewer's default
// duration; an empty TimeZone the default zone.
type TimedTiming struct {
	Start    time.Time
	End      time.Time
	TimeZone string
	// LocalStart, instead of Start, gives the start as a wall clock in the
	// zone (labelled UTC): see Entry.LocalStart.
	LocalStart time.Time
}

// DaySpan is a MULTI_DAY entry's days: End is exclusive.
type DaySpan struct {
	Start, End Date
}

// TaskDue is when a task is due: on a date, or at an instant (with a zone).
type TaskDue struct {
	Date     *Date
	At       *time.Time
	TimeZone string
}

// apply validates t and sets e's kind and timing fields from it.
func (t Timing) apply(e *Entry, d Defaults) error {
	set := 0
	for _, ok := range []bool{t.Timed != nil, t.AllDay != nil, t.MultiDay != nil, t.Task != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return Invalidf("timing", "set exactly one of timing.timed, timing.allDay, timing.multiDay or timing.task")
	}
	wasTask := e.Kind == KindTask
	e.Start, e.End, e.TimeZone, e.StartDate, e.EndDate, e.LocalStart = time.Time{}, time.Time{}, "", Date{}, Date{}, time.Time{}
	var err error
	switch {
	case t.Timed != nil:
		err = t.Timed.apply(e, d)
	case t.AllDay != nil:
		e.Kind, e.StartDate, e.EndDate = KindAllDay, *t.AllDay, t.AllDay.AddDays(1)
		err = lastDay("date", *t.AllDay)
	case t.MultiDay != nil:
		err = t.MultiDay.apply(e)
	default:
		err = t.Task.apply(e, d)
	}
	if e.Kind != KindTask || !wasTask {
		e.Completed, e.CompletedAt = false, time.Time{}
	}
	return err
}

func (t TimedTiming) apply(e *Entry, d Defaults) error {
	zone, err := zoneOrDefault("timeZone", t.TimeZone, d)
	if err != nil {
		return err
	}
	var local time.Time
	switch {
	case !t.LocalStart.IsZero() && !t.Start.IsZero():
		return Invalidf("start", "give start or localStart, not both")
	case !t.LocalStart.IsZero():
		if err := ValidateInstant("localStart", t.LocalStart); err != nil {
			return err
		}
		loc, err := LoadLocation(zone)
		if err != nil {
			return err
		}
		w := t.LocalStart
		t.Start = WallClock(DateOf(w), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc).UTC()
		if r := t.Start.In(loc); DateOf(r) != DateOf(w) || r.Hour() != w.Hour() || r.Minute() != w.Minute() || r.Second() != w.Second() {
			local = time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, time.UTC) // no instant has it
		}
	case t.Start.IsZero():
		return Invalidf("start", "a timed entry needs start or localStart")
	}
	end := t.End
	if end.IsZero() {
		end = t.Start.Add(d.Duration)
	}
	if err := ValidateInstant("start", t.Start); err != nil {
		return err
	}
	if err := ValidateInstant("end", end); err != nil {
		return err
	}
	if !end.After(t.Start) {
		return Invalidf("end", "end must be after start")
	}
	if end.Sub(t.Start) > MaxEntryDays*24*time.Hour {
		return Invalidf("end", "an entry lasts at most %d days", MaxEntryDays)
	}
	e.Kind, e.Start, e.End, e.TimeZone, e.LocalStart = KindTimed, t.Start.UTC(), end.UTC(), zone, local
	return nil
}

func (s DaySpan) apply(e *Entry) error {
	days := s.Start.DaysUntil(s.End)
	if days < 2 {
		return Invalidf("endDate", "a multi-day entry lasts at least two days and endDate is exclusive: use allDay for one day")
	}
	if days > MaxEntryDays {
		return Invalidf("endDate", "an entry lasts at most %d days", MaxEntryDays)
	}
	e.Kind, e.StartDate, e.EndDate = KindMultiDay, s.Start, s.End
	return nil
}

func (t TaskDue) apply(e *Entry, d Defaults) error {
	e.Kind = KindTask
	switch {
	case (t.Date == nil) == (t.At == nil):
		return Invalidf("due", "a task is due either on a date (dueDate) or at an instant (due), not both or neither")
	case t.Date != nil:
		e.StartDate, e.EndDate = *t.Date, t.Date.AddDays(1)
		return lastDay("dueDate", *t.Date)
	}
	zone, err := zoneOrDefault("timeZone", t.TimeZone, d)
	if err != nil {
		return err
	}
	if err := ValidateInstant("due", *t.At); err != nil {
		return err
	}
	e.Start, e.End, e.TimeZone = t.At.UTC(), t.At.UTC(), zone
	return nil
}

func zoneOrDefault(field, zone string, d Defaults) (string, error) {
	if zone == "" {
		zone = d.TimeZone
	}
	if zone == "" {
		zone = DefaultTimeZone
	}
	return zone, ValidateTimeZone(field, zone)
}

// lastDay refuses a whole day that is not within the supported years (the
// exclusive end date given alone as the day).
func lastDay(field string, d Date) error {
	if d.Year > MaxYear {
		return Invalidf(field, "%s must be between %d and %d", field, MinYear, MaxYear)
	}
	return nil
}
