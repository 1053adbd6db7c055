package calendar

import "time"

// Expand turns what a store found for a window [from, to) of one calendar
// (single entries, series, and the series' exceptions, possibly repeated; see
// EntryReader) into single entries and occurrences: each series becomes its
// occurrences that can reach into the window, with their exceptions laid over
// them. Cancelled occurrences are left out unless includeCancelled is set.
// Select then picks what a view shows, as for single entries.
//
// An exception whose series is missing, or whose original start is no longer
// an occurrence of it, is left out. It returns how many occurrences it
// expanded. Errors: CodeInvalid when the series have more than max
// occurrences in the window between them.
func Expand(eng RecurrenceEngine, candidates []*Entry, from, to time.Time, includeCancelled bool, max int) ([]*Entry, int, error) {
	masters := map[string]*Entry{}
	exceptions := map[string]*Entry{} // by occurrence ID
	var out []*Entry
	for _, e := range candidates {
		switch {
		case e.IsSeries():
			masters[e.ID] = e
		case e.IsException:
			exceptions[e.ID] = e
		default:
			out = append(out, e)
		}
	}
	shown := map[string]bool{}
	emit := func(occ *Entry) {
		shown[occ.ID] = true
		if x := exceptions[occ.ID]; x != nil {
			occ = occ.Overlay(x)
		}
		if !occ.Cancelled || includeCancelled {
			out = append(out, occ)
		}
	}
	budget := max
	for _, m := range masters {
		// An occurrence reaches into the window if it starts less than its
		// length (plus the zone margin of whole days) before the window ends.
		starts, err := eng.Starts(m, from.Add(-m.length()-zoneReach), to.Add(zoneReach), budget)
		if err != nil {
			return nil, 0, err
		}
		budget -= len(starts)
		for _, s := range starts {
			emit(m.OccurrenceAt(s))
		}
	}
	// Exceptions moved into the window from occurrences outside it.
	for id, x := range exceptions {
		m := masters[x.SeriesID]
		if shown[id] || m == nil || !eng.Has(m, x.OriginalStart) {
			continue
		}
		emit(m.OccurrenceAt(x.OriginalStart))
	}
	return out, max - budget, nil
}
