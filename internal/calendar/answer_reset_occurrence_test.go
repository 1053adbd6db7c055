package calendar

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestOccurrenceResetsAddUp extends TestSeriesSummariesAddUp with moves of
// one occurrence alone: after each random answer (ALL, THIS,
// THIS_AND_FOLLOWING) or move, the summary every occurrence shows (the
// master's plus its shares) equals the count of the attendees' answers
// there as they read (AtOccurrence at its reset mark); a move sends every
// answer at its occurrence to NEEDS_ACTION and changes no other
// occurrence's.
func TestOccurrenceResetsAddUp(t *testing.T) {
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
		counted := func(n int) (s AttendeeSummary) {
			for _, p := range people {
				s.Count(p.AtOccurrence(day(n), att.ResetOf(day(n))), 1)
			}
			return s
		}
		for step := range 60 {
			before := map[int]AttendeeSummary{}
			for n := range 14 {
				before[n] = att.SummaryAt(day(n))
			}
			if moved := rnd.IntN(12); rnd.IntN(4) == 0 {
				var d AttendeeSummary
				var err error
				if att, d, err = att.ResetOccurrence(day(moved)); err != nil {
					t.Fatal(err)
				}
				for n := range 14 {
					want := before[n]
					if n == moved {
						want = AttendeeSummary{NeedsAction: len(people)}
					}
					if got := att.SummaryAt(day(n)); got != want || counted(n) != want {
						t.Fatalf("seed %d, step %d, move of day %d (adding %+v), day %d: got summary %+v, counted %+v, want %+v",
							seed, step, moved, d, n, got, counted(n), want)
					}
				}
				continue
			}
			i := rnd.IntN(len(people))
			r := RSVP{Response: responses[rnd.IntN(3)], Scope: scopes[rnd.IntN(3)], Occurrence: day(rnd.IntN(12))}
			if r.Scope == ScopeAll {
				r.Occurrence = time.Time{}
			}
			is, err := AnswerSeries(r, people[i], first, att.Moves, first)
			if err != nil {
				continue // past MaxOccurrenceAnswers: nothing changes
			}
			base, keys := ShareChange(&people[i], &is, att.Resets)
			att.Summary = addSummary(att.Summary, base, 1)
			for k, d := range keys {
				if att.Shares == nil {
					att.Shares = map[AnswerKey]AttendeeSummary{}
				}
				att.Shares[k] = addSummary(att.Shares[k], d, 1)
			}
			people[i] = is
			if !r.Occurrence.IsZero() {
				if got := is.AtOccurrence(r.Occurrence, att.ResetOf(r.Occurrence)).Response; got != r.Response {
					t.Fatalf("seed %d, step %d: an answer after the moves reads %s at its occurrence, want %s", seed, step, got, r.Response)
				}
			}
			for n := range 14 {
				if got, want := att.SummaryAt(day(n)), counted(n); got != want {
					t.Fatalf("seed %d, step %d (%+v by %d), day %d: got summary %+v, want %+v", seed, step, r, i, n, got, want)
				}
			}
		}
	}
}

// TestAnswerAtAMovedOccurrence pins what each answer reads as at an
// occurrence moved alone: those given before the move (series, THIS,
// THIS_AND_FOLLOWING) as NEEDS_ACTION without their comment or guests,
// those given after it as given; other occurrences keep theirs.
func TestAnswerAtAMovedOccurrence(t *testing.T) {
	first := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return first.AddDate(0, 0, n) }
	att, _, err := Attendance{Summary: AttendeeSummary{NeedsAction: 1}}.ResetOccurrence(day(3))
	if err != nil {
		t.Fatal(err)
	}
	answer := func(a Attendee, moves int, r RSVP) Attendee {
		t.Helper()
		out, err := AnswerSeries(r, a, first, moves, first)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fresh := Attendee{UserID: "u", Response: ResponseNeedsAction, Version: 1}
	accepted := RSVP{Response: ResponseAccepted, AdditionalGuests: 2, Comment: "there", Scope: ScopeAll}
	for _, c := range []struct {
		name  string
		a     Attendee
		day   int
		reset int
		want  Response
	}{
		{"series answer before the move, at it", answer(fresh, 0, accepted), 3, att.ResetOf(day(3)), ResponseNeedsAction},
		{"series answer before the move, elsewhere", answer(fresh, 0, accepted), 4, att.ResetOf(day(4)), ResponseAccepted},
		{"THIS answer before the move", answer(fresh, 0, RSVP{Response: ResponseDeclined, Scope: ScopeThis, Occurrence: day(3)}), 3, att.ResetOf(day(3)), ResponseNeedsAction},
		{"THIS_AND_FOLLOWING before the move", answer(fresh, 0, RSVP{Response: ResponseDeclined, Scope: ScopeThisAndFollowing, Occurrence: day(2)}), 3, att.ResetOf(day(3)), ResponseNeedsAction},
		{"THIS_AND_FOLLOWING before the move, after it", answer(fresh, 0, RSVP{Response: ResponseDeclined, Scope: ScopeThisAndFollowing, Occurrence: day(2)}), 4, att.ResetOf(day(4)), ResponseDeclined},
		{"series answer after the move", answer(fresh, att.Moves, accepted), 3, att.ResetOf(day(3)), ResponseAccepted},
		{"THIS answer after the move", answer(answer(fresh, 0, accepted), att.Moves, RSVP{Response: ResponseTentative, Scope: ScopeThis, Occurrence: day(3)}), 3, att.ResetOf(day(3)), ResponseTentative},
		{"THIS_AND_FOLLOWING after the move", answer(fresh, att.Moves, RSVP{Response: ResponseDeclined, Scope: ScopeThisAndFollowing, Occurrence: day(1)}), 3, att.ResetOf(day(3)), ResponseDeclined},
	} {
		got := c.a.AtOccurrence(day(c.day), c.reset)
		if got.Response != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got.Response, c.want)
		}
		if c.want == ResponseNeedsAction && (got.Comment != "" || got.AdditionalGuests != 0 || !got.RespondedAt.IsZero()) {
			t.Errorf("%s: a reset answer keeps %+v", c.name, got)
		}
	}
	if att.Resets[day(3)] != 1 || att.Moves != 1 || att.Rev != 1 {
		t.Errorf("after one move: got moves %d, resets %v, rev %d, want 1, {day 3: 1}, 1", att.Moves, att.Resets, att.Rev)
	}
	again, _, _ := att.ResetOccurrence(day(3))
	if again.Resets[day(3)] != 2 || len(again.Resets) != 1 {
		t.Errorf("a second move of the same occurrence: got resets %v, want {day 3: 2}", again.Resets)
	}
	if all := again.ResetAnswers(); all.Resets != nil || all.Shares != nil {
		t.Errorf("a move of the series: got resets %v and shares %v left, want none", all.Resets, all.Shares)
	}
	full := Attendance{}
	for n := range MaxOccurrenceResets {
		full, _, _ = full.ResetOccurrence(day(n))
	}
	if _, _, err := full.ResetOccurrence(day(MaxOccurrenceResets)); ErrorCode(err) != CodeInvalid {
		t.Errorf("a move past %d occurrences: got %v, want CodeInvalid", MaxOccurrenceResets, err)
	}
	if _, _, err := full.ResetOccurrence(day(0)); err != nil {
		t.Errorf("moving an occurrence moved before, at the bound: %v", err)
	}
}
