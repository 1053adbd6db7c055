package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// attendeeRecord is the stored form of an entry's attendee, an item of the
// entry's calendar partition (attendeeKey). An attendee who is a calgraph
// user is on GSI1 (their invitations); a waitlisted one is on LSI2 by ticket
// (the entry's waitlist).
type attendeeRecord struct {
	PK               string    `dynamodbav:"PK"`
	SK               string    `dynamodbav:"SK"`
	GSI1PK           string    `dynamodbav:"GSI1PK,omitempty"`
	GSI1SK           string    `dynamodbav:"GSI1SK,omitempty"`
	LSI2SK           string    `dynamodbav:"LSI2SK,omitempty"`
	EntityType       string    `dynamodbav:"entityType"`
	CalendarID       string    `dynamodbav:"calendarId"`
	EntryID          string    `dynamodbav:"entryId"`
	UserID           string    `dynamodbav:"userId,omitempty"`
	Email            string    `dynamodbav:"email"`
	DisplayName      string    `dynamodbav:"displayName,omitempty"`
	Optional         bool      `dynamodbav:"optional,omitempty"`
	Response         string    `dynamodbav:"response"`
	Comment          string    `dynamodbav:"comment,omitempty"`
	AdditionalGuests int       `dynamodbav:"additionalGuests,omitempty"`
	RespondedAt      string    `dynamodbav:"respondedAt,omitempty"`
	ProposedStart    string    `dynamodbav:"proposedStart,omitempty"`
	ProposedEnd      string    `dynamodbav:"proposedEnd,omitempty"`
	Waitlisted       bool      `dynamodbav:"waitlisted,omitempty"`
	Ticket           int       `dynamodbav:"ticket,omitempty"`
	InvitedBy        string    `dynamodbav:"invitedBy,omitempty"`
	InvitedAt        time.Time `dynamodbav:"invitedAt"`
	UpdatedAt        time.Time `dynamodbav:"updatedAt"`
	Version          int       `dynamodbav:"version"`
	// Occurrences are a series attendee's answers to some occurrences
	// apart (calendar.Attendee.Occurrences, series_answers.go).
	Occurrences []occurrenceAnswerRecord `dynamodbav:"occurrences,omitempty"`
	// Epoch is the entry's answer epoch the answer was given at
	// (calendar.Attendee.Epoch).
	Epoch int `dynamodbav:"epoch,omitempty"`
	// SplitPending marks a copy a split made ahead of its switch, kept off
	// GSI1 until the split is made (series_split.go); newAttendeeRecord
	// never sets it, so any later write of the attendee clears it.
	SplitPending bool `dynamodbav:"splitPending,omitempty"`
	// Moves is the series' count of occurrence moves the series answer was
	// given at (calendar.Attendee.Moves).
	Moves int `dynamodbav:"moves,omitempty"`
}

// newAttendeeRecord is a's stored form, written at updated.
func newAttendeeRecord(a *calendar.Attendee, updated time.Time) attendeeRecord {
	k := attendeeKey(a.CalendarID, a.EntryID, attendeeWho(a.UserID, a.Email))
	r := attendeeRecord{
		PK: k.PK, SK: k.SK, EntityType: entityAttendee, CalendarID: a.CalendarID, EntryID: a.EntryID,
		UserID: a.UserID, Email: a.Email, DisplayName: a.DisplayName, Optional: a.Optional,
		Response: string(a.Response), Comment: a.Comment, AdditionalGuests: a.AdditionalGuests,
		RespondedAt: formatTime(a.RespondedAt), ProposedStart: formatTime(a.ProposedStart), ProposedEnd: formatTime(a.ProposedEnd),
		Waitlisted: a.Waitlisted, Ticket: a.Ticket, InvitedBy: a.InvitedBy, InvitedAt: a.InvitedAt,
		UpdatedAt: updated, Version: a.Version, Epoch: a.Epoch, Moves: a.Moves, Occurrences: newOccurrenceAnswerRecords(a.Occurrences),
	}
	if a.UserID != "" {
		ik := attendeeIndexKey(a.UserID, a.InvitedAt, a.CalendarID, a.EntryID)
		r.GSI1PK, r.GSI1SK = ik.PK, ik.SK
	}
	if a.Waitlisted {
		r.LSI2SK = waitlistSortKey(a.EntryID, a.Ticket)
	}
	return r
}

func (r attendeeRecord) attendee() (*calendar.Attendee, error) {
	a := &calendar.Attendee{
		CalendarID: r.CalendarID, EntryID: r.EntryID, UserID: r.UserID, Email: r.Email, DisplayName: r.DisplayName,
		Optional: r.Optional, Response: calendar.Response(r.Response), Comment: r.Comment,
		AdditionalGuests: r.AdditionalGuests, Waitlisted: r.Waitlisted, Ticket: r.Ticket,
		InvitedBy: r.InvitedBy, InvitedAt: r.InvitedAt, Version: r.Version, Epoch: r.Epoch, Moves: r.Moves,
	}
	for _, f := range []struct {
		raw string
		dst *time.Time
	}{{r.RespondedAt, &a.RespondedAt}, {r.ProposedStart, &a.ProposedStart}, {r.ProposedEnd, &a.ProposedEnd}} {
		if f.raw == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.raw)
		if err != nil {
			return nil, err
		}
		*f.dst = t
	}
	for _, o := range r.Occurrences {
		answer, err := o.answer()
		if err != nil {
			return nil, err
		}
		a.Occurrences = append(a.Occurrences, answer)
	}
	return a, nil
}

// decodeAttendee reads an attendee item as stored; decodeAttendeeAt is
// how it reads on its entry.
func decodeAttendee(it item) (*calendar.Attendee, error) {
	r, err := unmarshal[attendeeRecord](it)
	if err != nil {
		return nil, err
	}
	return r.attendee()
}

// decodeAttendeeAt reads an attendee item as it reads on an entry at
// answer epoch epoch (calendar.Attendee.At): what every reader and write
// counts and shows.
func decodeAttendeeAt(it item, epoch int) (*calendar.Attendee, error) {
	a, err := decodeAttendee(it)
	if err != nil {
		return nil, err
	}
	return a.At(epoch), nil
}

// summaryAttrs are the entry attributes of its attendees' summary, with
// what each counts. attHeads is the head count (accepted plus their
// guests), kept as well because a condition cannot add two attributes.
var summaryAttrs = []struct {
	name  string
	count func(calendar.AttendeeSummary) int
}{
	{"attNeedsAction", func(s calendar.AttendeeSummary) int { return s.NeedsAction }},
	{"attAccepted", func(s calendar.AttendeeSummary) int { return s.Accepted }},
	{"attTentative", func(s calendar.AttendeeSummary) int { return s.Tentative }},
	{"attDeclined", func(s calendar.AttendeeSummary) int { return s.Declined }},
	{"attWaitlisted", func(s calendar.AttendeeSummary) int { return s.Waitlisted }},
	{"attGuests", func(s calendar.AttendeeSummary) int { return s.AcceptedGuests }},
	{attrHeads, calendar.AttendeeSummary.HeadCount},
}

// attrHeads and attrAttRev are the entry's head count and attendance
// revision (calendar.Attendance.Rev).
const (
	attrHeads  = "attHeads"
	attrAttRev = "attRev"
	// attrAttEpoch is the entry's answer epoch and attrAnswerEpoch the
	// attendee item's (calendar.AnswerCurrent).
	attrAttEpoch    = "attEpoch"
	attrAnswerEpoch = "epoch"
	// attrAttMoves counts a series' moves of one occurrence alone
	// (calendar.Attendance.Moves).
	attrAttMoves = "attMoves"
)

// summaryUpdate adds d to an entry item's summary and raises its attendance
// revision: ADD only, so that concurrent answers add up.
func summaryUpdate(d calendar.AttendeeSummary) expression.UpdateBuilder {
	upd := expression.Add(expression.Name(attrAttRev), expression.Value(1))
	for _, a := range summaryAttrs {
		if n := a.count(d); n != 0 {
			upd = upd.Add(expression.Name(a.name), expression.Value(n))
		}
	}
	return upd
}

// numberIs holds when a number attribute is v, absent counting as 0.
func numberIs(name string, v int) expression.ConditionBuilder {
	c := expression.Name(name).Equal(expression.Value(v))
	if v == 0 {
		return expression.AttributeNotExists(expression.Name(name)).Or(c)
	}
	return c
}

// numberAtMost holds when a number attribute is at most v, absent counting
// as 0.
func numberAtMost(name string, v int) expression.ConditionBuilder {
	c := expression.Name(name).LessThanEqual(expression.Value(v))
	if v >= 0 {
		return expression.AttributeNotExists(expression.Name(name)).Or(c)
	}
	return c
}

// attendanceAsRead holds while no attendee write changed the entry since
// it was read at attendance revision rev: every write that puts the entry
// item whole (it writes the summary it read) carries it.
func attendanceAsRead(rev int) expression.ConditionBuilder { return numberIs(attrAttRev, rev) }
