package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/calgraph/calgraph/internal/atomicfile"
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
	// AcceptRollback opens a file one of whose two meta pages is damaged
	// from the other, losing the commit the damaged one recorded if it was
	// the newer. A copy of the file as it was is kept beside it first. Only
	// an operator's explicit choice sets it (`calgraph check -accept-rollback`).
	AcceptRollback bool
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

// Open opens the engine's file, creating it if there is none. An existing
// file is verified first (verifyFile): one that is empty, cut short or has a
// damaged meta page is refused with a *DamageError, as is one whose pages
// make bbolt fail while opening it.
func Open(path string, opts Options) (*DB, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := create(path); err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
	}
	rollback, err := verifyFile(path, opts.AcceptRollback)
	if err != nil {
		return nil, err
	}
	if rollback != "" {
		kept, err := keepCopy(path)
		if err != nil {
			return nil, fmt.Errorf("keep a copy of %s before rolling it back: %w", path, err)
		}
		opts.Logger.Warn("opening the engine file from its intact meta page, as asked: the commit the damaged one recorded is lost",
			"file", path, "found", rollback, "copy kept", kept)
	}
	db := &DB{log: opts.Logger, now: opts.Now, writes: make(chan *writeReq, 1024),
		done: make(chan struct{}), metas: map[string]cachedMeta{}}
	if err := guard(func() error { return db.openBolt(path, opts) }); err != nil {
		if db.bolt != nil {
			_ = guard(db.bolt.Close)
		}
		if _, ok := errors.AsType[*DamageError](err); !ok && !errors.Is(err, berrors.ErrTimeout) {
			err = damaged(path, "damaged", "opening it failed (%v). Restore it from a backup (see the README, \"Damage\")", err)
		}
		return nil, err
	}
	go db.commitLoop()
	return db, nil
}

// openBolt opens the file with bbolt and reads its table descriptions.
func (db *DB) openBolt(path string, opts Options) error {
	// The free-page list is kept in the file (not NoFreelistSync): without
	// it, opening reads every page to rebuild it, 22 s on a cold 200k-item
	// file, and the whole file becomes resident.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: opts.NoSync,
		FreelistType: bolt.FreelistMapType})
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	db.bolt = b
	return b.Update(func(tx *bolt.Tx) error {
		if err := createBuckets(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketTables).ForEach(func(k, v []byte) error {
			_, err := db.decodeMeta(k, v)
			return err
		})
	})
}

// keepCopy copies the file to a new name beside it, as evidence of what it
// was before a rollback.
func keepCopy(path string) (string, error) {
	dst := path + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	return dst, atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

// createBuckets makes the top-level buckets of the layout, if missing.
func createBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketTables, bucketData, bucketTokens} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// create makes a new, empty engine file in one step: bbolt writes a new
// file's first pages after creating it, so a crash in between would leave an
// empty file, which Open refuses as damage. The file is made under another
// name and renamed into place, with its directory synced.
func create(path string) error {
	tmp := path + ".new"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	if err = errors.Join(b.Update(createBuckets), b.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	return errors.Join(dir.Sync(), dir.Close())
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
