package engine

import (
	"errors"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// commitLoop is the single writer: it takes every write waiting, applies
// them one after another in one transaction and commits once, so that
// concurrent writers share an fsync (group commit) and each sees the
// writes committed before it (serializable).
func (db *DB) commitLoop() {
	defer close(db.done)
	for r := range db.writes {
		batch := []*writeReq{r}
	drain:
		for len(batch) < 512 {
			select {
			case r, ok := <-db.writes:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		db.commit(batch)
	}
}

// commit applies a batch of writes in one transaction. A panic of bbolt's
// own (a damaged page met while writing) fails the batch instead of ending
// the process, after rolling back the transaction, which would otherwise
// hold the write lock for good.
func (db *DB) commit(batch []*writeReq) {
	defer func() {
		for _, r := range batch {
			close(r.ok)
		}
	}()
	alone := false
	if err := guard(func() error { alone = db.commitBatch(batch); return nil }); err != nil {
		db.failAll(batch, db.damage(err))
		return
	}
	if alone {
		// A failure of the store itself: nothing of the transaction stood.
		// Each writer gets a transaction of its own.
		for _, r := range batch {
			r.err = nil
			if err := guard(func() error { db.commitAlone(r); return nil }); err != nil {
				r.err = db.internal(db.damage(err))
			}
		}
	}
}

// commitBatch commits the batch, or rolls it back and reports that its
// writers must each be retried alone.
func (db *DB) commitBatch(batch []*writeReq) (alone bool) {
	tx, err := db.bolt.Begin(true)
	if err != nil {
		db.failAll(batch, err)
		return false
	}
	defer rollbackOnPanic(tx)
	for _, r := range batch {
		r.err = db.apply(tx, r.fn)
		if _, logical := errors.AsType[*apiError](r.err); r.err != nil && !logical {
			_ = tx.Rollback()
			return len(batch) > 1
		}
	}
	if err := tx.Commit(); err != nil {
		db.failAll(batch, err)
	}
	return false
}

func (db *DB) commitAlone(r *writeReq) {
	tx, err := db.bolt.Begin(true)
	if err != nil {
		r.err = db.internal(err)
		return
	}
	defer rollbackOnPanic(tx)
	r.err = db.apply(tx, r.fn)
	if _, logical := errors.AsType[*apiError](r.err); r.err != nil && !logical {
		_ = tx.Rollback()
		return
	}
	if err := tx.Commit(); err != nil {
		r.err = db.internal(err)
	}
}

// rollbackOnPanic releases the write transaction a panic is leaving, then
// lets the panic go on.
func rollbackOnPanic(tx *bolt.Tx) {
	if p := recover(); p != nil {
		_ = guard(tx.Rollback)
		panic(p)
	}
}

// damage logs a panic: a bug, or a damaged page of the file met while
// reading or writing it. It says what to do about the second.
func (db *DB) damage(err error, attrs ...any) error {
	var stack []byte
	if p, ok := errors.AsType[*panicError](err); ok {
		stack = p.stack
	}
	db.log.Error("embedded engine panicked: a bug, or "+db.bolt.Path()+" is damaged (stop calgraph and run `calgraph check` to know)",
		append(attrs, "panic", err, "stack", string(stack))...)
	return fmt.Errorf("panic: %w", err)
}

// apply runs one writer's function, turning a panic into an internal error.
func (db *DB) apply(tx *bolt.Tx, fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			db.log.Error("embedded engine write panicked", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(tx)
}

func (db *DB) failAll(batch []*writeReq, err error) {
	for _, r := range batch {
		r.err = db.internal(err)
	}
}

func (db *DB) internal(err error) error {
	db.log.Error("embedded engine storage failure", "err", err)
	return fmt.Errorf("storage: %w", err)
}
