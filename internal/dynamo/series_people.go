package dynamo

import (
	"cmp"
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The attendees of a series in its edits. A master written whole (an edit
// of the series as a whole, or of its end by a split) carries its summary
// and shares as read, so it requires them unchanged (masterAsRead), and an
// answer given meanwhile has the edit built again, never refused. A
// deletion of the series deletes its attendees (in its transaction, or
// after its switch: trash_steps.go) and keeps them in the trash; a
// split copies them to the series split off (calendar.SplitAttendee), in
// the transaction that creates it when they fit it, else in steps around
// it (series_split.go).

// masterAsRead is the condition on a master rewritten or deleted: as read,
// its attendee summary included.
func masterAsRead(st *storedSeries) expression.ConditionBuilder {
	return masterUnchanged(st).And(attendanceAsRead(st.Master.Attendance.Rev))
}

// masterChanged explains a failed masterAsRead: a change of the series is
// the client's VERSION_CONFLICT; a change of its attendees alone is built
// again (errAttendanceMoved).
func masterChanged(st *storedSeries) explainFunc {
	return func(old item) error {
		if old != nil {
			r, err := decodeEntryRecord(old)
			if err == nil && r.Version == st.Master.Version && r.Xrev == st.xrev && r.AttRev != st.Master.Attendance.Rev {
				return errAttendanceMoved
			}
		}
		return seriesChanged("series")(old)
	}
}

// seriesPeopleWrites are the attendee writes of a series edit, and the
// attendees whose own logs record them (write.LogInvitation).
type seriesPeopleWrites struct {
	ops     []txOp
	invited []*calendar.Attendee
	raw     []item // a deletion's attendee items as stored (trash_series.go)
}

// logged adds the invitation records of p to w and returns w.
func (p seriesPeopleWrites) logged(w *write) *write {
	for _, a := range p.invited {
		w.LogInvitation(a)
	}
	return w
}

// seriesPeople returns the attendee writes of a series edit: deletes of
// every attendee when it deletes the series, copies to the series split
// off (whose attendance it sets) when it splits.
func (s *Store) seriesPeople(ctx context.Context, st *storedSeries, edit *calendar.SeriesEdit, orig time.Time) (seriesPeopleWrites, error) {
	var out seriesPeopleWrites
	if st.Master.Attendance.Summary.Total() == 0 || (edit.Master != nil && edit.Split == nil) {
		return out, nil
	}
	if edit.Master == nil { // deleted: read as stored, for the trash too
		raw, err := s.rawAttendees(ctx, st.Master)
		if err != nil {
			return out, err
		}
		for _, it := range raw {
			a, err := decodeAttendeeAt(it, st.Master.Attendance.Epoch)
			if err != nil {
				return out, err
			}
			out.ops = append(out.ops, opDelete(attendeeKey(a.CalendarID, a.EntryID, attendeeWho(a.UserID, a.Email)), versionIs(a.Version), attendanceMoved))
			out.invited = append(out.invited, a)
		}
		out.raw = raw
		return out, nil
	}
	people, err := s.allAttendees(ctx, st.Master)
	if err != nil {
		return out, err
	}
	now := s.timestamp()
	for _, a := range people {
		p := calendar.SplitAttendee(a, st.Master, edit.Split, orig)
		out.invited = append(out.invited, p)
		put := attendeePut(p, 0, now)
		put.failed = mustBeNew(calendar.CodeInternal, "series ID collision")
		out.ops = append(out.ops, put)
	}
	edit.Split.Attendance = calendar.SplitAttendance(st.Master, out.invited)
	return out, nil
}

// tooManyPeople refuses a split whose attendee copies do not fit its
// switch when it also rewrites exceptions of the series it splits (none
// does today): other splits are made in steps (splitInSteps), and a
// deletion never comes here (trashSeries).
func (s *Store) tooManyPeople() error {
	return calendar.Invalidf("scope", "this series has too many attendees to split in one step: remove some, or change ALL occurrences")
}

// retrySeriesEdit is retryAttendance for series edits: one whose master's
// attendee summary moved under it (an answer) is built again.
func retrySeriesEdit(ctx context.Context, edit func() (*calendar.SeriesEdit, *calendar.Calendar, error)) (*calendar.SeriesEdit, *calendar.Calendar, error) {
	var cal *calendar.Calendar
	out, err := retryAttendance(ctx, func() (*calendar.SeriesEdit, error) {
		e, c, err := edit()
		cal = cmp.Or(c, cal)
		return e, err
	})
	return out, cal, err
}
