package dynamo_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestAnswersWriteNoStats: inviting people and their answers (an acceptance,
// a decline, an acceptance with guests) write no stats item, neither the
// organizer's nor the attendees': attendance is not a creation (docs/design.md
// "Stats"), and an answer's transaction stays one attendee item, the
// entry's counters and its change record.
func TestAnswersWriteNoStats(t *testing.T) {
	t.Parallel() // a table of its own
	f, meter := meteredFixture(t)
	m := f.meeting(3, 0, false)
	meter.take()

	f.user("late@example.com")
	_, err := f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(),
		Add: []calendar.NewAttendee{{Email: "late@example.com"}, {Email: "someone@elsewhere.example"}}})
	f.mustDo(err)
	_, err = f.store.Respond(m.guests[0], accept(m, 0))
	f.mustDo(err)
	_, err = f.store.Respond(m.guests[1], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1,
		Response: calendar.ResponseDeclined})
	f.mustDo(err)
	_, err = f.store.Respond(m.guests[2], calendar.RSVP{Key: m.entry.Key(), ExpectedVersion: 1,
		Response: calendar.ResponseAccepted, AdditionalGuests: 2})
	f.mustDo(err)
	_, err = f.store.ChangeAttendees(m.organizer, calendar.AttendeeDelta{Key: m.entry.Key(),
		Remove: []string{"someone@elsewhere.example"}})
	f.mustDo(err)

	written := meter.take()
	if len(written) == 0 {
		t.Fatal("the meter saw no write: it measures nothing")
	}
	if got := statsKeys(written); len(got) != 0 {
		var sks []string
		for _, k := range got {
			sks = append(sks, k["PK"].(*types.AttributeValueMemberS).Value+" "+k["SK"].(*types.AttributeValueMemberS).Value)
		}
		t.Fatalf("attendee writes touched %d stats items: %v", len(got), sks)
	}
}
