package calendar

// TimeMoved reports whether an edit from before to after moves when the entry
// happens: the one change that sends its attendees' answers back to
// NEEDS_ACTION (issue 25), since an answer to "Tuesday at 10" says nothing
// about Wednesday. A new title, description, place or attendee list keeps
// every answer. The time moves when its start or end instant moves, when its
// whole days change, or when it turns from timed to whole days or back. A
// new time zone alone moves nothing on a single entry whose instants stay
// (its clocks are only read elsewhere), but does on a series, whose later
// occurrences keep their wall clock in the zone and so land elsewhere across
// a DST change.
func TimeMoved(before, after *Entry) bool {
	if before.Dated() != after.Dated() || before.StartDate != after.StartDate || before.EndDate != after.EndDate {
		return true
	}
	if !before.Start.Equal(after.Start) || !before.End.Equal(after.End) {
		return true
	}
	return after.Recurrence != nil && before.TimeZone != after.TimeZone
}
