package model

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TrashedEntry is a deleted entry in Calendar.trash. Its deletedBy field is
// resolved from DeletedByID, batched with the request's other user reads.
type TrashedEntry struct {
	Entry       Entry
	DeletedByID string
	DeletedAt   time.Time
	PurgeAt     time.Time
}

// TrashedEntryOf converts a trashed entry shown on cal.
func TrashedEntryOf(t *calendar.TrashedEntry, cal *calendar.Calendar) *TrashedEntry {
	return &TrashedEntry{Entry: EntryOf(t.Entry, cal), DeletedByID: t.DeletedBy,
		DeletedAt: t.DeletedAt, PurgeAt: t.PurgeAt}
}
