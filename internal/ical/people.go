package ical

import (
	"strconv"
	"strings"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Properties and parameters of the people on an entry. X-NUM-GUESTS is
// Google Calendar's parameter for an attendee's additional guests (it
// writes and reads it; others keep it as an unknown parameter), so a head
// count survives a round trip; X-CALGRAPH-WAITLISTED marks an acceptance
// that waits for a place, written with PARTSTAT=TENTATIVE because it is not
// (yet) coming.
const (
	paramNumGuests  = "X-NUM-GUESTS"
	paramWaitlisted = "X-CALGRAPH-WAITLISTED"
	roleRequired    = "REQ-PARTICIPANT"
	roleOptional    = "OPT-PARTICIPANT"
)

// partStats are the PARTSTAT values of the responses.
var partStats = map[calendar.Response]string{
	calendar.ResponseNeedsAction: "NEEDS-ACTION",
	calendar.ResponseAccepted:    "ACCEPTED",
	calendar.ResponseTentative:   "TENTATIVE",
	calendar.ResponseDeclined:    "DECLINED",
}

// peopleProps adds to a VEVENT its ORGANIZER and one ATTENDEE per attendee,
// in the order given. An entry without attendees gets no ORGANIZER either:
// RFC 5545 makes ORGANIZER mean a group-scheduled event, which calendar
// apps show as a meeting invitation. An organizer unknown (a deleted user)
// is left out.
func peopleProps(props goical.Props, organizer *calendar.User, attendees []*calendar.Attendee) {
	if len(attendees) == 0 {
		return
	}
	if organizer != nil {
		p := goical.NewProp(goical.PropOrganizer)
		setCalAddress(p, organizer.Email, organizer.Name)
		props.Set(p)
	}
	for _, a := range attendees {
		p := goical.NewProp(goical.PropAttendee)
		setCalAddress(p, a.Email, a.DisplayName)
		p.Params.Set("CUTYPE", "INDIVIDUAL")
		p.Params.Set(goical.ParamRole, roleRequired)
		if a.Optional {
			p.Params.Set(goical.ParamRole, roleOptional)
		}
		stat := partStats[a.Response]
		if a.Waitlisted {
			stat = partStats[calendar.ResponseTentative]
			p.Params.Set(paramWaitlisted, "TRUE")
		}
		p.Params.Set(goical.ParamParticipationStatus, stat)
		if a.Response == calendar.ResponseNeedsAction {
			p.Params.Set(goical.ParamRSVP, "TRUE")
		}
		if a.AdditionalGuests > 0 {
			p.Params.Set(paramNumGuests, strconv.Itoa(a.AdditionalGuests))
		}
		props.Add(p)
	}
}

// setCalAddress sets a CAL-ADDRESS property (ORGANIZER, ATTENDEE) to a
// mailto: URI with the person's name as CN. go-ical quotes a parameter value
// holding ";", ":" or "," (RFC 5545 §3.2) but cannot write a DQUOTE, which
// no parameter value may hold: the name is written with RFC 6868's
// escapes, which ical.js and python-icalendar read back (and cnOf undoes).
func setCalAddress(p *goical.Prop, email, name string) {
	p.Value = "mailto:" + email
	if name != "" {
		p.Params.Set(goical.ParamCommonName, escapeParam(name))
	}
}

// escapeParam writes a parameter value with RFC 6868's caret escapes: ^^
// for a caret, ^' for a double quote and ^n for a line break.
func escapeParam(s string) string {
	return strings.NewReplacer("^", "^^", `"`, "^'", "\r\n", "^n", "\n", "^n", "\r", "^n").Replace(s)
}

// unescapeParam undoes escapeParam; a caret before anything else stays.
func unescapeParam(s string) string {
	if !strings.Contains(s, "^") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '^' && i+1 < len(s) {
			switch s[i+1] {
			case '^':
				b.WriteByte('^')
				i++
				continue
			case '\'':
				b.WriteByte('"')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
