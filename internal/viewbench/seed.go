package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/benchdata"
	"github.com/calgraph/calgraph/internal/calendar"
)

// seedClients is how many clients create entries at once.
const seedClients = 8

// The operations that seed a table. A user exists once they have asked for
// anything; a member must exist before they are added.
const (
	provisionQuery         = `{ viewer { user { id } } }`
	createCalendarMutation = `mutation($input: CreateCalendarInput!) { createCalendar(input: $input) { calendar { id } } }`
	addMemberMutation      = `mutation($input: AddMemberInput!) { addMember(input: $input) { membership { id } } }`
	createEntryMutation    = `mutation($input: CreateEntryInput!) { createEntry(input: $input) { entry { id } } }`
)

// seed fills a fresh server's table through its own API with the data set of
// graph/bench_test.go: owner's calendars "cal 0" to "cal <calendars-1>",
// each shared with member as a READER, and perCalendar entries each, entry
// i in calendar i % calendars, from benchdata.Entry's generator. It returns
// the calendars' IDs.
func seed(ctx context.Context, owner, member gqlClient, calendars, perCalendar int) ([]string, error) {
	for _, c := range []gqlClient{owner, member} {
		if _, err := c.do(ctx, provisionQuery, nil); err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
	}
	cals := make([]string, calendars)
	for i := range cals {
		data, err := owner.do(ctx, createCalendarMutation, map[string]any{"input": map[string]any{"name": fmt.Sprint("cal ", i)}})
		if err != nil {
			return nil, fmt.Errorf("create calendar %d: %w", i, err)
		}
		if cals[i], _ = field(data, "createCalendar", "calendar", "id").(string); cals[i] == "" {
			return nil, fmt.Errorf("create calendar %d: no ID in the answer", i)
		}
		share := map[string]any{"calendarId": cals[i], "email": memberEmail, "role": "READER"}
		if _, err := owner.do(ctx, addMemberMutation, map[string]any{"input": share}); err != nil {
			return nil, fmt.Errorf("share calendar %d: %w", i, err)
		}
	}
	return cals, seedEntries(ctx, owner, cals, calendars*perCalendar)
}

// seedEntries creates total entries from seedClients clients at once. The
// generator runs in entry order, so the data set is the same however the
// clients interleave.
func seedEntries(ctx context.Context, owner gqlClient, cals []string, total int) error {
	g, ctx := errgroup.WithContext(ctx)
	work := make(chan map[string]any)
	for range seedClients {
		g.Go(func() error {
			for in := range work {
				if _, err := owner.do(ctx, createEntryMutation, map[string]any{"input": in}); err != nil {
					return fmt.Errorf("create entry %q: %w", in["title"], err)
				}
			}
			return nil
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	func() {
		defer close(work)
		for i := range total {
			select {
			case work <- entryInput(benchdata.Entry(rng, cals[i%len(cals)], i)):
			case <-ctx.Done():
				return
			}
		}
	}()
	return g.Wait()
}

// entryInput is the CreateEntryInput that the resolvers (graph/entries.go,
// newEntry and timing) turn into n; n's calendar ID is a global ID here.
// The fields benchdata.Entry leaves empty are omitted, as omitted fields become
// empty ones.
func entryInput(n calendar.NewEntry) map[string]any {
	in := map[string]any{"calendarId": n.CalendarID, "title": n.Title, "tags": n.Tags}
	switch t := n.Timing; {
	case t.Timed != nil:
		in["timing"] = map[string]any{"timed": map[string]any{
			"start": t.Timed.Start.Format(time.RFC3339), "end": t.Timed.End.Format(time.RFC3339), "timeZone": t.Timed.TimeZone}}
	case t.AllDay != nil:
		in["timing"] = map[string]any{"allDay": map[string]any{"date": t.AllDay.String()}}
	case t.MultiDay != nil:
		in["timing"] = map[string]any{"multiDay": map[string]any{"startDate": t.MultiDay.Start.String(), "endDate": t.MultiDay.End.String()}}
	case t.Task != nil:
		in["timing"] = map[string]any{"task": map[string]any{"dueDate": t.Task.Date.String()}}
	}
	return in
}
