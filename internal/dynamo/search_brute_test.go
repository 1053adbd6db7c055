package dynamo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamotest"
)

// bruteWords are the words of the seeded entries: accents, ß, mixed case.
var bruteWords = strings.Fields(`Zahnarzt dentist Café crème Müller Straße Besprechung réunion Übung
	Ärger Öl ñandú año niño piñata garçon façade Ålesund déjà vu école élève Noël Köln Zürich
	lunch Launch LAUNCH budget Budgetplanung review Revue retro Retrospektive standup Stand
	yoga Yogi Mañana tarea Aufgabe appointment apple Apfel Äpfel planning plan Plan Planung
	offsite Offsite sprint Sprint demo Démo football Fußball Fussball weiß Weiss weiter
	Zeitplan zeit Zeitung été Été etage Étage Gärten garden Garten 2026 Q3 q4 v2`)

// bruteFold is the brute force's own folding: lower case by unicode, and a
// hand-written table of the accents bruteWords use.
func bruteFold(s string) string {
	repl := strings.NewReplacer("é", "e", "è", "e", "ê", "e", "à", "a", "ä", "a", "å", "a", "ö", "o",
		"ü", "u", "ñ", "n", "ç", "c", "ß", "ss", "ë", "e", "ú", "u")
	return repl.Replace(strings.ToLower(s))
}

// bruteMatches: every query word begins some word of the texts.
func bruteMatches(query string, texts ...string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(bruteFold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	var words []string
	for _, t := range texts {
		words = append(words, split(t)...)
	}
	qs := split(query)
	if len(qs) == 0 {
		return false
	}
	for _, q := range qs {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, q) }) {
			return false
		}
	}
	return true
}

// seeded is what the brute force knows of one seeded entry or series.
type seeded struct {
	id, calendar    string
	private, series bool
	texts           []string         // title, location, description, tags
	start           time.Time        // the (first) start
	count           int              // a daily series' occurrences
	exceptions      map[int][]string // occurrence index → its texts
	people          []calendar.NewAttendee
	bobInvited      bool // bob is among people: he sees it whole even when private
}

// peopleTexts are what search matches of s's attendees: their names and
// their emails' local parts.
func (s *seeded) peopleTexts() []string {
	var out []string
	for _, p := range s.people {
		local, _, _ := strings.Cut(p.Email, "@")
		out = append(out, p.DisplayName, local)
	}
	return out
}

// randomPeople is one or two external attendees named by the words, with
// emails of their folded ASCII words (the domain is never matched).
func randomPeople(r *rand.Rand, n int) []calendar.NewAttendee {
	var out []calendar.NewAttendee
	for i := range n {
		w := bruteFold(bruteWords[r.IntN(len(bruteWords))])
		if strings.IndexFunc(w, func(c rune) bool { return c > unicode.MaxASCII }) >= 0 {
			w = "guest"
		}
		out = append(out, calendar.NewAttendee{Email: fmt.Sprintf("%s.%d@brute.example", w, i), DisplayName: randomText(r, r.IntN(3))})
	}
	return out
}

func randomText(r *rand.Rand, n int) string {
	seps := []string{" ", ", ", " - ", "/", " ("}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString(bruteWords[r.IntN(len(bruteWords))])
	}
	return b.String()
}

// TestSearchAgainstBruteForce seeds 5,000 entries and series (some private,
// some with retitled exceptions, some with attendees, the searcher invited
// to some private ones) in three calendars: one the searcher owns,
// one they read, one they see free/busy. 500 random queries (prefixes of
// the words, in random case, with and without their accents, some within a
// range) must find exactly what a scan of the seeded set finds.
func TestSearchAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 5,000 entries")
	}
	// Not parallel: seeding 5,000 entries with 8 writers takes both cores
	// for minutes under -race, and the tests that time their retries
	// against deadlines (TestContentionIsRetriedUntilTheDeadline) failed
	// beside it. Sequential tests run before the parallel ones start.
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 36))
	f := newFixture(t)
	ada, bob := f.user("ada@example.com"), f.user("bob@example.com")
	own, read, busy := f.calendarOf(bob, "Own"), f.calendarOf(ada, "Read"), f.calendarOf(ada, "Busy")
	f.share(ada, read, bob, "bob@example.com", calendar.RoleReader)
	f.share(ada, busy, bob, "bob@example.com", calendar.RoleFreeBusy)
	base := time.Now().UTC().Truncate(time.Hour).Add(24 * time.Hour)

	type job struct {
		ctx context.Context
		cal *calendar.Calendar
		s   *seeded
	}
	// 5,000 entries and 500 queries on the embedded engine; on DynamoDB
	// Local (342 s at full size) a fifth of each: the index and its matching
	// are the same on both, and CI runs the package on both within go
	// test's 10 minutes.
	entries, queries := 5000, 500
	if dynamotest.External() {
		entries, queries = 1000, 100
	}
	var jobs []job
	for i := range entries {
		ctx, cal := bob, own
		switch {
		case i%5 == 1 || i%5 == 2 || i%5 == 3:
			ctx, cal = ada, read
		case i%5 == 4:
			ctx, cal = ada, busy
		}
		s := &seeded{calendar: cal.ID, private: r.IntN(10) == 0, series: r.IntN(40) == 0,
			start: base.Add(time.Duration(r.IntN(60*24)) * time.Hour)}
		s.texts = []string{randomText(r, 1+r.IntN(3)), randomText(r, r.IntN(2)), randomText(r, r.IntN(8))}
		for range r.IntN(3) {
			s.texts = append(s.texts, bruteWords[r.IntN(len(bruteWords))])
		}
		if r.IntN(25) == 0 || s.private && r.IntN(3) == 0 { // 4% have attendees; a third of private ones
			s.people = randomPeople(r, 1+r.IntN(2))
			if s.private && cal == read && r.IntN(2) == 0 {
				s.people, s.bobInvited = append(s.people, calendar.NewAttendee{Email: "bob@example.com"}), true
			}
		}
		if s.series {
			s.count, s.exceptions = 2+r.IntN(10), map[int][]string{}
			for range r.IntN(3) {
				s.exceptions[1+r.IntN(s.count-1)] = []string{randomText(r, 1+r.IntN(2))}
			}
		}
		jobs = append(jobs, job{ctx, cal, s})
	}
	work := make(chan job)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for j := range work {
				seedOne(t, f, j.ctx, j.s)
			}
		})
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		return
	}

	for i := range queries {
		q := calendar.SearchQuery{Text: randomQuery(r), Page: calendar.Page{First: calendar.MaxPageSize}}
		var from, to time.Time
		if i%4 == 0 {
			from = base.Add(time.Duration(r.IntN(40*24)) * time.Hour)
			to = from.Add(time.Duration(1+r.IntN(20*24)) * time.Hour)
			q.Range = &calendar.RangeSpec{From: from, To: to}
		}
		var want []string
		for _, j := range jobs {
			if id := bruteHit(j.s, own.ID, read.ID, q.Text, from, to); id != "" {
				want = append(want, id)
			}
		}
		got := foundIDs(t, bob, f, q)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d, query %q (range %v–%v): got %d hits, want %d\nonly got: %q\nonly want: %q",
				seed, q.Text, from, to, len(got), len(want), first10(minus(got, want)), first10(minus(want, got)))
		}
	}
}

// bruteHit returns the ID of s when a scan says bob finds it: in a calendar
// he reads, not private unless he is invited to it (Ada made everything in
// the calendar he reads), and its text (or, for a series, an occurrence's:
// the master's or its exception's) or its attendees' match, within
// [from, to) when given.
func bruteHit(s *seeded, own, read, query string, from, to time.Time) string {
	if (s.calendar != own && s.calendar != read) || (s.private && s.calendar == read && !s.bobInvited) {
		return ""
	}
	n := max(1, s.count)
	for k := range n {
		start := s.start.Add(time.Duration(k) * 24 * time.Hour)
		if !from.IsZero() && !(start.Before(to) && start.Add(time.Hour).After(from)) {
			continue
		}
		texts := s.texts
		if x, ok := s.exceptions[k]; ok {
			texts = append(append([]string{}, x...), s.texts[1:]...)
		}
		if bruteMatches(query, append(slices.Clone(texts), s.peopleTexts()...)...) {
			return s.id
		}
	}
	return ""
}

func first10(s []string) []string { return s[:min(len(s), 10)] }

func minus(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}

// randomQuery is one to three prefixes of the words, in random case, some
// with their accents dropped, sometimes one that matches nothing.
func randomQuery(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(3) {
		w := []rune(bruteWords[r.IntN(len(bruteWords))])
		w = w[:1+r.IntN(len(w))]
		s := string(w)
		switch r.IntN(4) {
		case 0:
			s = strings.ToUpper(s)
		case 1:
			s = bruteFold(s)
		case 2:
			s = "xq" + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// foundIDs returns the IDs (a series' for its occurrence) a search finds.
func foundIDs(t *testing.T, ctx context.Context, f *fixture, q calendar.SearchQuery) []string {
	t.Helper()
	var ids []string
	for {
		p, err := f.store.Search(ctx, q)
		if err != nil {
			t.Fatalf("search %q: %v", q.Text, err)
		}
		for _, h := range p.Hits {
			ids = append(ids, cmpOr(h.Entry.SeriesID, h.Entry.ID))
		}
		if !p.HasNextPage {
			return ids
		}
		q.Page.After = p.EndCursor
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// seedOne creates s (and its exceptions) and records its ID.
func seedOne(t *testing.T, f *fixture, ctx context.Context, s *seeded) {
	n := calendar.NewEntry{CalendarID: s.calendar, Title: s.texts[0], Location: s.texts[1], Description: s.texts[2],
		Tags:   slices.Compact(slices.Sorted(slices.Values(s.texts[3:]))),
		Timing: calendar.Timing{Timed: &calendar.TimedTiming{Start: s.start, End: s.start.Add(time.Hour), TimeZone: "UTC"}}}
	if s.private {
		n.Visibility = calendar.VisibilityPrivate
	}
	if s.series {
		n.Recurrence = &calendar.Recurrence{Rule: fmt.Sprintf("FREQ=DAILY;COUNT=%d", s.count)}
	}
	e, _, err := f.store.CreateEntry(ctx, n)
	if err != nil {
		t.Errorf("seed: %v", err)
		return
	}
	s.id = e.ID
	for k, x := range s.exceptions {
		occ := e.OccurrenceAt(s.start.Add(time.Duration(k) * 24 * time.Hour))
		u := title(x[0])
		u.ExpectedVersion = occ.Version
		if _, _, err := f.store.UpdateOccurrence(ctx, occKey(occ), calendar.ScopeThis, u); err != nil {
			t.Errorf("seed exception: %v", err)
		}
	}
	if len(s.people) > 0 {
		if _, err := f.store.ChangeAttendees(ctx, calendar.AttendeeDelta{Key: e.Key(), Add: s.people}); err != nil {
			t.Errorf("seed attendees: %v", err)
		}
	}
}
