package calendar

import (
	"cmp"
	"errors"
	"slices"
)

// Expansion is what Expand makes of a view's candidates.
type Expansion struct {
	// Entries are the single entries and the occurrences that can show in
	// the range, with their exceptions laid over them.
	Entries []*Entry
	// Expanded counts the occurrences computed, those of TooDense included:
	// what the expansion cost.
	Expanded int
	// TooDense are the series with more than MaxViewEntries occurrences in
	// the range, left out with their exceptions, by ID.
	TooDense []*Entry
}

// datedMargin is how many more occurrences than a view shows a series of
// whole days may have among those Expand reads around the range (zoneReach
// on either side, where a date may or may not overlap it in the view's zone):
// two dates a side.
const datedMargin = 4

// Expand turns what a store found for one or more calendars around a range
// (single entries, series, and the series' exceptions, possibly repeated;
// see EntryReader) into single entries and occurrences: each series becomes
// its occurrences that can overlap r, with their exceptions laid over them.
// Cancelled occurrences are left out unless includeCancelled is set. Select
// then picks what a view shows, as for single entries.
//
// A series with more than MaxViewEntries occurrences overlapping r (as
// Select counts them, not those around it) is too dense for the view: it is
// left out and listed in TooDense, and the others are expanded all the same.
// An exception whose series is missing or too dense, or whose original start
// is no longer an occurrence of it, is left out. Errors: CodeInvalid when the
// series need more than budget occurrences between them
// (TooManyOccurrences), or a rule cannot be expanded.
func Expand(eng RecurrenceEngine, candidates []*Entry, r Range, includeCancelled bool, budget int) (*Expansion, error) {
	x := &Expansion{}
	var masters []*Entry
	exceptions := map[string]*Entry{} // by occurrence ID
	for _, e := range candidates {
		switch {
		case e.IsSeries():
			masters = append(masters, e)
		case e.IsException:
			exceptions[e.ID] = e
		default:
			x.Entries = append(x.Entries, e)
		}
	}
	// In ID order, so that which series a budget runs out on does not vary.
	slices.SortFunc(masters, func(a, b *Entry) int { return cmp.Compare(a.ID, b.ID) })
	masters = slices.CompactFunc(masters, func(a, b *Entry) bool { return a.ID == b.ID })
	shown, dense := map[string]bool{}, map[string]bool{}
	emit := func(occ *Entry) {
		shown[occ.ID] = true
		if e := exceptions[occ.ID]; e != nil {
			occ = occ.Overlay(e)
		}
		if !occ.Cancelled || includeCancelled {
			x.Entries = append(x.Entries, occ)
		}
	}
	for _, m := range masters {
		occs, err := x.occurrences(eng, m, r, budget)
		if errors.Is(err, ErrTooManyStarts) {
			dense[m.ID] = true
			x.TooDense = append(x.TooDense, m)
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, occ := range occs {
			emit(occ)
		}
	}
	// Exceptions moved into the range from occurrences outside it.
	byID := make(map[string]*Entry, len(masters))
	for _, m := range masters {
		byID[m.ID] = m
	}
	for id, e := range exceptions {
		m := byID[e.SeriesID]
		if shown[id] || m == nil || dense[m.ID] || !eng.Has(m, e.OriginalStart) {
			continue
		}
		emit(m.OccurrenceAt(e.OriginalStart))
	}
	return x, nil
}

// occurrences returns a series' occurrences that can overlap r, as its rule
// makes them, within what is left of budget. Errors: ErrTooManyStarts when
// more than MaxViewEntries overlap r; TooManyOccurrences when the budget
// runs out first.
func (x *Expansion) occurrences(eng RecurrenceEngine, m *Entry, r Range, budget int) ([]*Entry, error) {
	// An occurrence overlaps r when it starts before its end and less than its
	// length before its start; one of whole days, when its dates, read in the
	// view's zone, do (zoneReach on either side).
	from, to, margin := r.Start.Add(-m.length()), r.End, 0
	if m.Dated() {
		from, to, margin = from.Add(-zoneReach), to.Add(zoneReach), datedMargin
	}
	limit := max(0, min(MaxViewEntries+margin, budget-x.Expanded))
	starts, err := eng.Starts(m, from, to, limit)
	switch {
	case errors.Is(err, ErrTooManyStarts) && limit < MaxViewEntries+margin:
		x.Expanded = budget + 1
		return nil, TooManyOccurrences()
	case errors.Is(err, ErrTooManyStarts):
		x.Expanded += limit + 1
		return nil, err
	case err != nil:
		return nil, err
	}
	x.Expanded += len(starts)
	occs := make([]*Entry, len(starts))
	overlapping := 0
	for i, s := range starts {
		occs[i] = m.OccurrenceAt(s)
		if occs[i].Overlaps(r.Start, r.End, r.Zone) {
			overlapping++
		}
	}
	if overlapping > MaxViewEntries {
		return nil, ErrTooManyStarts
	}
	return occs, nil
}
