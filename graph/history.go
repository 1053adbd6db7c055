package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// historyOut reads a page of an entry's history; an occurrence's is its
// series'. A redacted entry has none to show (null), read or not: its
// viewer may not see its details, and the store would refuse the read.
func historyOut(ctx context.Context, svc calendar.HistoryService, e model.Entry, first *int, after *string) (*model.EntryHistoryConnection, error) {
	d := e.Domain()
	if d.Redacted {
		return nil, nil
	}
	key := d.Key()
	if d.SeriesID != "" {
		key.EntryID = d.SeriesID
	}
	p, err := svc.EntryHistory(ctx, key, page(first, after))
	if err != nil {
		return nil, err
	}
	conn := &model.EntryHistoryConnection{Edges: make([]*model.EntryHistoryEdge, len(p.Records))}
	cursors := make([]string, len(p.Records))
	for i, r := range p.Records {
		cursors[i] = strconv.Itoa(r.Seq)
		conn.Edges[i] = &model.EntryHistoryEdge{Cursor: cursors[i], Node: r}
	}
	conn.PageInfo = pageInfo(cursors, p.EndCursor, p.HasNextPage)
	return conn, nil
}

// historyValue writes a recorded value of field as the API writes it: the
// store keeps IDs as they are stored, the API shows global IDs.
func historyValue(field string, v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	var out string
	switch field {
	case "calendarId":
		out = model.CalendarGID(*v)
	case "organizer":
		out = model.UserGID(*v)
	case "mustNotOverlap":
		var ids []string
		if err := json.Unmarshal([]byte(*v), &ids); err != nil {
			return nil, fmt.Errorf("history value of %s: %w", field, err)
		}
		for i, id := range ids {
			ids[i] = model.CalendarGID(id)
		}
		b, _ := json.Marshal(ids)
		out = string(b)
	default:
		return v, nil
	}
	return &out, nil
}
