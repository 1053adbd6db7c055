package calendar

import (
	"slices"
	"time"
)

// SeriesEditInput is a change to a series, addressed through one of its
// occurrences or (Occurrence zero, scope ALL) through the series itself.
type SeriesEditInput struct {
	Series *Series
	// Occurrence is the original start of the occurrence the change is made
	// through; zero when it is made to the series as a whole.
	Occurrence time.Time
	Scope      Scope
	// Update is the change (its Key is ignored); Delete deletes instead.
	Update   EntryUpdate
	Delete   bool
	Defaults Defaults
	Now      time.Time
	// NewSeriesID and NewICalUID name the series a THIS_AND_FOLLOWING change
	// splits off.
	NewSeriesID, NewICalUID string
	// Organizer is the user the series is handed to (Update.OrganizerEmail
	// as the store found it); empty leaves the organizer as it is. Only a
	// change of the whole series hands it over: an occurrence has no
	// organizer of its own.
	Organizer string
}

// SeriesEdit is what a change to a series writes. Old is the series as read;
// every write is conditioned on what was read of it.
//
// Exceptions are written in one of two ways. When Regenerate is false, Put
// holds exceptions of Master written over their old versions (or new), and
// Drop the exceptions to delete. When Regenerate is true, the series' timing or
// rule changed and every exception of Old goes: Put holds the whole new set,
// written afresh, and Drop lists all of Old's. Exceptions of Split (a series
// split off by THIS_AND_FOLLOWING) are in Put too, by their SeriesID.
type SeriesEdit struct {
	Old        *Series
	Master     *Entry // the series as it becomes; nil when deleted
	Regenerate bool
	Put        []*Entry
	Drop       []*Entry
	Split      *Entry
	Result     *Entry // what the change returns; nil for a delete
}

// MasterChanged reports whether the master is rewritten (not only checked).
func (e *SeriesEdit) MasterChanged() bool { return e.Master != e.Old.Master }

// PlanSeriesEdit validates a change to a series and works out what it
// writes. The occurrence's version is checked against Update.ExpectedVersion
// (the master's for a change to the series as a whole). Errors: CodeNotFound,
// CodeInvalid, CodeVersionConflict.
func PlanSeriesEdit(eng RecurrenceEngine, in SeriesEditInput) (*SeriesEdit, error) {
	p := &planner{eng: eng, in: in, s: in.Series, m: in.Series.Master, edit: &SeriesEdit{Old: in.Series, Master: in.Series.Master}}
	if in.Occurrence.IsZero() {
		if in.Scope != ScopeAll {
			return nil, Invalidf("scope", "a change to a whole series has scope ALL; address an occurrence for THIS or THIS_AND_FOLLOWING")
		}
		if p.m.Version != in.Update.ExpectedVersion {
			return nil, conflict("series", p.m.Version, in.Update.ExpectedVersion)
		}
		return p.all()
	}
	p.orig = in.Occurrence.UTC()
	occ, ok := p.s.Occurrence(eng, p.orig)
	if !ok {
		return nil, Errorf(CodeNotFound, "occurrence not found")
	}
	p.occ, p.exc = occ, p.s.Exception(p.orig)
	if occ.Version != in.Update.ExpectedVersion {
		return nil, conflict("occurrence", occ.Version, in.Update.ExpectedVersion)
	}
	if occ.Cancelled {
		return nil, Errorf(CodeNotFound, "occurrence not found: it is cancelled")
	}
	scope := in.Scope
	if scope == ScopeThisAndFollowing && p.orig.Equal(p.m.FirstStart()) {
		scope = ScopeAll // following the first occurrence is the whole series
	}
	if in.Organizer != "" && scope != ScopeAll {
		return nil, Invalidf("organizerEmail", "an occurrence has no organizer of its own: hand over the whole series (scope ALL)")
	}
	switch scope {
	case ScopeThis:
		return p.this()
	case ScopeThisAndFollowing:
		return p.following()
	case ScopeAll:
		return p.all()
	}
	return nil, Invalidf("scope", "scope must be THIS, THIS_AND_FOLLOWING or ALL")
}

func conflict(what string, current, expected int) error {
	return Errorf(CodeVersionConflict, "the %s has changed: it is at version %d, not %d; read it again", what, current, expected)
}

type planner struct {
	eng  RecurrenceEngine
	in   SeriesEditInput
	s    *Series
	m    *Entry
	orig time.Time // zero for a change to the whole series
	occ  *Entry    // the occurrence as shown
	exc  *Entry    // its exception, or nil
	edit *SeriesEdit
}

// this cancels or changes one occurrence by writing its exception.
func (p *planner) this() (*SeriesEdit, error) {
	u := p.in.Update
	if u.Recurrence.Set {
		return nil, Invalidf("recurrence", "scope THIS changes one occurrence; change the recurrence with scope ALL")
	}
	base := p.occ
	if p.exc == nil {
		base = p.m.OccurrenceAt(p.orig)
	}
	changed, overrides := *base, p.occOverrides()
	if p.in.Delete {
		changed.Cancelled = true
		changed.Sequence++
	} else {
		var err error
		if changed, err = u.Apply(*base, p.in.Defaults); err != nil {
			return nil, err
		}
		if err := p.sameKind(&changed); err != nil {
			return nil, err
		}
		overrides = mergeOverrides(overrides, u.Fields())
	}
	x := p.exception(p.m, &changed, overrides, p.exc)
	if err := checkMove(x); err != nil {
		return nil, err
	}
	p.edit.Put = []*Entry{x}
	if !p.in.Delete {
		p.edit.Result = p.m.OccurrenceAt(p.orig).Overlay(x)
	}
	return p.edit, nil
}

func (p *planner) occOverrides() []string {
	if p.exc == nil {
		return nil
	}
	return p.exc.Overrides
}

func (p *planner) sameKind(e *Entry) error {
	if e.Kind != p.m.Kind {
		return Invalidf("timing", "an occurrence keeps its series' kind (%s)", p.m.Kind)
	}
	return nil
}

// exception returns the exception of series m that makes its occurrence at
// occ.OriginalStart look like occ, replacing prev (nil for a new one).
func (p *planner) exception(m, occ *Entry, overrides []string, prev *Entry) *Entry {
	x := *occ
	x.Recurrence, x.PreviousSeriesID = nil, ""
	x.ID, x.SeriesID, x.CalendarID, x.ICalUID = OccurrenceID(m.ID, occ.OriginalStart), m.ID, m.CalendarID, m.ICalUID
	x.OriginalEnd = m.OccurrenceAt(occ.OriginalStart).OriginalEnd
	x.IsException, x.Overrides = true, overrides
	x.Version, x.CreatedAt, x.UpdatedAt = 1, p.in.Now, p.in.Now
	if prev != nil {
		x.Version, x.CreatedAt = prev.Version+1, prev.CreatedAt
	}
	return &x
}

// checkMove refuses an exception moved so far that, with where its series
// would have put it, it spans more than an entry may.
func checkMove(x *Entry) error {
	start, end := x.Reach()
	if end.Sub(start) > (MaxEntryDays+1)*24*time.Hour+2*zoneReach {
		return Invalidf("timing", "an occurrence can be moved at most %d days from where its series puts it", MaxEntryDays)
	}
	return nil
}

// all changes or deletes the whole series.
func (p *planner) all() (*SeriesEdit, error) {
	if p.in.Delete {
		p.edit.Master, p.edit.Drop = nil, p.s.Exceptions
		return p.edit, nil
	}
	u := p.in.Update
	if u.Timing.Set && !p.orig.IsZero() {
		// A new timing given for one occurrence moves every occurrence alike:
		// the series starts as long before it, on the wall clock, as the
		// occurrence was after the series' start.
		moved, err := u.Apply(*p.occ, p.in.Defaults)
		if err != nil {
			return nil, err
		}
		if err := p.sameKind(&moved); err != nil {
			return nil, err
		}
		u.Timing = Set(shiftedTiming(&moved, -wallOf(p.m, p.orig).Sub(firstWall(p.m))))
	}
	m, err := u.Apply(*p.m, p.in.Defaults)
	if err != nil {
		return nil, err
	}
	if err := p.sameKind(&m); err != nil {
		return nil, err
	}
	retimed := !sameTiming(p.m, &m)
	if retimed && !u.Recurrence.Set {
		if m.Recurrence, err = moveDates(p.eng, p.m, &m); err != nil {
			return nil, err
		}
	}
	if err := ValidateSeries(p.eng, &m); err != nil {
		return nil, err
	}
	m.Version, m.UpdatedAt = p.m.Version+1, p.in.Now
	if p.in.Organizer != "" {
		m.Attendance.Organizer = p.in.Organizer
	}
	ResetAnswersIfMoved(p.m, &m) // the master's answers, as a single entry's
	p.edit.Master, p.edit.Result = &m, &m
	if !retimed && !u.Recurrence.Set {
		return p.edit, nil // exceptions follow by themselves
	}
	p.edit.Regenerate, p.edit.Drop = true, p.s.Exceptions
	for _, x := range p.s.Exceptions {
		p.put(p.carry(x, p.m, &m, nil))
	}
	m.Version += maxVersion(p.s.Exceptions)
	return p.edit, nil
}

// put adds an exception carried over to the edit's writes, unless it is nil
// or another one carried over already has its occurrence: two occurrences
// land on one only where a DST change makes two wall clocks one instant, and
// a transaction or batch may not write one item twice.
func (p *planner) put(c *Entry) {
	if c == nil || slices.ContainsFunc(p.edit.Put, func(o *Entry) bool { return o.ID == c.ID }) {
		return
	}
	p.edit.Put = append(p.edit.Put, c)
}

// carry returns exception x of series from as an exception of series to,
// whose occurrences are from's moved the way to's start moved from from's;
// nil when it does not carry over. keep, when set, picks the overrides kept.
func (p *planner) carry(x, from, to *Entry, keep func([]string) []string) *Entry {
	start := moveStart(x.OriginalStart, from, to)
	if !p.eng.Has(to, start) {
		return nil
	}
	overrides := x.Overrides
	if keep != nil {
		overrides = keep(overrides)
	}
	if len(overrides) == 0 && !x.Cancelled {
		return nil
	}
	occ := to.OccurrenceAt(start).Overlay(x)
	occ.Overrides = overrides
	c := p.exception(to, occ, overrides, x)
	c.Version, c.Sequence, c.CreatedAt, c.UpdatedAt = x.Version, x.Sequence, x.CreatedAt, x.UpdatedAt
	if !slices.Contains(overrides, FieldTiming) {
		o := to.OccurrenceAt(start)
		c.Start, c.End, c.TimeZone, c.StartDate, c.EndDate = o.Start, o.End, o.TimeZone, o.StartDate, o.EndDate
	}
	if checkMove(c) != nil {
		return nil
	}
	return c
}

// following ends the series before the occurrence and, unless deleting,
// starts a new series from it, carrying over the later exceptions.
func (p *planner) following() (*SeriesEdit, error) {
	before, after, err := p.eng.Split(p.m, p.orig)
	if err != nil {
		return nil, err
	}
	old := *p.m
	old.Recurrence, old.Sequence, old.UpdatedAt = &before, old.Sequence+1, p.in.Now
	if err := ValidateSeries(p.eng, &old); err != nil {
		return nil, err
	}
	var later []*Entry
	for _, x := range p.s.Exceptions {
		if !x.OriginalStart.Before(p.orig) {
			later = append(later, x)
		}
	}
	old.Version = p.m.Version + 1 + maxVersion(later)
	p.edit.Master, p.edit.Drop = &old, later
	if p.in.Delete {
		return p.edit, nil
	}
	if err := p.splitOff(after, later); err != nil {
		return nil, err
	}
	return p.edit, nil
}

// splitOff makes the series that goes on from the occurrence, after the
// rule's remainder, with the change applied, and carries the later
// exceptions over to it.
func (p *planner) splitOff(after Recurrence, later []*Entry) error {
	base := p.m.OccurrenceAt(p.orig)
	base.ID, base.ICalUID, base.PreviousSeriesID = p.in.NewSeriesID, p.in.NewICalUID, p.m.ID
	base.SeriesID, base.OriginalStart, base.OriginalEnd, base.Recurrence = "", time.Time{}, time.Time{}, &after
	base.Version, base.Sequence, base.CreatedAt, base.UpdatedAt = 1, 0, p.in.Now, p.in.Now
	u := p.in.Update
	split, err := u.Apply(*base, p.in.Defaults)
	if err != nil {
		return err
	}
	if err := p.sameKind(&split); err != nil {
		return err
	}
	if !sameTiming(base, &split) && !u.Recurrence.Set {
		if split.Recurrence, err = moveDates(p.eng, base, &split); err != nil {
			return err
		}
	}
	if err := ValidateSeries(p.eng, &split); err != nil {
		return err
	}
	split.Version, split.Sequence = 1, 0
	p.edit.Split, p.edit.Result = &split, &split

	// The exception of the occurrence itself keeps what the change does not
	// set; the later ones carry over as they are.
	set := u.Fields()
	own := func(o []string) []string {
		return slices.DeleteFunc(slices.Clone(o), func(f string) bool { return slices.Contains(set, f) })
	}
	for _, x := range later {
		keep := own
		if !x.OriginalStart.Equal(p.orig) {
			keep = nil
		}
		p.put(p.carry(x, base, &split, keep))
	}
	return nil
}

func maxVersion(xs []*Entry) int {
	v := 0
	for _, x := range xs {
		v = max(v, x.Version)
	}
	return v
}
