package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// Conversions between the entry and view inputs and outputs and the domain.

func newEntry(in model.CreateEntryInput) (calendar.NewEntry, error) {
	calID, err := model.DecodeCalendarID("calendarId", in.CalendarID)
	if err != nil {
		return calendar.NewEntry{}, err
	}
	t, err := timing(in.Timing)
	n := calendar.NewEntry{
		CalendarID: calID, Timing: t, Title: in.Title,
		Description: orEmpty(in.Description), Location: orEmpty(in.Location), Color: orEmpty(in.Color), Tags: in.Tags.Value(),
	}
	if r := in.Reminders.Value(); r != nil {
		n.Reminders = calendar.Set(r)
	}
	if t := in.Transparency.Value(); t != nil {
		n.Transparency = *t
	}
	if v := in.Visibility.Value(); v != nil {
		n.Visibility = *v
	}
	n.Recurrence = recurrence(in.Recurrence.Value())
	if err != nil {
		return n, err
	}
	n.MustNotOverlap, err = calendarIDs("mustNotOverlap", in.MustNotOverlap.Value())
	return n, err
}

// calendarIDs decodes a list of calendars' global IDs.
func calendarIDs(field string, gids []string) ([]string, error) {
	var ids []string
	for _, gid := range gids {
		id, err := model.DecodeCalendarID(field, gid)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func recurrence(in *model.RecurrenceInput) *calendar.Recurrence {
	if in == nil {
		return nil
	}
	return &calendar.Recurrence{Rule: in.Rule, RDates: values(in.Rdates.Value()), ExDates: values(in.Exdates.Value())}
}

func values[T any](ps []*T) []T {
	var out []T
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

// target is what an entry mutation addresses: a single entry or series, or an
// occurrence of a series with the scope of the change.
type target struct {
	entry      calendar.EntryKey
	occurrence *calendar.OccurrenceKey
	scope      calendar.Scope
}

// editTarget decodes an entry mutation's id and scope: an occurrence takes
// any scope (THIS by default), a single entry or series only ALL.
func editTarget(gid string, scope graphql.Omittable[*calendar.Scope]) (target, error) {
	entry, occ, err := model.DecodeEntryOrOccurrenceID("id", gid)
	if err != nil {
		return target{}, err
	}
	t := target{occurrence: occ, scope: calendar.ScopeThis}
	if s := scope.Value(); s != nil {
		t.scope = *s
	}
	if entry != nil {
		t.entry = *entry
		if s := scope.Value(); s != nil && *s != calendar.ScopeAll {
			return t, calendar.Invalidf("scope", "scope %s applies to an occurrence of a series: pass the occurrence's id", *s)
		}
	} else {
		t.entry = calendar.EntryKey{CalendarID: occ.CalendarID, EntryID: occ.SeriesID}
	}
	return t, nil
}

func entryUpdate(in model.UpdateEntryInput) (calendar.EntryUpdate, target, error) {
	t, err := editTarget(in.ID, in.Scope)
	if err != nil {
		return calendar.EntryUpdate{}, t, err
	}
	u, err := entryChange(in)
	u.Key = t.entry
	return u, t, err
}

func entryChange(in model.UpdateEntryInput) (calendar.EntryUpdate, error) {
	u := calendar.EntryUpdate{
		ExpectedVersion: in.ExpectedVersion,
		Description:     nullClears(in.Description), Location: nullClears(in.Location), Color: nullClears(in.Color),
		Tags: nullEmpties(in.Tags), Reminders: nullEmpties(in.Reminders),
	}
	if t, set := in.Transparency.ValueOK(); set {
		u.Transparency = calendar.Set(calendar.Transparency(""))
		if t != nil {
			u.Transparency = calendar.Set(*t)
		}
	}
	if v, set := in.Visibility.ValueOK(); set {
		u.Visibility = calendar.Set(calendar.VisibilityDefault)
		if v != nil {
			u.Visibility = calendar.Set(*v)
		}
	}
	var err error
	if u.Title, err = notNull("title", in.Title); err != nil {
		return u, err
	}
	if err := attendancePolicy(in, &u); err != nil {
		return u, err
	}
	if gids, set := in.MustNotOverlap.ValueOK(); set {
		ids, err := calendarIDs("mustNotOverlap", gids)
		if err != nil {
			return u, err
		}
		u.MustNotOverlap = calendar.Set(ids)
	}
	if r, set := in.Recurrence.ValueOK(); set {
		if r == nil {
			return u, calendar.Invalidf("recurrence", "recurrence cannot be null; end a series by deleting with scope THIS_AND_FOLLOWING")
		}
		u.Recurrence = calendar.Set(*recurrence(r))
	}
	if t, set := in.Timing.ValueOK(); set {
		if t == nil {
			return u, calendar.Invalidf("timing", "timing cannot be null; omit it to leave it unchanged")
		}
		tm, err := timing(t)
		u.Timing = calendar.Set(tm)
		return u, err
	}
	return u, nil
}

// timing converts the one-of timing input; the domain checks that exactly one
// variant is set.
func timing(in *model.EntryTimingInput) (calendar.Timing, error) {
	var t calendar.Timing
	if in == nil {
		return t, nil
	}
	if err := noNullChoice("timing", in.Timed.IsSet() && in.Timed.Value() == nil, in.AllDay.IsSet() && in.AllDay.Value() == nil,
		in.MultiDay.IsSet() && in.MultiDay.Value() == nil, in.Task.IsSet() && in.Task.Value() == nil); err != nil {
		return t, err
	}
	if v := in.Timed.Value(); v != nil {
		t.Timed = &calendar.TimedTiming{Start: orEmpty(v.Start), End: orEmpty(v.End), TimeZone: orEmpty(v.TimeZone)}
		if local := orEmpty(v.LocalStart); local != "" {
			w, err := time.Parse("2006-01-02T15:04:05", local)
			if err != nil {
				return t, calendar.Invalidf("localStart", "localStart must be a wall clock like 2026-03-08T02:30:00")
			}
			t.Timed.LocalStart = w
		}
	}
	if v := in.AllDay.Value(); v != nil {
		t.AllDay = &v.Date
	}
	if v := in.MultiDay.Value(); v != nil {
		t.MultiDay = &calendar.DaySpan{Start: v.StartDate, End: v.EndDate}
	}
	if v := in.Task.Value(); v != nil {
		t.Task = &calendar.TaskDue{Date: v.DueDate.Value(), At: v.Due.Value(), TimeZone: orEmpty(v.TimeZone)}
	}
	return t, nil
}

// noNullChoice refuses a one-of input naming a choice with null: the spec
// wants exactly one key, with a value.
func noNullChoice(field string, nullChoices ...bool) error {
	for _, null := range nullChoices {
		if null {
			return calendar.Invalidf(field, "%s takes exactly one choice, and it cannot be null", field)
		}
	}
	return nil
}

// nullEmpties converts an optional list where null means "none".
func nullEmpties[T any](o graphql.Omittable[[]T]) calendar.Patch[[]T] {
	v, set := o.ValueOK()
	if !set {
		return calendar.Patch[[]T]{}
	}
	return calendar.Set(v)
}

// rangeSpec converts a one-of time range and the zone argument.
func rangeSpec(in model.TimeRangeInput, zone *string) (calendar.RangeSpec, error) {
	s := calendar.RangeSpec{}
	if zone != nil {
		s.TimeZone = *zone
	}
	if err := noNullChoice("range", in.Dates.IsSet() && in.Dates.Value() == nil, in.Instants.IsSet() && in.Instants.Value() == nil); err != nil {
		return s, err
	}
	dates, instants := in.Dates.Value(), in.Instants.Value()
	switch {
	case (dates == nil) == (instants == nil):
		return s, calendar.Invalidf("range", "give exactly one of range.dates or range.instants")
	case dates != nil:
		s.FromDate, s.ToDate = dates.Start, dates.End
	default:
		s.From, s.To = instants.Start, instants.End
	}
	return s, nil
}

func entryFilter(in *model.EntryFilter, includeCancelled *bool) calendar.Filter {
	f := calendar.Filter{IncludeCancelled: includeCancelled != nil && *includeCancelled}
	if in != nil {
		f.Kinds, f.Tags = in.Kinds.Value(), in.Tags.Value()
	}
	return f
}

// entryView is a view's answer, charged to the request's budget (its
// loaders' read scope, see requestScope), with an error beside it for each
// calendar it left out a series of (View.Partial).
func entryView(ctx context.Context, v *loader.View) (*model.EntryView, error) {
	reportPartial(ctx, v)
	var text int64
	for _, e := range v.Entries {
		text += e.TextSize()
	}
	if err := loader.For(ctx).Scope().Budget.ChargeReturned(len(v.Entries), text); err != nil {
		return nil, err
	}
	shown, err := visible(ctx, v.Entries)
	if err != nil {
		return nil, err
	}
	return &model.EntryView{TimeZone: v.ZoneName, Start: v.Range.Start, End: v.Range.End, Entries: model.EntriesOf(shown, v.Calendars)}, nil
}

// reportPartial adds the errors of a view of several calendars that left out
// what it could not show (View.Partial) at the view's path: the view answers
// all the same.
func reportPartial(ctx context.Context, v *loader.View) {
	for _, err := range v.Partial {
		graphql.AddError(ctx, err)
	}
}

func taskConnection(ctx context.Context, p *calendar.TaskPage, cal *model.Calendar) (*model.TaskConnection, error) {
	tasks, err := visible(ctx, p.Tasks)
	if err != nil {
		return nil, err
	}
	conn := &model.TaskConnection{Edges: make([]*model.TaskEdge, len(tasks)), PageInfo: pageInfo(p.Cursors, p.EndCursor, p.HasNextPage)}
	for i, t := range tasks {
		conn.Edges[i] = &model.TaskEdge{Cursor: p.Cursors[i], Node: model.TaskOf(t, cal)}
	}
	return conn, nil
}

var weekdays = []model.Weekday{
	model.WeekdaySunday, model.WeekdayMonday, model.WeekdayTuesday, model.WeekdayWednesday,
	model.WeekdayThursday, model.WeekdayFriday, model.WeekdaySaturday,
}

// taskList is the timeline Calendar.tasks asks for.
func taskList(completed, archived *bool) calendar.TaskList {
	switch {
	case archived != nil && *archived:
		return calendar.TasksArchived
	case completed != nil && *completed:
		return calendar.TasksCompleted
	}
	return calendar.TasksOpen
}

func preferences(p calendar.Preferences) *model.Preferences {
	out := &model.Preferences{
		WeekStart: weekdays[p.WeekStart], DefaultEntryDurationMinutes: int(p.DefaultDuration / time.Minute),
		DefaultReminders: p.DefaultReminders, Theme: p.Theme,
		CalendarIncrementMinutes: int(p.CalendarIncrement / time.Minute), AutoArchiveCompletedTasks: p.AutoArchive,
		AutoArchiveDelayHours: int(p.ArchiveDelay / time.Hour), BrowserNotifications: p.BrowserNotifications,
		SoundNotifications: p.SoundNotifications,
	}
	if out.DefaultReminders == nil {
		out.DefaultReminders = []int{}
	}
	if p.TimeZone != "" {
		out.TimeZone = &p.TimeZone
	}
	return out
}

func viewerStats(s calendar.Stats) *model.ViewerStats {
	out := &model.ViewerStats{TotalEvents: s.TotalEvents, TotalTasks: s.TotalTasks, UpcomingEvents: s.UpcomingEvents, OverdueTasks: s.OverdueTasks}
	if !s.LastEventCreated.IsZero() {
		out.LastEventCreated = &s.LastEventCreated
	}
	if !s.LastTaskCompleted.IsZero() {
		out.LastTaskCompleted = &s.LastTaskCompleted
	}
	return out
}

func preferencesUpdate(in model.UpdatePreferencesInput) (calendar.PreferencesUpdate, error) {
	u := calendar.PreferencesUpdate{ExpectedVersion: in.ExpectedVersion, TimeZone: nullClears(in.TimeZone), DefaultReminders: nullEmpties(in.DefaultReminders)}
	var err error
	var week calendar.Patch[model.Weekday]
	if week, err = notNull("weekStart", in.WeekStart); err != nil {
		return u, err
	}
	if week.Set {
		for d, w := range weekdays {
			if w == week.Value {
				u.WeekStart = calendar.Set(time.Weekday(d))
			}
		}
	}
	minutes, err := notNull("defaultEntryDurationMinutes", in.DefaultEntryDurationMinutes)
	if err != nil {
		return u, err
	}
	if minutes.Set {
		u.DefaultDuration = calendar.Set(time.Duration(minutes.Value) * time.Minute)
	}
	if u.Theme, err = notNull("theme", in.Theme); err != nil {
		return u, err
	}
	step, err := notNull("calendarIncrementMinutes", in.CalendarIncrementMinutes)
	if err != nil {
		return u, err
	}
	if step.Set {
		u.CalendarIncrement = calendar.Set(time.Duration(step.Value) * time.Minute)
	}
	delay, err := notNull("autoArchiveDelayHours", in.AutoArchiveDelayHours)
	if err != nil {
		return u, err
	}
	if delay.Set {
		u.ArchiveDelay = calendar.Set(time.Duration(delay.Value) * time.Hour)
	}
	if hours, set := in.WorkingHours.ValueOK(); set {
		h, err := workingHoursInput(hours)
		if err != nil {
			return u, err
		}
		u.WorkingHours = calendar.Set(h)
	}
	if u.AutoArchive, err = notNull("autoArchiveCompletedTasks", in.AutoArchiveCompletedTasks); err != nil {
		return u, err
	}
	if u.BrowserNotifications, err = notNull("browserNotifications", in.BrowserNotifications); err != nil {
		return u, err
	}
	u.SoundNotifications, err = notNull("soundNotifications", in.SoundNotifications)
	return u, err
}

func decodeCalendarIDs(field string, gids []string) ([]string, error) {
	if gids == nil {
		return nil, nil
	}
	ids := make([]string, len(gids))
	for i, gid := range gids {
		id, err := model.DecodeCalendarID(field, gid)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// setCompleted completes or reopens a task for completeTask and reopenTask.
func (r *mutationResolver) setCompleted(ctx context.Context, idem graphql.Omittable[*string], input any, gid string, expectedVersion int, completed bool) (*model.Task, error) {
	key, err := model.DecodeEntryID("id", gid)
	if err != nil {
		return nil, err
	}
	e, err := onceOn(ctx, r.Service, idem, func(ctx context.Context) (*calendar.Entry, *calendar.Calendar, error) {
		return r.Service.SetTaskCompleted(ctx, key, expectedVersion, completed)
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).PrimeEntry(ctx, e)
	cal, err := loader.For(ctx).CalendarOfEntry(ctx, e)
	if err != nil {
		return nil, err
	}
	return model.TaskOf(e, model.CalendarOf(cal)), nil
}

// entryOut primes the loaders with an entry a mutation wrote and wraps it, on
// its calendar, for the payload.
func entryOut(ctx context.Context, e *calendar.Entry) (model.Entry, error) {
	loader.For(ctx).PrimeEntry(ctx, e)
	cal, err := loader.For(ctx).CalendarOfEntry(ctx, e)
	if err != nil {
		return nil, err
	}
	return model.EntryOf(e, cal), nil
}

// seriesOf returns the series of an occurrence, or nil for other entries.
func seriesOf(ctx context.Context, e *calendar.Entry) (model.Entry, error) {
	if !e.IsOccurrence() {
		return nil, nil
	}
	l := loader.For(ctx)
	m, err := l.SeriesOf(ctx, e)
	if err != nil {
		return nil, err
	}
	cal, err := l.CalendarOfEntry(ctx, m)
	if err != nil {
		return nil, err
	}
	if m, err = visibleOne(ctx, m); err != nil {
		return nil, err
	}
	return model.EntryOf(m, cal), nil
}

// calendarCreated is what createCalendar's writes return.
type calendarCreated struct {
	Calendar   *calendar.Calendar
	Membership *calendar.Membership
}
