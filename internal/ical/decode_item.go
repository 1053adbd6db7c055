package ical

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// noTitle is the title of an entry imported without SUMMARY.
const noTitle = "(no title)"

// part is one VEVENT or VTODO as read, before exceptions meet their series.
type part struct {
	index        int
	uid          string
	isException  bool
	item         Item      // a series, single entry or task
	exception    Exception // a RECURRENCE-ID component
	recurrenceID moment    // the exception's RECURRENCE-ID as written
	err          error     // why it is not imported, in words for the client
	dropped      []string  // properties calgraph keeps nothing of (ORGANIZER, ATTENDEE of a to-do)
	notes        []string  // what reading the people left out (decode_people.go)
	people       Item      // an exception's ORGANIZER and ATTENDEEs, as read (occurrenceAnswers)
}

// droppedProps are the properties an import reads nothing of on a to-do. A
// component carrying them is imported, and the import says what it left
// out.
var droppedProps = []string{"ORGANIZER", "ATTENDEE"}

// component reads the i-th VEVENT or VTODO.
func (d *decoder) component(i int, c *goical.Component) part {
	p := d.read(i, c)
	if p.err != nil {
		return p
	}
	if c.Name == goical.CompEvent && !p.isException {
		p.notes, p.err = people(c, &p.item)
		return p
	}
	if c.Name == goical.CompEvent { // an override: its answers at its occurrence
		var err error
		if p.notes, err = people(c, &p.people); err != nil {
			p.notes = append(p.notes, err.Error()+"; its people are left out")
			p.people = Item{}
		}
		return p
	}
	for _, name := range droppedProps {
		if len(c.Props.Values(name)) > 0 {
			p.dropped = append(p.dropped, name)
		}
	}
	return p
}

// read reads the i-th VEVENT or VTODO but for its people.
func (d *decoder) read(i int, c *goical.Component) part {
	p := part{index: i}
	if uid := c.Props.Get(goical.PropUID); uid != nil {
		p.uid = strings.TrimSpace(text(uid))
	}
	switch {
	case c.Name == goical.CompToDo:
		p.item, p.err = d.todo(c)
	case c.Props.Get(goical.PropRecurrenceID) != nil:
		p.isException = true
		p.exception, p.recurrenceID, p.err = d.exception(c)
	default:
		p.item, p.err = d.event(c)
	}
	p.item.UID = p.uid
	return p
}

// event reads a VEVENT that is a single entry or a series.
func (d *decoder) event(c *goical.Component) (Item, error) {
	if status(c) == "CANCELLED" {
		return Item{}, errors.New("cancelled event; not imported")
	}
	timing, start, err := d.eventTiming(c)
	if err != nil {
		return Item{}, err
	}
	rec, err := d.recurrence(c, start)
	if err != nil {
		return Item{}, err
	}
	if rec != nil && timing.MultiDay != nil {
		return Item{}, errors.New("multi-day events cannot recur in calgraph")
	}
	return Item{Entry: newEntry(fields(c, "START"), timing, rec)}, nil
}

// exception reads a VEVENT with RECURRENCE-ID: a cancelled occurrence, or
// one with the timing and fields it gives.
func (d *decoder) exception(c *goical.Component) (Exception, moment, error) {
	rid := c.Props.Get(goical.PropRecurrenceID)
	if rid.Params.Get(goical.ParamRange) != "" {
		return Exception{}, moment{}, errors.New("RECURRENCE-ID with RANGE (this and following occurrences) is not supported")
	}
	orig, err := d.moment(rid)
	if err != nil {
		return Exception{}, moment{}, err
	}
	x := Exception{OriginalStart: orig.at}
	if status(c) == "CANCELLED" {
		x.Cancelled = true
		return x, orig, nil
	}
	timing, _, err := d.eventTiming(c)
	if err != nil {
		return Exception{}, moment{}, err
	}
	x.Update = fields(c, "START")
	x.Update.Timing = calendar.Set(timing)
	return x, orig, nil
}

// todo reads a VTODO as a task, due at DUE or else at DTSTART. Its alarms
// count as reminders when relative to that property.
func (d *decoder) todo(c *goical.Component) (Item, error) {
	if c.Props.Get(goical.PropRecurrenceRule) != nil || c.Props.Get(goical.PropRecurrenceDates) != nil ||
		c.Props.Get(goical.PropRecurrenceID) != nil {
		return Item{}, errors.New("recurring to-dos are not supported")
	}
	st := status(c)
	if st == "CANCELLED" {
		return Item{}, errors.New("cancelled to-do; not imported")
	}
	prop, related := c.Props.Get(goical.PropDue), "END"
	if prop == nil {
		prop, related = c.Props.Get(goical.PropDateTimeStart), "START"
	}
	if prop == nil {
		return Item{}, errors.New("a to-do needs DUE or DTSTART to be imported")
	}
	m, err := d.moment(prop)
	if err != nil {
		return Item{}, err
	}
	var due calendar.TaskDue
	if m.dated {
		due.Date = &m.date
	} else {
		due.At, due.TimeZone = &m.at, m.zone
	}
	entry := newEntry(fields(c, related), calendar.Timing{Task: &due}, nil)
	return Item{Entry: entry, Completed: st == "COMPLETED"}, nil
}

// newEntry returns the entry a component describes from the fields it gives.
// Without SUMMARY the title is noTitle; without VALARM the entry has no
// reminders (the document says so) rather than the viewer's default ones.
func newEntry(u calendar.EntryUpdate, t calendar.Timing, rec *calendar.Recurrence) calendar.NewEntry {
	return calendar.NewEntry{
		Recurrence: rec, Timing: t, Title: cmp.Or(u.Title.Value, noTitle),
		Description: u.Description.Value, Location: u.Location.Value, Color: u.Color.Value,
		Tags: u.Tags.Value, Reminders: calendar.Set(u.Reminders.Value), Transparency: u.Transparency.Value,
		Visibility: u.Visibility.Value,
	}
}

// status returns c's STATUS in upper case, "" when it has none.
func status(c *goical.Component) string {
	if p := c.Props.Get(goical.PropStatus); p != nil {
		return strings.ToUpper(strings.TrimSpace(text(p)))
	}
	return ""
}

// noteDropped says, for a component imported without some of its
// properties, which ones: it is in Import.Errors as imported only in part.
func noteDropped(imp *Import, p part) {
	notes := p.notes
	if len(p.dropped) > 0 {
		notes = append(notes, "imported without "+strings.Join(p.dropped, ", ")+": calgraph keeps attendees on events and series, not apart on one occurrence or on a to-do")
	}
	if len(notes) > 0 {
		imp.Errors = append(imp.Errors, ItemError{Index: p.index, UID: p.uid, Code: calendar.CodeInvalid, Imported: true,
			Message: strings.Join(notes, "; ")})
	}
}

// assemble gathers the parts into an Import: series, single entries and tasks
// in document order, each series' exceptions by original start, and the
// errors by component.
func assemble(parts []part) *Import {
	imp := &Import{}
	masters := map[string]int{} // UID → index in imp.Items
	failed := map[string]bool{} // UIDs whose series was not imported
	fail := func(p part, err error) {
		imp.Errors = append(imp.Errors, ItemError{Index: p.index, UID: p.uid, Message: err.Error(), Code: calendar.CodeInvalid})
	}
	for _, p := range parts {
		_, dup := masters[p.uid]
		switch {
		case p.isException: // attached below, once every series is known
		case p.err != nil:
			failed[p.uid] = p.uid != ""
			fail(p, p.err)
		case p.uid != "" && dup:
			fail(p, errors.New("another event or to-do in the document has the same UID"))
		default:
			if p.uid != "" {
				masters[p.uid] = len(imp.Items)
			}
			p.item.Index = p.index
			imp.Items = append(imp.Items, p.item)
			noteDropped(imp, p)
		}
	}
	for _, p := range parts {
		if p.isException {
			notes, err := attach(imp, masters, failed, p)
			if err != nil {
				fail(p, err)
			} else {
				p.notes = append(p.notes, notes...)
				noteDropped(imp, p)
			}
		}
	}
	slices.SortFunc(imp.Errors, func(a, b ItemError) int { return a.Index - b.Index })
	for i := range imp.Items {
		slices.SortFunc(imp.Items[i].Exceptions, func(a, b Exception) int { return a.OriginalStart.Compare(b.OriginalStart) })
	}
	return imp
}

// attach adds an exception to the series with its UID, and its answers to
// the series' attendees (occurrenceAnswers), with notes on what it left out.
func attach(imp *Import, masters map[string]int, failed map[string]bool, p part) ([]string, error) {
	if p.err != nil {
		return nil, p.err
	}
	i, ok := masters[p.uid]
	switch {
	case !ok && failed[p.uid]:
		return nil, errors.New("its series could not be imported")
	case !ok:
		return nil, errors.New("RECURRENCE-ID without an event of the same UID that it is an occurrence of")
	}
	item := &imp.Items[i]
	if item.Entry.Recurrence == nil {
		return nil, errors.New("RECURRENCE-ID of an event that does not recur")
	}
	if dated := item.Entry.Timing.AllDay != nil; p.recurrenceID.dated != dated {
		return nil, errors.New("RECURRENCE-ID must be " + formName(dated) + ", as the series' DTSTART is")
	}
	for _, x := range item.Exceptions {
		if x.OriginalStart.Equal(p.exception.OriginalStart) {
			return nil, errors.New("another component of the document changes the same occurrence")
		}
	}
	p.exception.Index = p.index
	item.Exceptions = append(item.Exceptions, p.exception)
	return occurrenceAnswers(item, p.exception, p.people), nil
}
