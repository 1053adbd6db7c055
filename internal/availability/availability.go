// Package availability answers "when can we meet?": given each
// participant's busy time and working hours, it lists every start in a
// range at which a meeting of a given length suits everyone it must suit.
// It is pure computation over intervals; the store reads the entries and the
// API shapes the answer.
package availability

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// State is how a participant stands during a proposed meeting. The states
// are ordered: a meeting overlapping time of several states is in the
// highest (out of office beats busy, busy beats outside working hours,
// which beats tentative).
type State int

const (
	Free                State = iota // nothing in the way
	Tentative                        // only tentative busy time overlaps: available, flagged
	OutsideWorkingHours              // free, but not all of it within working hours
	Busy                             // busy time (with its buffers) overlaps
	OutOfOffice                      // out-of-office time overlaps
)

func (s State) String() string {
	return [...]string{"FREE", "TENTATIVE", "OUTSIDE_WORKING_HOURS", "BUSY", "OUT_OF_OFFICE"}[s]
}

// Mark is a participant's time that is not free: State is Tentative, Busy
// or OutOfOffice.
type Mark struct {
	Start, End time.Time
	State      State
}

// Participant is a person or a room: their marks (only those overlapping the
// request's range, with its buffers, matter) and their hours, nil for
// "always".
type Participant struct {
	Marks []Mark
	Hours *calendar.WorkingHours
}

// Group is participants of whom at least AtLeast must be available (0: all).
type Group struct {
	Participants []Participant
	AtLeast      int
}

// Request is one "find a time" question.
type Request struct {
	Groups   []Group       // each must be satisfied
	Optional []Participant // reported, never required
	Duration time.Duration
	From, To time.Time // the meeting lies within [From, To)
	// Step spaces the starts on the wall clock of Zone: a start's minute of
	// the day is a multiple of it (15 minutes: :00, :15, :30, :45).
	Step time.Duration
	Zone *time.Location
	// BufferBefore and BufferAfter widen every mark: a meeting must end
	// BufferBefore before a mark starts and start BufferAfter after one ends.
	BufferBefore, BufferAfter time.Duration
	// No start earlier than Now + MinNotice.
	Now       time.Time
	MinNotice time.Duration
	// WorkingHours makes OutsideWorkingHours unavailable; without it, it is
	// only reported.
	WorkingHours bool
}

// Slot is a start that suits: the meeting [Start, End) and each
// participant's state in it, in the order of the request's groups and then
// its optional participants.
type Slot struct {
	Start, End time.Time
	States     []State
}

// Reason says why there is no slot.
type Reason int

const (
	// NoStart: no start lies between the minimum notice and the range's end.
	NoStart Reason = iota + 1
	// NeverWorkingHours: at no start are enough of some group within their
	// working hours, busy or not.
	NeverWorkingHours
	// NeverFree: there are starts within working hours, but at each one some
	// group has too few members available.
	NeverFree
)

func (r Reason) String() string {
	return [...]string{"", "NO_START", "NEVER_WORKING_HOURS", "NEVER_FREE"}[r]
}

// Answer is every slot that suits, in order of start, and when there is
// none, why, with the participants (by index, as in Slot.States) who are
// available at none of the starts.
type Answer struct {
	Slots       []Slot
	Reason      Reason
	Unavailable []int
}

// Find answers r, which must be valid (Validate); it fails only on a zone
// the system cannot load. It costs, for each
// participant, a sort of their marks and one pass over them and over the
// starts: O(P × (M log M + S)) for P participants, M marks and S starts.
func Find(r Request) (Answer, error) {
	everyone := r.participants()
	from, to := r.From.Add(-r.BufferAfter-r.Duration), r.To.Add(r.BufferBefore+r.Duration)
	track := make([]tracker, len(everyone))
	for i, p := range everyone {
		var err error
		if track[i], err = newTracker(p, from, to, r.BufferBefore, r.BufferAfter); err != nil {
			return Answer{}, err
		}
	}
	var ans Answer
	starts, working := 0, 0
	seen := make([]bool, len(everyone))
	states := make([]State, len(everyone))
	inHours := make([]bool, len(everyone))
	for start := range r.starts() {
		starts++
		end := start.Add(r.Duration)
		for i := range track {
			states[i], inHours[i] = track[i].state(start, end)
			if r.available(states[i]) {
				seen[i] = true
			}
		}
		if !r.WorkingHours || fits(r, inHours, func(in bool) bool { return in }) {
			working++
		}
		if fits(r, states, r.available) {
			ans.Slots = append(ans.Slots, Slot{Start: start, End: end, States: append([]State(nil), states...)})
		}
	}
	if len(ans.Slots) > 0 {
		return ans, nil
	}
	switch {
	case starts == 0:
		ans.Reason = NoStart
	case working == 0:
		ans.Reason = NeverWorkingHours
	default:
		ans.Reason = NeverFree
	}
	for i, ok := range seen {
		if !ok && starts > 0 {
			ans.Unavailable = append(ans.Unavailable, i)
		}
	}
	return ans, nil
}

// participants lists the groups' participants, then the optional ones.
func (r Request) participants() []Participant {
	var out []Participant
	for _, g := range r.Groups {
		out = append(out, g.Participants...)
	}
	return append(out, r.Optional...)
}

// available says whether a participant in state s can attend.
func (r Request) available(s State) bool {
	return s == Free || s == Tentative || (s == OutsideWorkingHours && !r.WorkingHours)
}

// fits says whether every group has enough members for which ok holds of
// their value in vs (everyone's, in participants' order).
func fits[V any](r Request, vs []V, ok func(V) bool) bool {
	i := 0
	for _, g := range r.Groups {
		need := g.AtLeast
		if need == 0 {
			need = len(g.Participants)
		}
		n := 0
		for range g.Participants {
			if ok(vs[i]) {
				n++
			}
			i++
		}
		if n < need {
			return false
		}
	}
	return true
}
