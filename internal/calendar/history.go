package calendar

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// HistoryAction is what one recorded change did to an entry or series.
type HistoryAction string

// The actions a history record names.
const (
	// HistoryCreated: the entry was created (or split off another series,
	// or moved here from another calendar: its history here starts with it).
	HistoryCreated HistoryAction = "CREATED"
	// HistoryUpdated: fields of the entry (or of a series as a whole) changed.
	HistoryUpdated HistoryAction = "UPDATED"
	// HistoryMoved: the entry came from another calendar (calendarId's
	// before). Its records in that calendar stay there: members here
	// learn nothing of its past there.
	HistoryMoved HistoryAction = "MOVED"
	// HistoryDeleted: the entry or series was deleted.
	HistoryDeleted HistoryAction = "DELETED"
	// HistoryRestored: the entry was brought back from the trash
	// (restoreEntry), as it was when deleted; its history goes on from the
	// deletion's record.
	HistoryRestored HistoryAction = "RESTORED"
	// HistoryOccurrence: one occurrence of a series changed on its own
	// (HistoryRecord.OriginalStart says which); a cancelled one shows
	// "cancelled" changing to true.
	HistoryOccurrence HistoryAction = "OCCURRENCE_CHANGED"
)

// Begins reports whether a record of action a starts an entry's history in
// its calendar: records before it (an earlier stay of a moved entry) are
// not its history here.
func (a HistoryAction) Begins() bool { return a == HistoryCreated || a == HistoryMoved }

// MaxHistoryValue bounds, in bytes, each before or after value a history
// record keeps: a longer one (a long description) is kept as its first
// MaxHistoryValue bytes and marked Truncated. With at most
// len(historyFields) fields of two values each, a record stays under
// 64 KB, far below an item's 400 KB, whatever the entry holds.
const MaxHistoryValue = 1024

// FieldChange is one field's change in a history record: the field's API
// name and its values before and after, written as the API writes them
// (text as is, instants RFC 3339 in UTC, dates YYYY-MM-DD, numbers and
// booleans as JSON, lists as JSON arrays); nil for no value.
type FieldChange struct {
	Field         string
	Before, After *string
	// Truncated is set when a value was longer than MaxHistoryValue.
	Truncated bool
}

// HistoryRecord is one recorded change of an entry or series: who made it,
// when, and which fields it changed.
type HistoryRecord struct {
	// Seq orders an entry's records (its storage decides the numbers:
	// they grow with every change, not always by one).
	Seq    int
	At     time.Time
	By     string // the user who made the change
	Action HistoryAction
	// OriginalStart names the occurrence a HistoryOccurrence changed.
	OriginalStart time.Time
	Changes       []FieldChange
}

// HistoryPage is a page of an entry's history, newest first.
type HistoryPage struct {
	Records     []*HistoryRecord
	EndCursor   string
	HasNextPage bool
}

// HistoryService reads what was changed in entries, for the signed-in viewer.
type HistoryService interface {
	// EntryHistory returns a page of the history of the entry or series key
	// names (an occurrence's is its series'), newest first. Errors:
	// CodeUnauthenticated, CodeInvalid (page), CodeNotFound (no such
	// entry, or the viewer may not see its details: a FREE_BUSY member, or
	// a reader of someone else's PRIVATE entry).
	EntryHistory(ctx context.Context, key EntryKey, p Page) (*HistoryPage, error)
}

// historyFields are the fields a history record compares, by API name.
var historyFields = []struct {
	name  string
	value func(e *Entry) string // "" for no value
}{
	{"calendarId", func(e *Entry) string { return e.CalendarID }},
	{"title", func(e *Entry) string { return e.Title }},
	{"description", func(e *Entry) string { return e.Description }},
	{"location", func(e *Entry) string { return e.Location }},
	{"color", func(e *Entry) string { return e.Color }},
	{"tags", func(e *Entry) string { return jsonList(e.Tags) }},
	{"reminders", func(e *Entry) string { return jsonList(e.Reminders) }},
	{"transparency", func(e *Entry) string { return string(e.TransparencySet) }},
	{"visibility", func(e *Entry) string { return string(e.VisibilitySet) }},
	{"start", func(e *Entry) string { return instant(e.Start, e.Dated()) }},
	{"end", func(e *Entry) string { return instant(e.End, e.Dated()) }},
	{"timeZone", func(e *Entry) string { return e.TimeZone }},
	{"startDate", func(e *Entry) string { return date(e.StartDate) }},
	{"endDate", func(e *Entry) string { return date(e.EndDate) }},
	{"completed", func(e *Entry) string { return flag(e.Completed) }},
	{"recurrence", recurrenceText},
	{"cancelled", func(e *Entry) string { return flag(e.Cancelled) }},
	{"organizer", func(e *Entry) string { return e.Attendance.Organizer }},
	{"capacity", func(e *Entry) string { return count(e.Attendance.Capacity) }},
	{"waitlist", func(e *Entry) string { return flag(e.Attendance.Waitlist) }},
	{"hideAttendees", func(e *Entry) string { return flag(e.Attendance.HideAttendees) }},
	{"mustNotOverlap", func(e *Entry) string { return jsonList(e.Holds) }},
}

// EntryChanges lists the fields that differ between was and is (either nil
// for none: a creation lists every field is has, a deletion none), in
// historyFields' order, each value bounded by MaxHistoryValue.
func EntryChanges(was, is *Entry) []FieldChange {
	if is == nil {
		return nil
	}
	var out []FieldChange
	for _, f := range historyFields {
		var before string
		if was != nil {
			before = f.value(was)
		}
		after := f.value(is)
		if before == after {
			continue
		}
		c := FieldChange{Field: f.name}
		c.Before, c.Truncated = bounded(before, c.Truncated)
		c.After, c.Truncated = bounded(after, c.Truncated)
		out = append(out, c)
	}
	return out
}

// bounded returns v as a FieldChange value: nil when empty, cut to
// MaxHistoryValue bytes (at a character's start) when longer.
func bounded(v string, truncated bool) (*string, bool) {
	if v == "" {
		return nil, truncated
	}
	if len(v) > MaxHistoryValue {
		n := MaxHistoryValue
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		v, truncated = v[:n], true
	}
	return &v, truncated
}

func instant(t time.Time, dated bool) string {
	if dated || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func date(d Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

func flag(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

func count(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func jsonList[T any](xs []T) string {
	if len(xs) == 0 {
		return ""
	}
	b, _ := json.Marshal(xs) // strings and ints always marshal
	return string(b)
}

// recurrenceText writes a series' rule, and its extra and excluded dates
// when it has any, as RFC 5545 lines.
func recurrenceText(e *Entry) string {
	if e.Recurrence == nil {
		return ""
	}
	text := "RRULE:" + e.Recurrence.Rule
	for _, d := range []struct {
		name  string
		dates []time.Time
	}{{"RDATE", e.Recurrence.RDates}, {"EXDATE", e.Recurrence.ExDates}} {
		if len(d.dates) == 0 {
			continue
		}
		var parts []string
		for _, t := range d.dates {
			parts = append(parts, t.UTC().Format("20060102T150405Z"))
		}
		text += "\n" + d.name + ":" + strings.Join(parts, ",")
	}
	return text
}
