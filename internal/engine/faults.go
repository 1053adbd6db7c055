package engine

import "sync"

// faults are failure knobs for tests that must see how calgraph copes with
// a store that fails: a table or one of its indexes answering
// InternalServerError, or batch keys left unprocessed.
type faults struct {
	mu          sync.RWMutex
	failing     map[string]bool // "table" or "table/index"
	unprocessed map[string]func(n int, key map[string]string) bool
}

// FailTable makes every call on a table fail with InternalServerError, or
// with indexes given, every read of those indexes; call it again with fail
// false to stop.
func (db *DB) FailTable(table string, fail bool, indexes ...string) {
	f := &db.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing == nil {
		f.failing = map[string]bool{}
	}
	names := []string{table}
	if len(indexes) > 0 {
		names = nil
		for _, ix := range indexes {
			names = append(names, table+"/"+ix)
		}
	}
	for _, n := range names {
		if fail {
			f.failing[n] = true
		} else {
			delete(f.failing, n)
		}
	}
}

// LeaveUnprocessed has batch reads and writes of a table leave the keys for
// which decide returns true unprocessed; n is the key's position among the
// table's keys in the call, from 0; key holds the key's string and number
// attributes. A nil decide stops it.
func (db *DB) LeaveUnprocessed(table string, decide func(n int, key map[string]string) bool) {
	f := &db.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unprocessed == nil {
		f.unprocessed = map[string]func(int, map[string]string) bool{}
	}
	if decide == nil {
		delete(f.unprocessed, table)
		return
	}
	f.unprocessed[table] = decide
}

func (f *faults) tableFails(table, index string) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.failing[table] || (index != "" && f.failing[table+"/"+index])
}

func (f *faults) indexFails(table, index string) error {
	if index != "" && f.tableFails(table, index) {
		return internalError("The server encountered an internal error trying to fulfill the request.")
	}
	return nil
}

func (f *faults) leaveUnprocessed(table string, n int, key item) bool {
	f.mu.RLock()
	decide := f.unprocessed[table]
	f.mu.RUnlock()
	if decide == nil {
		return false
	}
	plain := map[string]string{}
	for k, v := range key {
		switch {
		case v.S != nil:
			plain[k] = *v.S
		case v.N != nil:
			plain[k] = *v.N
		}
	}
	return decide(n, plain)
}
