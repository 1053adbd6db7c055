package dynamo

// The checks of a calendar's trash (trash_records.go, trash_steps.go).

// moving reports whether a deletion or restore of the entry is under way
// in steps: its pending item vouches for its items that are neither live
// nor in the trash yet.
func (c *checker) moving(calendarID, entryID string) bool {
	id := trashPendingID(calendarID, entryID)
	return c.pending[pendingTrash+"#"+id] || c.pending[pendingRestore+"#"+id]
}

// checkTrash reports an entry both live and in the trash (a restore or
// deletion half done), and trash parts without their trash item or fewer
// or more than it counts, unless a step under way vouches for them. Items
// past their purge time count as purged: TTL deletes a trash item and its
// parts late, each in its own time.
func (c *checker) checkTrash(calendarID string, entries map[string]entryRecord, heads, parts []item) {
	counted := map[string]int{}
	for _, it := range heads {
		if c.store.purged(it) {
			continue
		}
		r, err := unmarshal[trashRecord](it)
		if err != nil {
			c.problem("calendar %s: trash item %s: %v", calendarID, keyOf(it).SK, err)
			continue
		}
		if _, live := entries[r.EntryID]; live && !c.moving(calendarID, r.EntryID) {
			c.problem("calendar %s: entry %s is in the trash and not deleted", calendarID, r.EntryID)
		}
		counted[trashPartPrefix(r.SK)] = r.Parts
	}
	found := map[string]int{}
	for _, it := range parts {
		if c.store.purged(it) {
			continue
		}
		r, err := unmarshal[trashPartRecord](it)
		if err != nil {
			c.problem("calendar %s: trash part %s: %v", calendarID, keyOf(it).SK, err)
			continue
		}
		prefix := r.SK[:len(r.SK)-len("#001")]
		found[prefix]++
		if _, ok := counted[prefix]; !ok && !c.moving(calendarID, r.EntryID) {
			c.problem("calendar %s: trash part %s has no trash item", calendarID, r.SK)
		}
	}
	for prefix, n := range counted {
		if found[prefix] != n {
			c.problem("calendar %s: trash item %s counts %d parts, %d found", calendarID, prefix, n, found[prefix])
		}
	}
}
