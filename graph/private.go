package graph

import (
	"context"
	"sync"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/loader"
)

// visible returns es as the viewer may see them: a PRIVATE entry is
// redacted (calendar.Entry.Redact) for a viewer who may not see its
// details (calendar.Entry.SeesDetails: below writer on its calendar, not its
// organizer, not invited). It is the one place private entries are
// redacted, and every read that returns entries calls it (views and the
// agenda, tasks, node, a series of an occurrence, changes and live
// deliveries); mutations return entries only to writers. The loaders and
// the view cache keep entries whole: the redaction is the viewer's, made
// per request after them. The viewer's invitations to the private entries
// they may not otherwise see are read in one batch (one more wave, only
// then).
func visible(ctx context.Context, es []*calendar.Entry) ([]*calendar.Entry, error) {
	l := loader.For(ctx)
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	var ask []int // the entries whose viewer's invitation decides
	for i, e := range es {
		if e.Visibility() != calendar.VisibilityPrivate {
			continue
		}
		role, err := l.ViewerRole(ctx, e.CalendarID)
		if err != nil {
			return nil, err
		}
		if !e.SeesDetails(viewer, role, false) {
			ask = append(ask, i)
		}
	}
	if len(ask) == 0 {
		return es, nil
	}
	invited := make([]bool, len(ask))
	errs := make([]error, len(ask))
	var wg sync.WaitGroup
	for j, i := range ask {
		wg.Go(func() {
			a, err := l.ViewerAttendee(ctx, es[i])
			invited[j], errs[j] = a != nil, err
		})
	}
	wg.Wait()
	out := append([]*calendar.Entry(nil), es...)
	for j, i := range ask {
		if errs[j] != nil {
			return nil, errs[j]
		}
		if !invited[j] {
			out[i] = es[i].Redact()
		}
	}
	return out, nil
}

// visibleOne is visible for one entry.
func visibleOne(ctx context.Context, e *calendar.Entry) (*calendar.Entry, error) {
	es, err := visible(ctx, []*calendar.Entry{e})
	if err != nil {
		return nil, err
	}
	return es[0], nil
}
