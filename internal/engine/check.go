package engine

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// maxReported bounds the problems a check lists: a damaged page can break
// thousands of keys, and the first few say where.
const maxReported = 20

// CheckFile reads the whole file as the newest commit left it and returns a
// *DamageError naming what is wrong with it, or nil. It first walks every
// bucket, key and value itself, checking each stored record's shape, with
// a panic or a memory fault on a damaged page turned into a finding: bbolt's
// own check runs in a goroutine of its own, where a damaged page's panic
// would end the process. Only a file that walks cleanly gets bbolt's check
// (Tx.Check: every page reachable once or free, none past the high-water
// mark, keys in order). It holds the write lock while it reads, so no
// commit changes the pages under it.
func (db *DB) CheckFile() error {
	tx, err := db.bolt.Begin(true)
	if err != nil {
		return fmt.Errorf("check %s: %w", db.bolt.Path(), err)
	}
	defer tx.Rollback()
	var problems []string
	if err := guard(func() error { return walkFile(tx, &problems) }); err != nil {
		problems = append(problems, "reading it failed: "+err.Error())
	}
	if len(problems) == 0 {
		for err := range tx.Check() {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		return nil
	}
	more := ""
	if len(problems) > maxReported {
		more = fmt.Sprintf("; and %d more", len(problems)-maxReported)
		problems = problems[:maxReported]
	}
	return damaged(db.bolt.Path(), "corrupt", "%s%s. Its data cannot all be read as it was written: restore it from a backup, "+
		"or export what can still be read (see the README, \"Damage\")", strings.Join(problems, "; "), more)
}

// guard runs fn with a panic, or a memory fault in the file's map, turned
// into a *panicError. bbolt panics on a page that is not what it expects,
// and reads pages through the map, where a page the file no longer holds
// faults: without SetPanicOnFault that fault would end the process.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack()}
		}
	}()
	return fn()
}

// panicError is a panic turned into an error, with where it happened.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprint(e.value) }

// walkFile visits every key and value of the layout db.go describes,
// noting each value that is not what the engine writes there.
func walkFile(tx *bolt.Tx, problems *[]string) error {
	note := func(format string, args ...any) { *problems = append(*problems, fmt.Sprintf(format, args...)) }
	for _, name := range [][]byte{bucketTables, bucketData, bucketTokens} {
		if tx.Bucket(name) == nil {
			note("bucket %s is missing", name)
		}
	}
	if b := tx.Bucket(bucketTables); b != nil {
		_ = b.ForEach(func(k, v []byte) error {
			if !json.Valid(v) {
				note("table %q: its description is not JSON", k)
			}
			return nil
		})
	}
	if data := tx.Bucket(bucketData); data != nil {
		_ = data.ForEach(func(id, _ []byte) error {
			if t := data.Bucket(id); t != nil {
				walkTable(t, fmt.Sprintf("table bucket %x", id), note)
			}
			return nil
		})
	}
	if b := tx.Bucket(bucketTokens); b != nil {
		_ = b.ForEach(func(_, _ []byte) error { return nil })
	}
	return nil
}

// walkTable checks a table's buckets: items and indexes record by record,
// the TTL index key by key.
func walkTable(t *bolt.Bucket, where string, note func(string, ...any)) {
	_ = t.ForEach(func(k, v []byte) error {
		b := t.Bucket(k)
		if b == nil {
			if strings.HasPrefix(string(k), "stats:") && len(v) != 16 {
				note("%s: counter %q is %d bytes, want 16", where, k, len(v))
			}
			return nil
		}
		records := string(k) == string(bucketItems) || strings.HasPrefix(string(k), "ix:") // ttl holds keys only
		return b.ForEach(func(key, rec []byte) error {
			if !records {
				return nil
			}
			if _, js, err := splitRecord(rec); err != nil || !json.Valid(js) {
				note("%s/%s: the record of key %x is not an item", where, k, key)
			}
			return nil
		})
	})
}
