package calendar

// Visibility says who sees an entry's details. DEFAULT: whoever reads the
// entry. PRIVATE: its calendar's owners and writers, its organizer and the
// people invited to it; other readers see it redacted (Redacted), as Google
// Calendar shows another's private event: its time, and that it is busy.
type Visibility string

// The visibilities.
const (
	VisibilityDefault Visibility = "DEFAULT"
	VisibilityPrivate Visibility = "PRIVATE"
)

// RedactedTitle is the title a redacted entry shows.
const RedactedTitle = "Busy"

// ValidateVisibility refuses a value that is neither ("" is DEFAULT).
func ValidateVisibility(field string, v Visibility) error {
	if v != "" && v != VisibilityDefault && v != VisibilityPrivate {
		return Invalidf(field, "%s must be DEFAULT or PRIVATE", field)
	}
	return nil
}

// Visibility returns e's visibility: as set, else DEFAULT.
func (e *Entry) Visibility() Visibility {
	if e.VisibilitySet == "" {
		return VisibilityDefault
	}
	return e.VisibilitySet
}

// SeesDetails reports whether a viewer with role on e's calendar sees e
// whole: always for a DEFAULT entry; for a PRIVATE one, writers and owners,
// its organizer (OrganizerOf), and an invited viewer (invited: the caller
// read their invitation to it; INVITED is only ever the role of one).
func (e *Entry) SeesDetails(viewer string, role Role, invited bool) bool {
	return e.Visibility() != VisibilityPrivate || role.Can(ActionWriteEntries) || role == RoleInvited ||
		viewer != "" && viewer == OrganizerOf(e) || invited
}

// Redact returns e as those who may not see its details see it: its
// time, kind, recurrence, transparency, visibility, calendar, version and
// identifiers, with the title RedactedTitle, and no description, location,
// tags, reminders, people (organizer, creator, last editor, attendees, their summary) or
// color of its own. Redacted is set, so a client never writes "Busy" back
// (and a viewer below writer cannot write at all).
func (e *Entry) Redact() *Entry {
	r := *e
	r.Title, r.Description, r.Location, r.Color = RedactedTitle, "", "", ""
	r.Tags, r.Reminders = nil, nil
	r.CreatedBy, r.UpdatedBy = "", ""
	r.Attendance = Attendance{Epoch: e.Attendance.Epoch, Reset: e.Attendance.Reset}
	r.Redacted = true
	return &r
}
