package calendar

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Attendee limits. An entry's attendees are changed by delta, at most
// MaxAttendeeDelta added or removed at a time, so that one change (each
// attendee an action, a removal possibly promoting one waitlisted) fits one
// transaction; MaxAttendees bounds the list itself.
const (
	MaxAttendees          = 100
	MaxAttendeeDelta      = 25
	MaxCommentLength      = 500 // characters
	MaxAdditionalGuests   = 10
	MaxCapacity           = 100_000
	MaxAttendeeNameLength = MaxNameLength
)

// Response is an attendee's answer (RFC 5545 PARTSTAT).
type Response string

// The responses.
const (
	ResponseNeedsAction Response = "NEEDS_ACTION" // invited, not answered yet
	ResponseAccepted    Response = "ACCEPTED"
	ResponseTentative   Response = "TENTATIVE"
	ResponseDeclined    Response = "DECLINED"
)

// Responses lists the valid responses in the API's order.
var Responses = []Response{ResponseNeedsAction, ResponseAccepted, ResponseTentative, ResponseDeclined}

// Valid reports whether r is one of the responses.
func (r Response) Valid() bool { return slices.Contains(Responses, r) }

// Attendee is a person invited to an entry: a calgraph user (UserID set) or
// an external email address (UserID ""). An acceptance past the entry's
// capacity, on an entry that keeps a waitlist, is Waitlisted with its
// Ticket: the waitlist is served in ticket order.
type Attendee struct {
	CalendarID       string
	EntryID          string
	UserID           string // "" for an external attendee
	Email            string // lower-case
	DisplayName      string // "" when none was given
	Optional         bool
	Response         Response
	Comment          string
	AdditionalGuests int
	RespondedAt      time.Time // zero until the first answer
	// ProposedStart and ProposedEnd are a new time the attendee proposes;
	// both zero when none.
	ProposedStart, ProposedEnd time.Time
	Waitlisted                 bool
	Ticket                     int // the waitlist's order; 0 when not waitlisted
	InvitedBy                  string
	InvitedAt                  time.Time
	Version                    int
	// Occurrences are the attendee's answers to some occurrences of a
	// series apart from its series answer (the fields above), ordered by
	// key, at most MaxOccurrenceAnswers; none on a single entry or on an
	// attendee as shown at one occurrence (AtOccurrence).
	Occurrences []OccurrenceAnswer
	// Epoch is the entry's answer epoch (Attendance.Epoch) the answer was
	// given at: once the entry's time moves past it, the answer reads as
	// NEEDS_ACTION (At), without any attendee item being rewritten.
	Epoch int
	// Moves is, on a series, how many occurrences had been moved alone
	// (Attendance.Moves) when the series answer was given: at an
	// occurrence moved after it, it reads as NEEDS_ACTION (AtOccurrence).
	Moves int
}

// Key returns the key of the entry the attendee is invited to.
func (a *Attendee) Key() EntryKey { return EntryKey{CalendarID: a.CalendarID, EntryID: a.EntryID} }

// Heads is how many places the attendee takes: themselves and their
// additional guests when accepted and seated, none otherwise.
func (a *Attendee) Heads() int {
	if a == nil || a.Response != ResponseAccepted || a.Waitlisted {
		return 0
	}
	return 1 + a.AdditionalGuests
}

// AttendeeSummary counts an entry's attendees by response, kept exact on the
// entry by every attendee write (never by counting attendees). A waitlisted
// acceptance counts in Waitlisted only.
type AttendeeSummary struct {
	NeedsAction, Accepted, Tentative, Declined, Waitlisted int
	// AcceptedGuests is the additional guests of the seated acceptances.
	AcceptedGuests int
}

// Total is the number of attendees.
func (s AttendeeSummary) Total() int {
	return s.NeedsAction + s.Accepted + s.Tentative + s.Declined + s.Waitlisted
}

// HeadCount is how many people are coming: the seated acceptances and their
// additional guests. A capacity bounds it.
func (s AttendeeSummary) HeadCount() int { return s.Accepted + s.AcceptedGuests }

// Count adds n times (n is 1 or -1) attendee a to s; a nil a changes nothing.
func (s *AttendeeSummary) Count(a *Attendee, n int) {
	if a == nil {
		return
	}
	switch {
	case a.Waitlisted:
		s.Waitlisted += n
	case a.Response == ResponseAccepted:
		s.Accepted += n
		s.AcceptedGuests += n * a.AdditionalGuests
	case a.Response == ResponseTentative:
		s.Tentative += n
	case a.Response == ResponseDeclined:
		s.Declined += n
	default:
		s.NeedsAction += n
	}
}

// SummaryChange is what replacing attendee was by is (either nil for none)
// changes in their entry's summary.
func SummaryChange(was, is *Attendee) AttendeeSummary {
	var d AttendeeSummary
	d.Count(was, -1)
	d.Count(is, 1)
	return d
}

// Attendance is what an entry keeps about the people on it: its organizer,
// capacity and waitlist policy, and its attendees' summary. Responses change
// the summary without changing the entry's version, so that an organizer's
// edit never conflicts with, nor resets, an answer.
type Attendance struct {
	// Organizer is the user organizing the entry: its creator unless a
	// writer handed it over ("" on entries written before organizers were
	// kept: their creator is).
	Organizer string
	// Capacity bounds the head count; 0 is no limit.
	Capacity int
	// Waitlist makes an acceptance past the capacity wait for a place instead
	// of being refused with CodeCapacityReached.
	Waitlist bool
	// HideAttendees hides the attendee list from attendees who are not
	// members with READER or more: each sees only their own answer.
	HideAttendees bool
	Summary       AttendeeSummary
	// Tickets is how many waitlist tickets were handed out: the next is
	// Tickets + 1.
	Tickets int
	// Shares are, on a series' master, what its attendees' occurrence
	// answers change in the summary where they apply (SummaryAt), by key,
	// at most MaxSeriesAnswerKeys; nil elsewhere (an occurrence carries its
	// own summary in Summary).
	Shares map[AnswerKey]AttendeeSummary
	// Rev is raised by every write of the entry's attendees, so that a
	// rewrite of the entry, which writes the summary as it read it, can
	// require it unchanged.
	Rev int
	// Epoch is the entry's answer epoch, raised each time its time moves
	// (ResetAnswers): only the answers given at it are current (At).
	Epoch int
	// Moves counts, on a series' master, the moves of one occurrence alone
	// (ResetOccurrence), and Resets holds for each occurrence so moved (by
	// original start, UTC) the count its last move made: answers given
	// before it read as NEEDS_ACTION there. Reset is that count on an
	// occurrence (OccurrenceAt), 0 when it was never moved alone.
	Moves  int
	Resets map[time.Time]int
	Reset  int
}

// OrganizerOf returns the user organizing e.
func OrganizerOf(e *Entry) string {
	if e.Attendance.Organizer != "" {
		return e.Attendance.Organizer
	}
	return e.CreatedBy
}

// ValidateCapacity checks a capacity given as input: nil removes it.
func ValidateCapacity(c *int) error {
	if c != nil && (*c < 1 || *c > MaxCapacity) {
		return Invalidf("capacity", "capacity must be between 1 and %d, or null for none; got %d", MaxCapacity, *c)
	}
	return nil
}

// NewAttendee is an attendee to add: by email, which the store resolves to
// a calgraph user when one has it, else an external attendee.
type NewAttendee struct {
	Email       string
	DisplayName string
	Optional    bool
	// Response and AdditionalGuests are the answer an imported document
	// gives (PARTSTAT, X-NUM-GUESTS); "" is NeedsAction. The API never sets
	// them: an invited person answers for themselves (Respond). An entry
	// with a capacity refuses an added answer, which would skip its seating.
	Response         Response
	AdditionalGuests int
	// Occurrences are an imported series attendee's answers to single
	// occurrences (THIS; a document's RECURRENCE-ID overrides), at most
	// MaxOccurrenceAnswers: the API never sets them either.
	Occurrences []OccurrenceAnswer
}

// AttendeeDelta adds and removes attendees of an entry (never replaces the
// list): a writer adding one person leaves everyone else's answers alone.
type AttendeeDelta struct {
	Key    EntryKey
	Add    []NewAttendee
	Remove []string // emails
}

// Normalize validates d and returns it with emails lower-cased and names
// trimmed. An email twice in the delta (added twice, removed twice, or added
// and removed) is refused.
func (d AttendeeDelta) Normalize() (AttendeeDelta, error) {
	if len(d.Add)+len(d.Remove) == 0 {
		return d, Invalidf("add", "add or remove at least one attendee")
	}
	if n := len(d.Add) + len(d.Remove); n > MaxAttendeeDelta {
		return d, Invalidf("add", "at most %d attendees may be added or removed at a time, got %d", MaxAttendeeDelta, n)
	}
	seen := map[string]bool{}
	out := AttendeeDelta{Key: d.Key}
	for _, a := range d.Add {
		email, err := NormalizeEmail(a.Email)
		if err != nil {
			return d, Invalidf("add", "%s", ErrorMessage(err))
		}
		name := strings.TrimSpace(a.DisplayName)
		if name != "" {
			if err := ValidateName("add", name); err != nil {
				return d, err
			}
		}
		if seen[email] {
			return d, Invalidf("add", "%s is in the list twice", email)
		}
		seen[email] = true
		a.Response = cmp.Or(a.Response, ResponseNeedsAction)
		if !a.Response.Valid() {
			return d, Invalidf("add", "response must be NEEDS_ACTION, ACCEPTED, TENTATIVE or DECLINED, got %q", a.Response)
		}
		if a.AdditionalGuests < 0 || a.AdditionalGuests > MaxAdditionalGuests {
			return d, Invalidf("add", "additional guests must be between 0 and %d, got %d", MaxAdditionalGuests, a.AdditionalGuests)
		}
		if a.AdditionalGuests > 0 && a.Response != ResponseAccepted {
			return d, Invalidf("add", "only an acceptance brings additional guests (%s)", email)
		}
		occ, err := importedOccurrences(email, a.Occurrences)
		if err != nil {
			return d, err
		}
		out.Add = append(out.Add, NewAttendee{Email: email, DisplayName: name, Optional: a.Optional,
			Response: a.Response, AdditionalGuests: a.AdditionalGuests, Occurrences: occ})
	}
	for _, r := range d.Remove {
		email, err := NormalizeEmail(r)
		if err != nil {
			return d, Invalidf("remove", "%s", ErrorMessage(err))
		}
		if seen[email] {
			return d, Invalidf("remove", "%s is in the lists twice", email)
		}
		seen[email] = true
		out.Remove = append(out.Remove, email)
	}
	return out, nil
}

// importedOccurrences checks an added attendee's answers to single
// occurrences: each an answer (not NEEDS_ACTION) to one occurrence (THIS),
// guests only with an acceptance, each occurrence once, at most
// MaxOccurrenceAnswers. Whether each is an occurrence of the series is the
// store's to check.
func importedOccurrences(email string, occ []OccurrenceAnswer) ([]OccurrenceAnswer, error) {
	if len(occ) > MaxOccurrenceAnswers {
		return nil, Invalidf("add", "%s answers %d occurrences apart; at most %d", email, len(occ), MaxOccurrenceAnswers)
	}
	seen := map[time.Time]bool{}
	out := make([]OccurrenceAnswer, 0, len(occ))
	for _, o := range occ {
		switch {
		case o.Key.Following || o.Key.From.IsZero():
			return nil, Invalidf("add", "%s: an added answer is to one occurrence", email)
		case !o.Response.Valid() || o.Response == ResponseNeedsAction:
			return nil, Invalidf("add", "%s: an occurrence's answer must be ACCEPTED, TENTATIVE or DECLINED, got %q", email, o.Response)
		case o.AdditionalGuests < 0 || o.AdditionalGuests > MaxAdditionalGuests || o.AdditionalGuests > 0 && o.Response != ResponseAccepted:
			return nil, Invalidf("add", "%s: additional guests must be between 0 and %d, and come with an acceptance", email, MaxAdditionalGuests)
		case seen[o.Key.From.UTC()]:
			return nil, Invalidf("add", "%s answers the occurrence at %s twice", email, o.Key.From.UTC().Format(time.RFC3339))
		}
		seen[o.Key.From.UTC()] = true
		out = append(out, OccurrenceAnswer{Key: AnswerKey{From: o.Key.From.UTC()}, Response: o.Response, AdditionalGuests: o.AdditionalGuests})
	}
	return out, nil
}
