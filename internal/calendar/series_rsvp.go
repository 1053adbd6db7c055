package calendar

import (
	"maps"
	"slices"
	"time"
)

// Answers on a series. A series has one attendee list (its master's); each
// attendee has one answer for the whole series and may answer some of its
// occurrences apart: one occurrence (THIS) or every occurrence from one on
// (THIS_AND_FOLLOWING). The answer at an occurrence is its own THIS answer,
// else the latest THIS_AND_FOLLOWING answer from at or before it, else the
// series answer. An answer for ALL replaces the attendee's occurrence
// answers (as Google Calendar's "all events" does), and one for
// THIS_AND_FOLLOWING replaces those at and after its occurrence.
//
// The summary of an occurrence is kept without counting attendees: the
// master keeps the summary of the series answers and, for each occurrence
// answer, what it changes there (AnswerKey, Attendance.Shares); the summary
// at an occurrence adds to the master's the shares of its own THIS key and
// of every THIS_AND_FOLLOWING key at or before it.

// Bounds of the occurrence answers: MaxOccurrenceAnswers per attendee of a
// series (the attendee item holds them), MaxSeriesAnswerKeys distinct keys
// on a series' master, which every view of the series reads: a key is up
// to five number attributes of about 24 bytes each (name and value), so
// 100 keys add at most 12 KB to the master (3 more read units for a strong
// read), usually 5 to 7 KB (two or three counts change per answer).
const (
	MaxOccurrenceAnswers = 10
	MaxSeriesAnswerKeys  = 100
)

// OccurrenceAnswerKept is how long after its occurrence began an answer to
// it alone is sure to be kept: past it, an attendee's new answer that needs
// room drops it (and its share goes from the master), so the bounds count
// answers that can still matter, not a standing meeting's whole history.
// The occurrence's summary then shows the series answers.
const OccurrenceAnswerKept = 31 * 24 * time.Hour

// AnswerKey names the occurrences an occurrence answer covers: the one
// originally at From, or (Following) every one from it on.
type AnswerKey struct {
	From      time.Time
	Following bool
}

// Covers reports whether the key's answer applies at the occurrence
// originally starting at orig, before any later key is considered.
func (k AnswerKey) Covers(orig time.Time) bool {
	if k.Following {
		return !k.From.After(orig)
	}
	return k.From.Equal(orig)
}

// MarshalText writes k as O<original start> (THIS) or F<original start>
// (THIS_AND_FOLLOWING), the start as in occurrence IDs: so that an entry
// whose attendance holds shares encodes as JSON (an idempotent write keeps
// its outcome so).
func (k AnswerKey) MarshalText() ([]byte, error) {
	kind := "O"
	if k.Following {
		kind = "F"
	}
	return []byte(kind + k.From.UTC().Format(occurrenceLayout)), nil
}

// UnmarshalText reads what MarshalText writes.
func (k *AnswerKey) UnmarshalText(b []byte) error {
	s := string(b)
	if len(s) < 2 || (s[0] != 'O' && s[0] != 'F') {
		return Invalidf("key", "%q is not an answer key", s)
	}
	from, err := time.Parse(occurrenceLayout, s[1:])
	if err != nil {
		return Invalidf("key", "%q is not an answer key", s)
	}
	*k = AnswerKey{From: from, Following: s[0] == 'F'}
	return nil
}

// compareKeys orders keys by From, a THIS_AND_FOLLOWING key before a THIS
// key of the same occurrence (the THIS key wins there).
func compareKeys(a, b AnswerKey) int {
	if c := a.From.Compare(b.From); c != 0 {
		return c
	}
	switch {
	case a.Following == b.Following:
		return 0
	case a.Following:
		return -1
	}
	return 1
}

// OccurrenceAnswer is an attendee's answer to some occurrences of a series.
type OccurrenceAnswer struct {
	Key              AnswerKey
	Response         Response
	Comment          string
	AdditionalGuests int
	RespondedAt      time.Time
	// ProposedStart and ProposedEnd propose a new time; both zero for none.
	ProposedStart, ProposedEnd time.Time
	// Moves is the series' count of occurrence moves when it was given
	// (Attendee.Moves).
	Moves int
}

// answerOf returns the answer fields of a as an occurrence answer.
func answerOf(a *Attendee, k AnswerKey) OccurrenceAnswer {
	return OccurrenceAnswer{Key: k, Response: a.Response, Comment: a.Comment, AdditionalGuests: a.AdditionalGuests,
		RespondedAt: a.RespondedAt, ProposedStart: a.ProposedStart, ProposedEnd: a.ProposedEnd, Moves: a.Moves}
}

// with returns a carrying answer o's fields.
func (o OccurrenceAnswer) with(a Attendee) Attendee {
	a.Response, a.Comment, a.AdditionalGuests = o.Response, o.Comment, o.AdditionalGuests
	a.RespondedAt, a.ProposedStart, a.ProposedEnd = o.RespondedAt, o.ProposedStart, o.ProposedEnd
	a.Moves = o.Moves
	return a
}

// AtOccurrence returns a's answer at the occurrence of its series originally
// starting at orig (its occurrence answers resolved, and none left on it),
// which was last moved alone at count reset (Attendance.Reset; 0: never):
// an answer given before that move reads as NEEDS_ACTION (unanswered).
func (a *Attendee) AtOccurrence(orig time.Time, reset int) *Attendee {
	out := *a
	out.Occurrences = nil
	var follow, this *OccurrenceAnswer
	for i := range a.Occurrences {
		o := &a.Occurrences[i]
		switch {
		case !o.Key.Covers(orig):
		case o.Key.Following:
			if follow == nil || o.Key.From.After(follow.Key.From) {
				follow = o
			}
		default:
			this = o
		}
	}
	switch {
	case this != nil:
		out = this.with(out)
	case follow != nil:
		out = follow.with(out)
	}
	if !AnswerCurrent(out.Moves, reset) {
		out = out.unanswered()
		out.Moves = reset
	}
	return &out
}

// Shares returns what a contributes to its series' summaries: base to the
// master's summary (its series answer), and for each of its occurrence
// answers what that answer changes in the summary where it applies (its
// answer there less the one it replaces); at each occurrence moved alone
// (resets, Attendance.Resets) where the answer a gave there is older than
// the move, what reading it as NEEDS_ACTION changes, on that occurrence's
// THIS key. For a single entry it is the attendee alone. Every attendee
// write of a series adds the difference of the shares before and after it
// (ShareChange).
func (a *Attendee) Shares(resets map[time.Time]int) (base AttendeeSummary, keys map[AnswerKey]AttendeeSummary) {
	if a == nil {
		return base, nil
	}
	plain := *a
	plain.Occurrences = nil
	base.Count(&plain, 1)
	keys = map[AnswerKey]AttendeeSummary{}
	for _, o := range a.Occurrences {
		// What o replaces where it starts: the answer its following keys
		// before it give (a THIS key replaces its occurrence's following
		// answer, a following key the one before it).
		without := *a
		without.Occurrences = slices.DeleteFunc(slices.Clone(a.Occurrences), func(x OccurrenceAnswer) bool {
			applies := x.Key.From.Before(o.Key.From) || !o.Key.Following && x.Key.From.Equal(o.Key.From)
			return !x.Key.Following || !applies
		})
		was := without.AtOccurrence(o.Key.From, 0)
		is := o.with(plain)
		keys[o.Key] = SummaryChange(was, &is)
	}
	for orig, reset := range resets {
		if d := SummaryChange(a.AtOccurrence(orig, 0), a.AtOccurrence(orig, reset)); d != (AttendeeSummary{}) {
			k := AnswerKey{From: orig}
			keys[k] = addSummary(keys[k], d, 1)
		}
	}
	return base, keys
}

// ShareChange is what replacing attendee was by is (either nil for none)
// changes in their series' summaries, whose occurrences moved alone are
// resets: the master's and each key's. Keys whose change is zero are left
// out.
func ShareChange(was, is *Attendee, resets map[time.Time]int) (base AttendeeSummary, keys map[AnswerKey]AttendeeSummary) {
	wb, wk := was.Shares(resets)
	ib, ik := is.Shares(resets)
	base = addSummary(ib, wb, -1)
	keys = map[AnswerKey]AttendeeSummary{}
	for k, s := range ik {
		keys[k] = addSummary(keys[k], s, 1)
	}
	for k, s := range wk {
		keys[k] = addSummary(keys[k], s, -1)
	}
	for k, s := range keys {
		if s == (AttendeeSummary{}) {
			delete(keys, k)
		}
	}
	return base, keys
}

// addSummary returns a + n·b.
func addSummary(a, b AttendeeSummary, n int) AttendeeSummary {
	return AttendeeSummary{
		NeedsAction: a.NeedsAction + n*b.NeedsAction, Accepted: a.Accepted + n*b.Accepted, Tentative: a.Tentative + n*b.Tentative,
		Declined: a.Declined + n*b.Declined, Waitlisted: a.Waitlisted + n*b.Waitlisted, AcceptedGuests: a.AcceptedGuests + n*b.AcceptedGuests,
	}
}

// SummaryAt is the summary of a series' occurrence originally at orig: the
// master's, plus the shares of the keys that apply there.
func (att Attendance) SummaryAt(orig time.Time) AttendeeSummary {
	s := att.Summary
	for k, d := range att.Shares {
		if k.Covers(orig) {
			s = addSummary(s, d, 1)
		}
	}
	return s
}

// AnswerSeries applies r to attendee was of a series at now: for the whole
// series (ScopeAll, replacing their occurrence answers), one occurrence
// (ScopeThis) or every occurrence from one on (ScopeThisAndFollowing,
// replacing their answers at and after it). first is the original start of
// the series' first occurrence: following it is the whole series.
// moves is the series' count of occurrence moves as read (Attendance.Moves),
// which the answer carries. r must have passed ScopeOn. Errors: CodeInvalid
// past MaxOccurrenceAnswers.
func AnswerSeries(r RSVP, was Attendee, first time.Time, moves int, now time.Time) (Attendee, error) {
	scope := r.Scope
	if scope == ScopeThisAndFollowing && !r.Occurrence.After(first) {
		scope = ScopeAll // following the first occurrence is the whole series
	}
	is := r.Apply(was, now)
	is.Moves = moves
	if scope == ScopeAll {
		is.Occurrences = nil
		return is, nil
	}
	k := AnswerKey{From: r.Occurrence.UTC(), Following: scope == ScopeThisAndFollowing}
	keep := slices.DeleteFunc(slices.Clone(was.Occurrences), func(o OccurrenceAnswer) bool {
		return o.Key == k || (k.Following && !o.Key.From.Before(k.From))
	})
	keep = append(keep, answerOf(&is, k))
	slices.SortFunc(keep, func(a, b OccurrenceAnswer) int { return compareKeys(a.Key, b.Key) })
	for i := 0; len(keep) > MaxOccurrenceAnswers && i < len(keep); {
		// Room is made from answers to single occurrences long over
		// (oldest first): they no longer decide anything to come.
		if o := keep[i]; !o.Key.Following && o.Key.From.Before(now.Add(-OccurrenceAnswerKept)) && o.Key != k {
			keep = slices.Delete(keep, i, i+1)
			continue
		}
		i++
	}
	if len(keep) > MaxOccurrenceAnswers {
		return was, Invalidf("scope", "an attendee answers at most %d occurrences of a series apart; answer ALL or THIS_AND_FOLLOWING to replace those answers", MaxOccurrenceAnswers)
	}
	out := was
	out.Occurrences, out.Version = keep, is.Version
	return out, nil
}

// ScopeOn checks r's scope against what it answers (a series or not) and
// returns r with its default scope: THIS through an occurrence, ALL for a
// series. A single entry takes no scope; a series as a whole only ALL.
func (r RSVP) ScopeOn(series bool) (RSVP, error) {
	switch {
	case !series && (r.Scope != "" || !r.Occurrence.IsZero()):
		return r, Invalidf("scope", "scope is for the occurrences of a series; this entry does not repeat")
	case r.Scope != "" && r.Scope != ScopeThis && r.Scope != ScopeThisAndFollowing && r.Scope != ScopeAll:
		return r, Invalidf("scope", "scope must be THIS, THIS_AND_FOLLOWING or ALL")
	case r.Occurrence.IsZero() && r.Scope != "" && r.Scope != ScopeAll:
		return r, Invalidf("scope", "an answer to a whole series has scope ALL; answer through an occurrence for THIS or THIS_AND_FOLLOWING")
	case !series:
	case r.Scope == "" && r.Occurrence.IsZero():
		r.Scope = ScopeAll
	case r.Scope == "":
		r.Scope = ScopeThis
	}
	return r, nil
}

// SplitAttendee returns attendee a of a series as an attendee of series
// split, split off it at the occurrence originally at orig
// (THIS_AND_FOLLOWING): their answer there becomes their series answer,
// and their occurrence answers from there on come along. A split that
// moves the time (its first occurrence is not where orig's was, or lasts
// otherwise) resets their answers instead, as any move does.
func SplitAttendee(a *Attendee, old, split *Entry, orig time.Time) *Attendee {
	if was := old.OccurrenceAt(orig); !split.FirstStart().Equal(orig) || split.length() != was.length() || split.TimeZone != was.TimeZone {
		reset := a.At(a.Epoch + 1) // an answer from before the new series' time
		reset.EntryID, reset.Epoch = split.ID, 0
		return reset
	}
	following := *a
	following.Occurrences = slices.DeleteFunc(slices.Clone(a.Occurrences), func(o OccurrenceAnswer) bool { return !o.Key.Following })
	out := following.AtOccurrence(orig, old.Attendance.ResetOf(orig))
	out.EntryID = split.ID
	for _, o := range a.Occurrences {
		if o.Key.From.After(orig) || o.Key == (AnswerKey{From: orig}) {
			out.Occurrences = append(out.Occurrences, o)
		}
	}
	return out
}

// SplitAttendance is the attendance of series split (SplitAttendee) with
// attendees people: the master's policy, its occurrence moves and resets
// (the answers copied keep their counts, and the occurrences moved alone
// after the split stay reset), and the summary and shares their answers
// make.
func SplitAttendance(master *Entry, people []*Attendee) Attendance {
	att := Attendance{Organizer: OrganizerOf(master), HideAttendees: master.Attendance.HideAttendees,
		Moves: master.Attendance.Moves, Resets: maps.Clone(master.Attendance.Resets)}
	for _, p := range people {
		base, keys := ShareChange(nil, p, att.Resets)
		att.Summary = addSummary(att.Summary, base, 1)
		for k, d := range keys {
			if att.Shares == nil {
				att.Shares = map[AnswerKey]AttendeeSummary{}
			}
			att.Shares[k] = addSummary(att.Shares[k], d, 1)
		}
	}
	return att
}
