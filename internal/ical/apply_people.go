package ical

import (
	"context"
	"fmt"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// applyPeople adds an imported event's attendees to the entry just created,
// with their answers, through the store's ChangeAttendees (so change
// records, the summary and Store.Check hold as for any invitation), at most
// MaxAttendeeDelta a call; then hands the entry to its ORGANIZER when that is
// a calgraph user, and says so in the note when not (the importer stays its
// organizer). Decode already refused an event with more than MaxAttendees.
// A write the service refuses for this entry alone (another writer deleted
// it meanwhile, say) is noted, the entry kept as it is; an error is a
// failure of the import as a whole.
func applyPeople(ctx context.Context, svc Importer, e *calendar.Entry, it Item) (*calendar.Entry, string, error) {
	for i, chunk := range slices.Collect(slices.Chunk(it.Attendees, calendar.MaxAttendeeDelta)) {
		next, err := svc.ChangeAttendees(ctx, calendar.AttendeeDelta{Key: e.Key(), Add: chunk})
		if err != nil && stops(err) {
			return e, "", fmt.Errorf("add the attendees of imported entry %s: %w", e.ID, err)
		}
		if err != nil {
			return e, fmt.Sprintf("imported without %d of its attendees: %s", len(it.Attendees)-i*calendar.MaxAttendeeDelta, calendar.ErrorMessage(err)), nil
		}
		e = next
	}
	if it.Organizer == nil {
		return e, "", nil
	}
	next, _, err := svc.UpdateEntry(ctx, calendar.EntryUpdate{Key: e.Key(), ExpectedVersion: e.Version,
		OrganizerEmail: calendar.Set(it.Organizer.Email)})
	if calendar.ErrorCode(err) == calendar.CodeNotFound {
		return e, fmt.Sprintf("ORGANIZER %s is not a calgraph user: you organize the entry", it.Organizer.Email), nil
	}
	if err != nil && stops(err) {
		return e, "", fmt.Errorf("hand imported entry %s to its organizer: %w", e.ID, err)
	}
	if err != nil {
		return e, fmt.Sprintf("ORGANIZER %s not kept: %s", it.Organizer.Email, calendar.ErrorMessage(err)), nil
	}
	return next, "", nil
}
