package ical

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// MaxComponents is the most VEVENT and VTODO components a document Decode
// reads may hold.
const MaxComponents = 5000

// Import is what a document holds for calgraph, component by component.
type Import struct {
	Items  []Item
	Errors []ItemError // components that cannot be imported, and why
}

// Item is one entry to create: a single entry, a task or a series with its exceptions.
type Item struct {
	Index      int // the component's position among the document's VEVENTs and VTODOs, from 0
	UID        string
	Entry      calendar.NewEntry // CalendarID left empty; Recurrence set for a series
	Completed  bool              // a VTODO with STATUS:COMPLETED
	Exceptions []Exception
	// Organizer is a single event's ORGANIZER (Email and DisplayName), nil
	// when it has none; Attendees are its ATTENDEEs with their answers.
	// Apply adds the attendees, and hands the entry over to the organizer
	// when a calgraph user has that email.
	Organizer *calendar.NewAttendee
	Attendees []calendar.NewAttendee
}

// OrganizedBy leaves out the Organizer of the items that email (a calgraph
// user's, lower-case) organizes: the user importing them, who organizes
// what they create, so that an export of one's own calendar, where every
// event names its owner, costs no handover write per event.
func (imp *Import) OrganizedBy(email string) {
	for i := range imp.Items {
		if o := imp.Items[i].Organizer; o != nil && o.Email == email {
			imp.Items[i].Organizer = nil
		}
	}
}

// Exception is a RECURRENCE-ID component of a series.
type Exception struct {
	Index         int                  // as Item.Index
	OriginalStart time.Time            // UTC; midnight UTC of the day for an all-day series
	Cancelled     bool                 // STATUS:CANCELLED
	Update        calendar.EntryUpdate // every field the component gives, Set (Timing, Title, Description, Location, Color, Tags, Reminders)
}

// ItemError says why one component was not imported, or was imported only
// in part (Imported).
type ItemError struct {
	Index   int    // the component's position among the document's VEVENTs and VTODOs, from 0
	UID     string // "" when it has none
	Message string // client-safe, e.g. `unknown time zone "Foo/Bar"`
	// Code is CodeInvalid for what Decode finds, and the store's code for
	// what creating the entry (Apply) refused.
	Code calendar.Code
	// Imported marks a component imported without some of what it held
	// (Message says what): from Decode, true if it is imported at all, which
	// Apply settles.
	Imported bool
}

// Decode reads an iCalendar document (or several VCALENDAR objects one after
// the other) for import. Date-times without a zone ("floating") are read in
// defaultZone ("" is UTC). Every VEVENT and VTODO becomes an Item, an
// exception of an Item, or an ItemError; VJOURNAL, VFREEBUSY and other
// components are skipped. A TZID is an IANA name, whose rules come from Go's
// time zone data, a Windows zone name, read as the IANA zone CLDR maps it to
// (windowsZones), or else the name of one of the document's VTIMEZONEs, read
// as the IANA zone that matches it (vtimezoneZone). An event's or a
// series' ORGANIZER and ATTENDEEs become Item.Organizer and Item.Attendees
// (decode_people.go; a series' answers are answers to all of it); a
// series' exceptions and to-dos are imported without them, and an
// ItemError for each says so.
//
// An event with DTSTART but neither DTEND nor DURATION gets a zero
// TimedTiming.End, so calgraph gives it the viewer's default duration, and so
// does one whose DTEND equals its DTSTART (calgraph has no zero-length events).
// An entry without VALARM has no reminders (NewEntry.Reminders is Set and
// empty) rather than the viewer's default ones: the document says so.
//
// Decode's result is not validated as calgraph input: NewEntry.Build and the
// recurrence engine still check each Item when it is created. Decode returns
// an error only when the document as a whole cannot be read: CodeInvalid
// (field "ics") when it is not iCalendar, has no VCALENDAR or holds more than
// MaxComponents events and to-dos, and r's own error when reading r fails.
// The caller should bound the size of r.
func Decode(r io.Reader, defaultZone string) (*Import, error) {
	d, err := newDecoder(defaultZone)
	if err != nil {
		return nil, fmt.Errorf("decode iCalendar: %w", err)
	}
	comps, tzs, err := readComponents(r)
	d.vtimezones = tzs
	if err != nil {
		return nil, fmt.Errorf("decode iCalendar: %w", err)
	}
	if len(comps) > MaxComponents {
		return nil, fmt.Errorf("decode iCalendar: %w", calendar.Invalidf("ics",
			"the document holds %d events and to-dos; the limit is %d", len(comps), MaxComponents))
	}
	parts := make([]part, len(comps))
	for i, c := range comps {
		parts[i] = d.component(i, c)
	}
	return assemble(parts), nil
}

// decoder reads components with the zone that floating times are in.
type decoder struct {
	zone       string
	loc        *time.Location
	zones      map[string]*time.Location    // TZIDs loaded so far
	vtimezones map[string]*goical.Component // the document's VTIMEZONEs by TZID
	matched    map[string]string            // TZIDs read through their VTIMEZONE → IANA zone
}

func newDecoder(zone string) (*decoder, error) {
	if zone == "" {
		zone = calendar.DefaultTimeZone
	}
	if err := calendar.ValidateTimeZone("timeZone", zone); err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(zone)
	return &decoder{zone: zone, loc: loc, zones: map[string]*time.Location{}, matched: map[string]string{}}, err
}

// readComponents returns the VEVENTs and VTODOs of every VCALENDAR in r, in
// document order, and its VTIMEZONEs by TZID.
func readComponents(r io.Reader) ([]*goical.Component, map[string]*goical.Component, error) {
	src := newSource(r)
	// go-ical's Decoder reads through this bufio.Reader rather than its own
	// (bufio.NewReader returns a large enough *bufio.Reader as it is), so
	// what follows each VCALENDAR can be looked at here.
	br := bufio.NewReaderSize(src, 64*1024)
	skipBOM(br)
	dec := goical.NewDecoder(br)
	var comps []*goical.Component
	tzs := map[string]*goical.Component{}
	for {
		cal, err := decodeOne(dec)
		if err := src.failure(); err != nil {
			return nil, nil, err
		}
		if err != nil {
			return nil, nil, calendar.Invalidf("ics", "the document is not valid iCalendar: %s", err)
		}
		for _, c := range cal.Children {
			switch c.Name {
			case goical.CompEvent, goical.CompToDo:
				comps = append(comps, c)
			case goical.CompTimezone:
				if id := c.Props.Get(goical.PropTimezoneID); id != nil {
					tzs[id.Value] = c
				}
			}
		}
		if atEnd(br) {
			return comps, tzs, src.failure()
		}
	}
}

// decodeOne decodes one VCALENDAR. go-ical's Decoder panics on some malformed
// parameters (a line ending inside one, text after a quoted value); that is
// the document's fault, so it becomes an error.
func decodeOne(dec *goical.Decoder) (cal *goical.Calendar, err error) {
	defer func() {
		if recover() != nil {
			cal, err = nil, errors.New("malformed property parameter")
		}
	}()
	cal, err = dec.Decode()
	switch {
	case errors.Is(err, io.EOF):
		return nil, errors.New("it ends before a VCALENDAR is complete")
	case err != nil:
		return nil, errors.New(clip(strings.TrimPrefix(err.Error(), "ical: ")))
	}
	return cal, nil
}

// clip shortens a message that quotes the document, which can be long.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// skipBOM skips a UTF-8 byte order mark, which some Windows programs write
// and go-ical would take as part of the first property's name.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
}

// atEnd reports whether only blank space is left in br.
func atEnd(br *bufio.Reader) bool {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return true
		}
		if !strings.ContainsRune(" \t\r\n", rune(b)) {
			br.UnreadByte()
			return false
		}
	}
}
