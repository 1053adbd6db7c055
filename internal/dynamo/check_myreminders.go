package dynamo

// checkMyReminders reports users' reminder settings in calendar calID that
// do not decode (bad key, reminders out of bounds, spans unsorted or past
// their bounds) or whose entry or series is gone: deleting an entry deletes
// them (myRemindersDeletes), and nothing else may leave one behind.
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
		if _, ok := entries[set.Root.EntryID]; !ok {
			c.problem("calendar %s: reminders of %s on entry %s, which does not exist", calID, set.UserID, set.Root.EntryID)
		}
	}
}
