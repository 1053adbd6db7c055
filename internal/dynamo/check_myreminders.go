package dynamo

// checkMyReminders reports users' reminder settings in calendar calID that
// do not decode (bad key, reminders out of bounds, spans unsorted or past
// their bounds) or whose entry or series is gone but for those kept to
// expire with its trash (trashMyReminders), and those kept so of a live
// entry (a restore clears expiresAt: restoreMyReminders).
func (c *checker) checkMyReminders(calID string, entries map[string]entryRecord, items []item) {
	for _, it := range items {
		set, err := decodeMyReminders(it)
		if err != nil {
			c.problem("calendar %s: %v", calID, err)
			continue
		}
		if set.Root.CalendarID != calID {
			c.problem("calendar %s: reminders %s name calendar %s", calID, stringAttr(it, attrSK), set.Root.CalendarID)
		}
		_, live := entries[set.Root.EntryID]
		kept := it[attrExpiresAt] != nil // with the trash (myreminders_lifecycle.go)
		switch {
		case !live && !kept:
			c.problem("calendar %s: reminders of %s on entry %s, which does not exist", calID, set.UserID, set.Root.EntryID)
		case live && kept && !c.moving(calID, set.Root.EntryID):
			c.problem("calendar %s: reminders of %s on entry %s are kept to expire with its trash, but it is live", calID, set.UserID, set.Root.EntryID)
		}
	}
}
