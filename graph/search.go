package graph

import (
	"context"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// searchQuery unpacks Viewer.search's arguments, with the request's read
// budget, which the search's reads are charged to.
func searchQuery(ctx context.Context, query string, calendarIDs []string, rng *model.TimeRangeInput, filter *model.EntryFilter, first *int, after *string) (calendar.SearchQuery, error) {
	q := calendar.SearchQuery{Text: query, Filter: entryFilter(filter, nil), Page: page(first, after), Budget: loader.For(ctx).Scope().Budget}
	ids, err := decodeCalendarIDs("calendarIds", calendarIDs)
	if err != nil {
		return q, err
	}
	q.CalendarIDs = ids
	if rng != nil {
		spec, err := rangeSpec(*rng, nil)
		if err != nil {
			return q, err
		}
		q.Range = &spec
	}
	return q, nil
}

// searchConnection converts a page of hits, charged to the request's
// budget as a view's entries are. Every hit is one the viewer sees whole
// (the store matches a PRIVATE entry only for them); visible runs all the
// same, and a hit it would redact is left out rather than shown as "Busy"
// with highlights of a text the viewer may not read.
func searchConnection(ctx context.Context, p *calendar.SearchPage) (*model.SearchConnection, error) {
	es := make([]*calendar.Entry, len(p.Hits))
	var text int64
	for i, h := range p.Hits {
		es[i] = h.Entry
		text += h.Entry.TextSize()
	}
	if err := loader.For(ctx).Scope().Budget.ChargeReturned(len(es), text); err != nil {
		return nil, err
	}
	shown, err := visible(ctx, es)
	if err != nil {
		return nil, err
	}
	nodes := model.EntriesOf(shown, p.Calendars)
	conn := &model.SearchConnection{Edges: []*model.SearchEdge{}, PageInfo: pageInfo(p.Cursors, p.EndCursor, p.HasNextPage)}
	for i, h := range p.Hits {
		if shown[i].Redacted {
			continue
		}
		edge := &model.SearchEdge{Cursor: p.Cursors[i], Node: nodes[i], Score: h.Score, Highlights: make([]*model.SearchHighlight, len(h.Highlights))}
		for j, hl := range h.Highlights {
			edge.Highlights[j] = &model.SearchHighlight{Field: model.SearchField(hl.Field), TagIndex: hl.TagIndex,
				AttendeeEmail: textOrNil(hl.AttendeeEmail), Start: hl.Start, Length: hl.Length}
		}
		conn.Edges = append(conn.Edges, edge)
	}
	return conn, nil
}
