package calendar

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestSeriesSummariesAddUp answers a daily series at random (ALL, THIS and
// THIS_AND_FOLLOWING, by several attendees) and checks after each answer
// that the summary kept as shares (what the store adds up on the master)
// equals, at every occurrence, the count of the attendees' answers there.
func TestSeriesSummariesAddUp(t *testing.T) {
	first := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return first.AddDate(0, 0, n) }
	responses := []Response{ResponseAccepted, ResponseTentative, ResponseDeclined}
	scopes := []Scope{ScopeAll, ScopeThis, ScopeThisAndFollowing}
	for seed := uint64(1); seed <= 50; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 0))
		people := make([]Attendee, 4)
		var att Attendance
		for i := range people {
			people[i] = Attendee{UserID: string(rune('a' + i)), Response: ResponseNeedsAction, Version: 1}
			b, _ := people[i].Shares(nil)
			att.Summary = addSummary(att.Summary, b, 1)
		}
		for step := range 40 {
			i := rnd.IntN(len(people))
			r := RSVP{Response: responses[rnd.IntN(3)], Scope: scopes[rnd.IntN(3)], Occurrence: day(rnd.IntN(12))}
			if r.Response == ResponseAccepted {
				r.AdditionalGuests = rnd.IntN(3)
			}
			if r.Scope == ScopeAll {
				r.Occurrence = time.Time{}
			}
			is, err := AnswerSeries(r, people[i], first, 0, first)
			if err != nil {
				continue // past MaxOccurrenceAnswers: nothing changes
			}
			base, keys := ShareChange(&people[i], &is, nil)
			att.Summary = addSummary(att.Summary, base, 1)
			for k, d := range keys {
				if att.Shares == nil {
					att.Shares = map[AnswerKey]AttendeeSummary{}
				}
				att.Shares[k] = addSummary(att.Shares[k], d, 1)
			}
			people[i] = is
			for n := range 14 {
				var want AttendeeSummary
				for _, p := range people {
					want.Count(p.AtOccurrence(day(n), 0), 1)
				}
				if got := att.SummaryAt(day(n)); got != want {
					t.Fatalf("seed %d, step %d (%+v by %d), day %d: got summary %+v, want %+v", seed, step, r, i, n, got, want)
				}
			}
		}
	}
}

// TestAnswerSeriesScopes pins what each scope leaves of earlier answers.
func TestAnswerSeriesScopes(t *testing.T) {
	first := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return first.AddDate(0, 0, n) }
	a := Attendee{UserID: "u", Response: ResponseNeedsAction, Version: 1}
	answer := func(a Attendee, resp Response, scope Scope, n int) Attendee {
		t.Helper()
		r := RSVP{Response: resp, Scope: scope, Occurrence: day(n)}
		if scope == ScopeAll {
			r.Occurrence = time.Time{}
		}
		out, err := AnswerSeries(r, a, first, 0, first)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a = answer(a, ResponseAccepted, ScopeAll, 0)
	a = answer(a, ResponseDeclined, ScopeThis, 3)
	a = answer(a, ResponseTentative, ScopeThisAndFollowing, 5)
	a = answer(a, ResponseDeclined, ScopeThis, 7)
	for n, want := range map[int]Response{0: ResponseAccepted, 3: ResponseDeclined, 4: ResponseAccepted, 5: ResponseTentative, 7: ResponseDeclined, 9: ResponseTentative} {
		if got := a.AtOccurrence(day(n), 0).Response; got != want {
			t.Errorf("day %d: got %s, want %s", n, got, want)
		}
	}
	b := answer(a, ResponseAccepted, ScopeThisAndFollowing, 4) // replaces days 5 and 7, keeps day 3
	if got := len(b.Occurrences); got != 2 {
		t.Errorf("THIS_AND_FOLLOWING from day 4: got %d occurrence answers, want 2 (day 3 kept, its own)", got)
	}
	if got := b.AtOccurrence(day(7), 0).Response; got != ResponseAccepted {
		t.Errorf("day 7 after THIS_AND_FOLLOWING from day 4: got %s, want ACCEPTED", got)
	}
	c := answer(a, ResponseDeclined, ScopeAll, 0)
	if len(c.Occurrences) != 0 || c.AtOccurrence(day(3), 0).Response != ResponseDeclined || c.Version != a.Version+1 {
		t.Errorf("ALL: got %d occurrence answers and %s on day 3 (version %d), want none and DECLINED (version %d)",
			len(c.Occurrences), c.AtOccurrence(day(3), 0).Response, c.Version, a.Version+1)
	}
	d := answer(a, ResponseDeclined, ScopeThisAndFollowing, 0) // from the first: the whole series
	if len(d.Occurrences) != 0 || d.Response != ResponseDeclined {
		t.Errorf("THIS_AND_FOLLOWING from the first: got %d occurrence answers, series answer %s, want none and DECLINED", len(d.Occurrences), d.Response)
	}
	many := Attendee{UserID: "u", Response: ResponseNeedsAction, Version: 1}
	for n := range MaxOccurrenceAnswers {
		many = answer(many, ResponseAccepted, ScopeThis, n)
	}
	if _, err := AnswerSeries(RSVP{Response: ResponseDeclined, Scope: ScopeThis, Occurrence: day(20)}, many, first, 0, first); ErrorCode(err) != CodeInvalid {
		t.Errorf("answer %d: got %v, want CodeInvalid", MaxOccurrenceAnswers+1, err)
	}
	// Months later, the answers to occurrences long over make room, oldest
	// first; an answer to one over only days ago, or a THIS_AND_FOLLOWING
	// one, is kept.
	later := day(45) // days 0 to 9 began 36 to 45 days before
	withFollowing, err := AnswerSeries(RSVP{Response: ResponseTentative, Scope: ScopeThisAndFollowing, Occurrence: day(40)}, many, first, 0, later)
	if err != nil {
		t.Fatalf("a THIS_AND_FOLLOWING answer with old ones to drop: %v", err)
	}
	got, err := AnswerSeries(RSVP{Response: ResponseDeclined, Scope: ScopeThis, Occurrence: day(50)}, withFollowing, first, 0, later)

	if err != nil {
		t.Fatalf("a new answer with old ones to drop: %v", err)
	}
	var kept []int
	for _, o := range got.Occurrences {
		kept = append(kept, int(o.Key.From.Sub(first)/(24*time.Hour)))
	}
	if want := []int{2, 3, 4, 5, 6, 7, 8, 9, 40, 50}; !slices.Equal(kept, want) { // days 0 and 1 made room
		t.Errorf("days answered apart after making room: %v, want %v", kept, want)
	}
	recent := Attendee{UserID: "u", Response: ResponseNeedsAction, Version: 1}
	for n := range MaxOccurrenceAnswers {
		recent = answer(recent, ResponseAccepted, ScopeThis, 30+n)
	}
	if _, err := AnswerSeries(RSVP{Response: ResponseDeclined, Scope: ScopeThis, Occurrence: day(50)}, recent, first, 0, later); ErrorCode(err) != CodeInvalid {
		t.Errorf("with ten answers to occurrences within %v: got %v, want CodeInvalid", OccurrenceAnswerKept, err)
	}
}

// TestSharesEncodeAsJSON: an entry whose attendance holds shares encodes
// and decodes as JSON (idempotent writes keep their outcome so).
func TestSharesEncodeAsJSON(t *testing.T) {
	k := AnswerKey{From: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), Following: true}
	in := Entry{ID: "e", Attendance: Attendance{Shares: map[AnswerKey]AttendeeSummary{k: {Accepted: 1, NeedsAction: -1}}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Entry
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Attendance.Shares, in.Attendance.Shares) {
		t.Errorf("got %v, want %v", out.Attendance.Shares, in.Attendance.Shares)
	}
}
