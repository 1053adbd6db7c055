package calendar

import (
	"context"
	"slices"
	"time"
)

// Bounds of one user's reminder setting on one entry or series: past them
// SetMyReminders is CodeInvalid and says what to do instead (set the whole
// series again, scope ALL, which starts over). They keep the item small
// (under 10 KB) whatever a client does.
const (
	MaxReminderSegments  = 20  // THIS_AND_FOLLOWING changes kept on one series
	MaxReminderOverrides = 100 // occurrences with reminders of their own on one series
)

// ReminderChoice is what a user chose for some occurrences: their own
// Reminders (possibly none), or, with Default, whatever their calendar
// default is at the time.
type ReminderChoice struct {
	Default   bool
	Reminders []Reminder
}

// ReminderSegment is a THIS_AND_FOLLOWING choice: it holds for the
// occurrences whose original start is From or later, up to the next segment.
type ReminderSegment struct {
	From time.Time
	ReminderChoice
}

// ReminderOverride is a THIS choice for the one occurrence originally at
// OriginalStart. It is keyed like the series' exceptions, by original start,
// so it follows the occurrence wherever the occurrence is moved.
type ReminderOverride struct {
	OriginalStart time.Time
	ReminderChoice
}

// ReminderSetting is one user's own reminders on one entry, or on one series
// with all its occurrences and exceptions (Root names the entry or the
// series). Nobody but UserID sees or changes it, and it never changes the
// entry: not its version, sequence or updatedAt, nor its calendar's revision.
type ReminderSetting struct {
	Root   EntryKey
	UserID string
	// All is the choice for the entry, or for the occurrences of the series
	// that no segment or override covers.
	All       ReminderChoice
	Following []ReminderSegment  // by From, ascending
	Overrides []ReminderOverride // by OriginalStart, ascending
	Version   int
	UpdatedAt time.Time
}

// NewReminderSetting returns userID's setting on root before they set
// anything: the calendar default everywhere.
func NewReminderSetting(root EntryKey, userID string) *ReminderSetting {
	return &ReminderSetting{Root: root, UserID: userID, All: ReminderChoice{Default: true}}
}

// MyRemindersKey names a user's reminder setting on an entry or series.
type MyRemindersKey struct {
	Root   EntryKey
	UserID string
}

// At returns the reminders the setting gives the occurrence originally at
// originalStart (zero for a single entry), and whether they are the user's
// own (false: the calendar default applies). Occurrences are identified by
// their original start instant, so a move of the occurrence, or a DST change
// of its zone, does not change which choice holds for it. A nil setting sets
// nothing.
func (s *ReminderSetting) At(originalStart time.Time) (reminders []Reminder, set bool) {
	if s == nil {
		return nil, false
	}
	c := s.All
	for _, seg := range s.Following {
		if !originalStart.IsZero() && !seg.From.After(originalStart) {
			c = seg.ReminderChoice
		}
	}
	if !originalStart.IsZero() {
		if i, ok := slices.BinarySearchFunc(s.Overrides, originalStart, func(o ReminderOverride, t time.Time) int {
			return o.OriginalStart.Compare(t)
		}); ok {
			c = s.Overrides[i].ReminderChoice
		}
	}
	if c.Default {
		return nil, false
	}
	return c.Reminders, true
}

// EffectiveReminders returns the reminders a user gets at the occurrence
// originally at originalStart (zero for a single entry): their own when
// their setting sets them there, else calendarDefault, the user's default
// reminders for the entry's calendar. Never nil.
func EffectiveReminders(own *ReminderSetting, originalStart time.Time, calendarDefault []Reminder) []Reminder {
	r, set := own.At(originalStart)
	if !set {
		r = calendarDefault
	}
	if r == nil {
		return []Reminder{}
	}
	return r
}

// Unset reports whether the setting gives every occurrence the calendar
// default.
func (s *ReminderSetting) Unset() bool {
	return s == nil || s.All.Default && len(s.Following) == 0 && len(s.Overrides) == 0
}

// Apply changes the setting as a SetMyReminders of scope at the occurrence
// originally at occurrence (zero for ScopeAll) asks: ALL replaces every
// choice (segments and overrides go), THIS_AND_FOLLOWING replaces every
// choice from the occurrence on with one segment, THIS sets the
// occurrence's own. Errors: CodeInvalid past MaxReminderSegments or
// MaxReminderOverrides.
func (s *ReminderSetting) Apply(scope Scope, occurrence time.Time, c ReminderChoice) error {
	switch scope {
	case ScopeAll:
		s.All, s.Following, s.Overrides = c, nil, nil
	case ScopeThisAndFollowing:
		s.Following = slices.DeleteFunc(s.Following, func(g ReminderSegment) bool { return !g.From.Before(occurrence) })
		s.Overrides = slices.DeleteFunc(s.Overrides, func(o ReminderOverride) bool { return !o.OriginalStart.Before(occurrence) })
		s.Following = append(s.Following, ReminderSegment{From: occurrence, ReminderChoice: c})
		if len(s.Following) > MaxReminderSegments {
			return Invalidf("scope", "at most %d THIS_AND_FOLLOWING reminder changes on one series: set the whole series (scope ALL) to start over", MaxReminderSegments)
		}
	case ScopeThis:
		i, ok := slices.BinarySearchFunc(s.Overrides, occurrence, func(o ReminderOverride, t time.Time) int {
			return o.OriginalStart.Compare(t)
		})
		if ok {
			s.Overrides[i].ReminderChoice = c
			return nil
		}
		if len(s.Overrides) >= MaxReminderOverrides {
			return Invalidf("scope", "at most %d occurrences of one series have reminders of their own: set them with THIS_AND_FOLLOWING or for the whole series (ALL)", MaxReminderOverrides)
		}
		s.Overrides = slices.Insert(s.Overrides, i, ReminderOverride{OriginalStart: occurrence, ReminderChoice: c})
	default:
		return Invalidf("scope", "scope must be THIS, THIS_AND_FOLLOWING or ALL")
	}
	return nil
}

// MyRemindersChange is a SetMyReminders request: on the entry or series
// Key, or its occurrence originally at Occurrence, for the occurrences Scope
// says, Reminders as given (nil: back to the calendar default).
type MyRemindersChange struct {
	Key        EntryKey
	Occurrence time.Time
	Scope      Scope
	Reminders  []Reminder
	Default    bool // Reminders were null: back to the calendar default
	// ExpectedVersion is the setting's version as last read (0: none set
	// yet); nil writes whatever the version is.
	ExpectedVersion *int
}

// Choice validates the change's reminders and returns its choice.
// Errors: CodeInvalid.
func (c MyRemindersChange) Choice() (ReminderChoice, error) {
	if c.Default {
		return ReminderChoice{Default: true}, nil
	}
	r, err := ValidReminders("reminders", c.Reminders)
	return ReminderChoice{Reminders: r}, err
}

// ScopeOn returns the change with its scope decided for an entry that is
// a series or not, as respondToEntry's: a single entry takes no occurrence
// and only ALL (the default); a series ALL by default, and THIS (the
// default through an occurrence) or THIS_AND_FOLLOWING only through an
// occurrence. Errors: CodeInvalid.
func (c MyRemindersChange) ScopeOn(series bool) (MyRemindersChange, error) {
	switch {
	case c.Scope != "" && c.Scope != ScopeThis && c.Scope != ScopeThisAndFollowing && c.Scope != ScopeAll:
		return c, Invalidf("scope", "scope must be THIS, THIS_AND_FOLLOWING or ALL")
	case !series && !c.Occurrence.IsZero():
		return c, Invalidf("occurrenceStart", "the entry does not repeat: it has no occurrences, omit occurrenceStart")
	case !series && c.Scope != "" && c.Scope != ScopeAll:
		return c, Invalidf("scope", "the entry does not repeat: its reminders take scope ALL (or none)")
	case c.Occurrence.IsZero() && c.Scope != "" && c.Scope != ScopeAll:
		return c, Invalidf("scope", "reminders of a whole series take scope ALL; name an occurrence (occurrenceStart, or its ID) for THIS or THIS_AND_FOLLOWING")
	case c.Scope == "" && c.Occurrence.IsZero():
		c.Scope = ScopeAll
	case c.Scope == "":
		c.Scope = ScopeThis
	}
	if c.Scope == ScopeAll {
		c.Occurrence = time.Time{}
	}
	return c, nil
}

// MyRemindersService sets the signed-in viewer's own reminders.
type MyRemindersService interface {
	// SetMyReminders changes the viewer's reminders on an entry or series
	// they may read whole (a member who reads its calendar, or someone
	// invited to it; not a FREE_BUSY member, nor a reader of a PRIVATE entry
	// they may not see), returning the setting as written. It changes
	// nothing else. Errors: CodeUnauthenticated, CodeNotFound (no such
	// entry or occurrence, or not the viewer's to read), CodeInvalid,
	// CodeVersionConflict.
	SetMyReminders(ctx context.Context, c MyRemindersChange) (*ReminderSetting, error)

	// RemindersOfEntry returns every user's setting on an entry or series
	// (root), in one Query: for the scheduler. Errors: internal only.
	RemindersOfEntry(ctx context.Context, root EntryKey) ([]*ReminderSetting, error)
}

// LegacyReminders returns the setting that stands for a user who has set
// none on entry e (an entry, series or occurrence as shown): before reminders
// were each user's own, an entry's shared reminders were its creator's, so
// they stay the creator's own (IN_APP) until the creator sets theirs.
// Everyone else, and entries without shared reminders, get nil. The
// scheduler and the API both apply it, so nothing set before is lost.
func LegacyReminders(e *Entry, userID string) *ReminderSetting {
	if e == nil || userID == "" || e.CreatedBy != userID || len(e.Reminders) == 0 {
		return nil
	}
	rs := make([]Reminder, 0, len(e.Reminders))
	for _, m := range e.Reminders {
		rs = append(rs, Reminder{Minutes: m, Method: ReminderInApp})
	}
	rs, err := ValidReminders("reminders", rs)
	if err != nil {
		return nil
	}
	return &ReminderSetting{UserID: userID, All: ReminderChoice{Reminders: rs}}
}

// SplitAt returns the setting s gives the series split off its series at
// the occurrence originally at from (a THIS_AND_FOLLOWING change), as the
// new series root's: the choice in force there for the whole new series,
// the segments after it, and the overrides from it on. An override follows
// its occurrence's original start, so one of an occurrence whose time the
// split moved is left behind. Nil when s sets nothing from there on.
func (s *ReminderSetting) SplitAt(from time.Time, root EntryKey) *ReminderSetting {
	out := &ReminderSetting{Root: root, UserID: s.UserID, All: s.All}
	for _, seg := range s.Following {
		if seg.From.After(from) {
			out.Following = append(out.Following, seg)
		} else {
			out.All = seg.ReminderChoice
		}
	}
	for _, o := range s.Overrides {
		if !o.OriginalStart.Before(from) {
			out.Overrides = append(out.Overrides, o)
		}
	}
	if out.Unset() {
		return nil
	}
	return out
}
