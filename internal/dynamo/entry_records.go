package dynamo

import (
	"fmt"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// entryRecord is an entry item (Piece 0) or one of its pieces: every piece is a
// full copy, so a range Query returns everything a view shows. Only the entry
// item of a task carries LSI2SK, so each task appears once in a timeline.
type entryRecord struct {
	PK          string    `dynamodbav:"PK"`
	SK          string    `dynamodbav:"SK"`
	LSI1SK      string    `dynamodbav:"LSI1SK"`
	LSI2SK      string    `dynamodbav:"LSI2SK,omitempty"`
	EntityType  string    `dynamodbav:"entityType"`
	Piece       int       `dynamodbav:"piece"`
	Pieces      int       `dynamodbav:"pieces"`
	ID          string    `dynamodbav:"id"`
	CalendarID  string    `dynamodbav:"calendarId"`
	Kind        string    `dynamodbav:"kind"`
	Title       string    `dynamodbav:"title"`
	Description string    `dynamodbav:"description,omitempty"`
	Location    string    `dynamodbav:"location,omitempty"`
	Color       string    `dynamodbav:"color,omitempty"`
	Tags        []string  `dynamodbav:"tags,omitempty,stringset"`
	Reminders   []int     `dynamodbav:"reminders,omitempty,numberset"`
	Start       string    `dynamodbav:"start,omitempty"`
	End         string    `dynamodbav:"end,omitempty"`
	TimeZone    string    `dynamodbav:"timeZone,omitempty"`
	StartDate   string    `dynamodbav:"startDate,omitempty"`
	EndDate     string    `dynamodbav:"endDate,omitempty"`
	Completed   bool      `dynamodbav:"completed,omitempty"`
	CompletedAt string    `dynamodbav:"completedAt,omitempty"`
	ICalUID     string    `dynamodbav:"icalUid"`
	Sequence    int       `dynamodbav:"sequence"`
	Version     int       `dynamodbav:"version"`
	CreatedAt   time.Time `dynamodbav:"createdAt"`
	UpdatedAt   time.Time `dynamodbav:"updatedAt"`
}

// entryRecords returns the entry item and its pieces.
func entryRecords(e *calendar.Entry) []entryRecord {
	starts := pieceStarts(e)
	base := entryRecord{
		EntityType: entityEntry, Pieces: len(starts),
		ID: e.ID, CalendarID: e.CalendarID, Kind: string(e.Kind), Title: e.Title,
		Description: e.Description, Location: e.Location, Color: e.Color, Tags: e.Tags, Reminders: e.Reminders,
		Start: formatTime(e.Start), End: formatTime(e.End), TimeZone: e.TimeZone,
		StartDate: formatDate(e.StartDate), EndDate: formatDate(e.EndDate),
		Completed: e.Completed, CompletedAt: formatTime(e.CompletedAt),
		ICalUID: e.ICalUID, Sequence: e.Sequence, Version: e.Version, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
	records := make([]entryRecord, len(starts))
	for n, start := range starts {
		r := base
		k := entryKey(e.CalendarID, e.ID)
		if n > 0 {
			k, r.EntityType = entryPieceKey(e.CalendarID, e.ID, n), entityEntryPiece
		} else if e.Kind == calendar.KindTask {
			r.LSI2SK = taskSortKey(e)
		}
		r.PK, r.SK, r.Piece, r.LSI1SK = k.PK, k.SK, n, reachSortKey(start, e.ID, n)
		records[n] = r
	}
	return records
}

func taskSortKey(e *calendar.Entry) string {
	if e.Completed {
		return doneTaskSortKey(e.CompletedAt, e.ID)
	}
	due, _ := e.Interval(time.UTC)
	return openTaskSortKey(due, e.ID)
}

func (r entryRecord) entry() (*calendar.Entry, error) {
	e := &calendar.Entry{
		ID: r.ID, CalendarID: r.CalendarID, Kind: calendar.Kind(r.Kind), Title: r.Title,
		Description: r.Description, Location: r.Location, Color: r.Color, Tags: r.Tags, Reminders: r.Reminders,
		TimeZone: r.TimeZone, Completed: r.Completed,
		ICalUID: r.ICalUID, Sequence: r.Sequence, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	var err error
	for _, f := range []struct {
		raw string
		dst *time.Time
	}{{r.Start, &e.Start}, {r.End, &e.End}, {r.CompletedAt, &e.CompletedAt}} {
		if f.raw != "" {
			if *f.dst, err = time.Parse(time.RFC3339Nano, f.raw); err != nil {
				return nil, fmt.Errorf("entry %s: %w", r.ID, err)
			}
		}
	}
	for _, f := range []struct {
		raw string
		dst *calendar.Date
	}{{r.StartDate, &e.StartDate}, {r.EndDate, &e.EndDate}} {
		if f.raw != "" {
			if *f.dst, err = calendar.ReadDate(f.raw); err != nil {
				return nil, fmt.Errorf("entry %s: %w", r.ID, err)
			}
		}
	}
	return e, nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func formatDate(d calendar.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}
