package calendar

import (
	"context"
	"time"
)

// TrashRetention is how long a deleted entry stays in its calendar's trash:
// restorable until then, purged after (the store's TTL; see docs/design.md,
// "Trash").
const TrashRetention = 30 * 24 * time.Hour

// TrashedEntry is one deleted entry in its calendar's trash: the entry as it
// was when deleted (a task or event; its attendees are kept with it and come
// back on restore), who deleted it, when, and when it will be purged.
type TrashedEntry struct {
	Entry     *Entry
	DeletedBy string
	DeletedAt time.Time
	PurgeAt   time.Time
}

// TrashPage is one page of a calendar's trash, newest deletion first.
type TrashPage struct {
	Entries     []*TrashedEntry
	Cursors     []string
	HasNextPage bool
}

// TrashService lists and restores deleted entries. Both need a role that
// writes entries (OWNER or WRITER): the trash holds private entries whole,
// and whoever may list it may restore from it. Errors: CodeUnauthenticated,
// CodeNotFound (not a member, or nothing restorable under that ID: never in
// the trash, purged, or restored already), CodeForbidden, CodeInvalid.
type TrashService interface {
	// Trash lists the calendar's trash, newest deletion first.
	Trash(ctx context.Context, calendarID string, page Page) (TrashPage, error)

	// RestoreEntry brings a trashed entry back under its own ID, with the
	// attendees and answers it had, as a change like any other, and returns
	// it with its calendar as EntryService.CreateEntry does. Errors: as
	// above; CodeInvalid for an entry that is not deleted;
	// CodeAlreadyExists when one with its ID was written while restoring;
	// CodeSlotConflict when a resource calendar's time it held has been
	// booked meanwhile. Nothing is written when it fails.
	RestoreEntry(ctx context.Context, key EntryKey) (*Entry, *Calendar, error)
}
