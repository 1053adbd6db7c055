package dynamo_test

import (
	"context"
	"fmt"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
)

// crowdedMeeting is dailyMeeting with n guests invited 25 at a time (the
// most one change adds), who answer: every third ACCEPTED for the series,
// every fifth DECLINED on December 12 alone, every seventh TENTATIVE from
// December 8 on.
func (f *fixture) crowdedMeeting(n int) meeting {
	f.t.Helper()
	m := meeting{organizer: f.user("org@example.com")}
	m.cal = f.calendarOf(m.organizer, "Events")
	m.entry = f.series(m.organizer, m.cal.ID, "Stand-up", timed("2026-12-07T09:00:00Z", "2026-12-07T09:15:00Z", "UTC"), "FREQ=DAILY")
	for from := 0; from < n; from += calendar.MaxAttendeeDelta {
		d := calendar.AttendeeDelta{Key: m.entry.Key()}
		for i := from; i < min(n, from+calendar.MaxAttendeeDelta); i++ {
			email := fmt.Sprintf("guest%03d@example.com", i)
			m.guests = append(m.guests, f.user(email))
			d.Add = append(d.Add, calendar.NewAttendee{Email: email})
		}
		e, err := f.store.ChangeAttendees(m.organizer, d)
		f.mustDo(err)
		m.entry = e
	}
	for i, g := range m.guests {
		if i%3 == 0 {
			_, err := f.answer(m, g, 0, calendar.ScopeAll, calendar.ResponseAccepted)
			f.mustDo(err)
		}
		if i%5 == 0 {
			_, err := f.answer(m, g, 12, calendar.ScopeThis, calendar.ResponseDeclined)
			f.mustDo(err)
		}
		if i%7 == 0 {
			_, err := f.answer(m, g, 8, calendar.ScopeThisAndFollowing, calendar.ResponseTentative)
			f.mustDo(err)
		}
	}
	return m
}

// splitAt splits the meeting's series at December d with a new title and
// returns the series split off.
func (f *fixture) splitAt(s *dynamo.Store, m meeting, d int) (*calendar.Entry, error) {
	f.t.Helper()
	cur, err := f.store.Series(m.organizer, m.entry.Key())
	f.mustDo(err)
	e, _, err := s.UpdateOccurrence(m.organizer, calendar.OccurrenceKey{CalendarID: m.cal.ID, SeriesID: m.entry.ID, OriginalStart: dayOf(d)},
		calendar.ScopeThisAndFollowing, calendar.EntryUpdate{ExpectedVersion: cur.Master.Version, Title: calendar.Set("Later")})
	return e, err
}

// inboxHas counts guest's invitations to entry in their inbox (GSI1).
func (f *fixture) inboxHas(guest context.Context, entry calendar.EntryKey) int {
	f.t.Helper()
	n := 0
	p := calendar.Page{First: 100}
	for {
		page, err := f.store.EntryInvitations(guest, calendar.AttendeeFilter{}, p)
		f.mustDo(err)
		for _, a := range page.Attendees {
			if a.Key() == entry {
				n++
			}
		}
		if !page.HasNextPage {
			return n
		}
		p.After = page.EndCursor
	}
}

// invitationToken reads guest's invitations to the end and returns the
// token that continues from there.
func (f *fixture) invitationToken(guest context.Context) string {
	f.t.Helper()
	token := ""
	for {
		p, err := f.store.InvitationChanges(guest, token, 100)
		f.mustDo(err)
		token = p.Token
		if !p.More {
			return token
		}
	}
}

// logged counts the changes to entry in guest's invitation log after token.
func (f *fixture) logged(guest context.Context, token string, entry calendar.EntryKey) int {
	f.t.Helper()
	n := 0
	for {
		p, err := f.store.InvitationChanges(guest, token, 100)
		f.mustDo(err)
		for _, c := range p.Changes {
			if c.Entry == entry && !c.Removed {
				n++
			}
		}
		token = p.Token
		if !p.More {
			return n
		}
	}
}

// wantSplitRight checks a split of m at December 10: every day of the
// week shows the summary it showed before (before the 10th from the old
// series, after from the new), both series keep every guest, each
// sampled guest holds the same answers on the new side, sees both
// series once in their inbox, and finds the new one in their log.
func (f *fixture) wantSplitRight(m meeting, split *calendar.Entry, before map[int]calendar.AttendeeSummary, tokens map[int]string) {
	f.t.Helper()
	if after := f.summariesOn(m); fmt.Sprint(after) != fmt.Sprint(before) {
		f.t.Errorf("summaries by day:\nbefore %v\nafter  %v", before, after)
	}
	for _, key := range []calendar.EntryKey{m.entry.Key(), split.Key()} {
		s, err := f.store.Series(m.organizer, key)
		f.mustDo(err)
		e := s.Master
		if got := e.Attendance.Summary.Total(); got != len(m.guests) {
			f.t.Errorf("%s holds %d attendees, want %d", e.Title, got, len(m.guests))
		}
	}
	for i, token := range tokens {
		g := m.guests[i]
		if n := f.inboxHas(g, split.Key()); n != 1 {
			f.t.Errorf("guest %d sees the new series %d times in their inbox, want once", i, n)
		}
		if n := f.inboxHas(g, m.entry.Key()); n != 1 {
			f.t.Errorf("guest %d sees the old series %d times in their inbox, want once", i, n)
		}
		if n := f.logged(g, token, split.Key()); n < 1 {
			f.t.Errorf("guest %d's log does not name the new series", i)
		}
		a, err := f.store.Attendance(g, split.Key())
		f.mustDo(err)
		if a == nil {
			f.t.Fatalf("guest %d is not invited to the new series", i)
		}
		want := calendar.ResponseNeedsAction
		switch {
		case i%7 == 0:
			want = calendar.ResponseTentative
		case i%3 == 0:
			want = calendar.ResponseAccepted
		}
		if a.Response != want {
			f.t.Errorf("guest %d answers the new series %s, want %s", i, a.Response, want)
		}
	}
}

// sampled are the guests whose inbox and log the split tests read.
var sampled = []int{0, 1, 5, 21, 35, 99}

// tokensOf returns the sampled guests' invitation tokens.
func (f *fixture) tokensOf(m meeting) map[int]string {
	out := map[int]string{}
	for _, i := range sampled {
		if i < len(m.guests) {
			out[i] = f.invitationToken(m.guests[i])
		}
	}
	return out
}

// invitationsBut lists guest's invitations in their inbox other than to
// entry.
func (f *fixture) invitationsBut(guest context.Context, entry calendar.EntryKey) []calendar.EntryKey {
	f.t.Helper()
	page, err := f.store.EntryInvitations(guest, calendar.AttendeeFilter{}, calendar.Page{First: 100})
	f.mustDo(err)
	var out []calendar.EntryKey
	for _, a := range page.Attendees {
		if a.Key() != entry {
			out = append(out, a.Key())
		}
	}
	return out
}
