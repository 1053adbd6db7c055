package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Layout of the bbolt file:
//
//	tables/<name>            the table's tableMeta as JSON
//	data/<id>/items/<key>    an item by its primary key (see keys.go)
//	data/<id>/<index>/<key>  an index entry: index key, then primary key
//	tokens/<token>           a ClientRequestToken's request hash and time
//
// Values of items and index entries are stored records (record.go).
var (
	bucketTables = []byte("tables")
	bucketData   = []byte("data")
	bucketTokens = []byte("tokens")
	bucketItems  = []byte("items")
)

func indexBucket(name string) []byte { return []byte("ix:" + name) }

// Options tune an engine.
type Options struct {
	// NoSync skips fsync at commit: faster, and a crash of the machine (not
	// of the process) can lose acknowledged writes. Tests only.
	NoSync bool
	// Logger receives the engine's own failures.
	Logger *slog.Logger
	// Now is the clock (TTL, token expiry, table creation times).
	Now func() time.Time
}

// DB is the storage side of the engine: a bbolt file holding every table, and
// the single committer that groups concurrent writers into one fsync.
type DB struct {
	bolt   *bolt.DB
	log    *slog.Logger
	now    func() time.Time
	writes chan *writeReq
	done   chan struct{}

	mu     sync.RWMutex
	metas  map[string]cachedMeta // decoded table metas, by name
	closed bool

	faults faults
}

type writeReq struct {
	fn  func(*bolt.Tx) error
	err error
	ok  chan struct{}
}

// Open opens (or creates) the engine's file.
func Open(path string, opts Options) (*DB, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	// The free-page list is kept in the file (not NoFreelistSync): without
	// it, opening reads every page to rebuild it, 22 s on a cold 200k-item
	// file, and the whole file becomes resident.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: opts.NoSync,
		FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: b, log: opts.Logger, now: opts.Now, writes: make(chan *writeReq, 1024),
		done: make(chan struct{}), metas: map[string]cachedMeta{}}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketTables, bucketData, bucketTokens} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketTables).ForEach(func(k, v []byte) error {
			_, err := db.decodeMeta(k, v)
			return err
		})
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	go db.commitLoop()
	return db, nil
}

// Close waits for queued writes and closes the file.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	close(db.writes)
	db.mu.Unlock()
	<-db.done
	return db.bolt.Close()
}

// view runs a read-only transaction: a consistent snapshot of every table.
func (db *DB) view(fn func(*bolt.Tx) error) error { return db.bolt.View(fn) }

// update runs fn in a write transaction and returns once it is durable. fn
// must return an *apiError only before it has written anything: the
// transaction it shares with other writers is committed all the same.
func (db *DB) update(fn func(*bolt.Tx) error) error {
	r := &writeReq{fn: fn, ok: make(chan struct{})}
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return internalError("the engine is shutting down")
	}
	db.writes <- r
	db.mu.RUnlock()
	<-r.ok
	return r.err
}

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

func (db *DB) commit(batch []*writeReq) {
	defer func() {
		for _, r := range batch {
			close(r.ok)
		}
	}()
	tx, err := db.bolt.Begin(true)
	if err != nil {
		db.failAll(batch, err)
		return
	}
	for _, r := range batch {
		r.err = db.apply(tx, r.fn)
		if _, logical := errors.AsType[*apiError](r.err); r.err != nil && !logical {
			// A failure of the store itself: nothing of this transaction
			// stands. Each writer gets a transaction of its own.
			_ = tx.Rollback()
			if len(batch) == 1 {
				return
			}
			for _, r := range batch {
				r.err = nil
				db.commitAlone(r)
			}
			return
		}
	}
	if err := tx.Commit(); err != nil {
		db.failAll(batch, err)
	}
}

func (db *DB) commitAlone(r *writeReq) {
	tx, err := db.bolt.Begin(true)
	if err != nil {
		r.err = db.internal(err)
		return
	}
	r.err = db.apply(tx, r.fn)
	if _, logical := errors.AsType[*apiError](r.err); r.err != nil && !logical {
		_ = tx.Rollback()
		return
	}
	if err := tx.Commit(); err != nil {
		r.err = db.internal(err)
	}
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

// cachedMeta is a table's description and the bytes it was decoded from.
type cachedMeta struct {
	raw  []byte
	meta *tableMeta
}

// table returns a table's description and bucket as the transaction sees
// them, or ResourceNotFoundException.
func (db *DB) table(tx *bolt.Tx, name string) (*tableMeta, *bolt.Bucket, error) {
	raw := tx.Bucket(bucketTables).Get([]byte(name))
	if raw == nil {
		return nil, nil, tableNotFound()
	}
	m, err := db.decodeMeta([]byte(name), raw)
	if err != nil {
		return nil, nil, err
	}
	b := tx.Bucket(bucketData).Bucket(idKey(m.ID))
	if b == nil {
		return nil, nil, fmt.Errorf("table %s has no data bucket", name)
	}
	return m, b, nil
}

// decodeMeta decodes a stored description once per version of it.
func (db *DB) decodeMeta(name, raw []byte) (*tableMeta, error) {
	db.mu.RLock()
	c, ok := db.metas[string(name)]
	db.mu.RUnlock()
	if ok && bytes.Equal(c.raw, raw) {
		return c.meta, nil
	}
	var m tableMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	db.mu.Lock()
	db.metas[string(name)] = cachedMeta{raw: bytes.Clone(raw), meta: &m}
	db.mu.Unlock()
	return &m, nil
}

func idKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }
