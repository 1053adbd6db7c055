package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/search"
)

// The attendees a search index holds: for each entry and series, the
// display name and email of each attendee (what search matches: the name,
// and the email's local part) and their user ID (whether the searching
// viewer is invited, which lets them see a PRIVATE entry whole).
//
// Kept exact as the entries are: every write of an entry's attendees
// (changeAttendees, an answer, leaving, a series split or deletion, an
// import, a restore) adds a change record of the entry to its calendar's
// log (write.LogEntry), so a catch-up that puts a changed entry reads its
// attendees again. Costs: a build reads them with one Query of the
// calendar's attendee key range (attendeeKeyRange, the calendar partition's
// ATT# items, paged, only the four attributes search uses), whatever the
// number of entries, and none when no entry has attendees; a catch-up reads
// those of each changed entry whose attendees changed (one Query each, at
// most calendar.MaxAttendees items). Bounded: at most calendar.MaxAttendees an
// entry, counted into the index's bytes.

// searchPerson is an attendee as search sees them.
type searchPerson struct {
	userID, email, name string
}

// size is about what p costs held in an index.
func (p searchPerson) size() int { return len(p.userID) + len(p.email) + len(p.name) + 48 }

// peopleFields are the attendees' fields to match: their display names and
// the local parts of their emails (the domain would match everyone at a
// company), each with its index in people, which names the attendee of a
// highlight.
func peopleFields(people []searchPerson) []search.Field {
	var fs []search.Field
	for i, p := range people {
		if p.name != "" {
			fs = append(fs, search.Field{Kind: search.FieldAttendeeName, Index: i, Text: p.name})
		}
		local, _, _ := strings.Cut(p.email, "@")
		fs = append(fs, search.Field{Kind: search.FieldAttendeeEmail, Index: i, Text: local})
	}
	return fs
}

// invites reports whether people holds the user viewer.
func invites(people []searchPerson, viewer string) bool {
	return viewer != "" && slices.ContainsFunc(people, func(p searchPerson) bool { return p.userID == viewer })
}

// personOf is a's search view.
func personOf(a *calendar.Attendee) searchPerson {
	return searchPerson{userID: a.UserID, email: a.Email, name: a.DisplayName}
}

// hasAttendees reports whether the entry or series of change c has any
// attendees to read (its summary counts them).
func hasAttendees(c calendar.ObjectChange) bool {
	switch {
	case c.Deleted || c.Entry == nil:
		return false
	case c.Series != nil:
		return c.Series.Master.Attendance.Summary.Total() > 0
	}
	return c.Entry.Attendance.Summary.Total() > 0
}

// changedPeople returns the attendees of the changed entries and series
// that have any, by ID: those ci holds at the same attendance revision as
// they are now (calendar.Attendance.Rev, which every attendee write
// raises: the change was of something else, or a record read again within
// the log's 30 s window) as held, the others read (one Query each, a few
// at once). The caller holds ci.mu.
func (s *Store) changedPeople(ctx context.Context, ci *calendarIndex, changes []calendar.ObjectChange) (map[string][]searchPerson, error) {
	var mu sync.Mutex
	out := map[string][]searchPerson{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(searchParallel)
	for _, c := range changes {
		if c.Type != calendar.ObjectEntry || !hasAttendees(c) || c.Entry.IsException {
			continue
		}
		master := c.Entry
		if c.Series != nil {
			master = c.Series.Master
		}
		if held, ok := ci.heldRev(c.ID); ok && held == master.Attendance.Rev {
			out[c.ID] = ci.people[c.ID]
			continue
		}
		g.Go(func() error {
			as, err := s.allAttendees(gctx, master)
			if err != nil {
				return fmt.Errorf("read the attendees of entry %s: %w", c.ID, err)
			}
			ps := make([]searchPerson, len(as))
			for i, a := range as {
				ps[i] = personOf(a)
			}
			mu.Lock()
			defer mu.Unlock()
			out[c.ID] = ps
			return nil
		})
	}
	return out, g.Wait()
}

// heldRev is the attendance revision of the entry or series id as ci holds
// it.
func (ci *calendarIndex) heldRev(id string) (int, bool) {
	if e := ci.entries[id]; e != nil {
		return e.Attendance.Rev, true
	}
	if st := ci.series[id]; st != nil {
		return st.Master.Attendance.Rev, true
	}
	return 0, false
}

// searchPeopleAttrs are the attributes of an attendee item search reads.
var searchPeopleAttrs = []string{"entryId", "userId", "email", "displayName"}

// readPeople puts the attendees of every entry and series ci holds (a
// build's: one Query of the calendar's attendee items, paged), in their key
// order as Entry.attendees lists them. The caller holds ci.mu.
func (s *Store) readPeople(ctx context.Context, ci *calendarIndex) error {
	with := 0
	for _, e := range ci.entries {
		if e.Attendance.Summary.Total() > 0 {
			with++
		}
	}
	for _, st := range ci.series {
		if st.Master.Attendance.Summary.Total() > 0 {
			with++
		}
	}
	if with == 0 {
		return nil
	}
	first, last := attendeeKeyRange()
	in := keyQuery{pkAttr: attrPK, partition: calendarPartition(ci.calendarID), sk: skBetween(attrSK, first, last),
		consistent: true, projection: searchPeopleAttrs}.input(s.table)
	people := map[string][]searchPerson{}
	for {
		out, err := s.reads.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("read the attendees of calendar %s: %w", ci.calendarID, err)
		}
		for _, it := range out.Items {
			id := stringAttr(it, "entryId")
			if ci.entries[id] != nil || ci.series[id] != nil { // not a split's copy made ahead of its series
				people[id] = append(people[id], searchPerson{userID: stringAttr(it, "userId"), email: stringAttr(it, "email"), name: stringAttr(it, "displayName")})
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	for id, ps := range people {
		ci.setPeople(id, ps)
	}
	return nil
}

// setPeople puts id (held) again with its attendees.
func (ci *calendarIndex) setPeople(id string, ps []searchPerson) {
	if e := ci.entries[id]; e != nil {
		ci.apply(calendar.ObjectChange{Type: calendar.ObjectEntry, ID: id, Entry: e}, ps)
	} else if st := ci.series[id]; st != nil {
		ci.apply(calendar.ObjectChange{Type: calendar.ObjectEntry, ID: id, Entry: st.Master, Series: st}, ps)
	}
}
