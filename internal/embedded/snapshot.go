package embedded

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Dumper copies the table to and from DynamoDB's JSON export format; the store
// implements it, so snapshots go through the same SDK client as everything else.
type Dumper interface {
	Export(ctx context.Context, w io.Writer) (int, error)
	Import(ctx context.Context, r io.Reader) (int, error)
}

// Load restores the snapshot at path and returns how many items it held. A
// missing file is a fresh start. Any other failure (unreadable, truncated,
// corrupt) is returned, and the caller must not start: running on would soon
// overwrite the only copy of the data with an empty table.
func Load(ctx context.Context, path string, d Dumper) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open snapshot: %w", err)
	}
	defer f.Close()
	n, err := d.Import(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s is unusable and was left untouched; move it aside or restore a good copy to start: %w", path, err)
	}
	return n, nil
}

// Snapshotter writes the table to a snapshot file, atomically, when it changed.
type Snapshotter struct {
	path   string
	dumper Dumper
	log    *slog.Logger

	mu      sync.Mutex // one save at a time
	lastSum [sha256.Size]byte
}

// NewSnapshotter returns a Snapshotter writing to path.
func NewSnapshotter(path string, d Dumper, logger *slog.Logger) *Snapshotter {
	return &Snapshotter{path: path, dumper: d, log: logger}
}

// Save exports the table and, if anything changed since the last save, replaces
// the snapshot atomically: a temporary file in the same directory, fsync,
// rename over the old file, fsync the directory. A crash at any point leaves
// either the old snapshot or the new one, never a torn one.
func (s *Snapshotter) Save(ctx context.Context) (saved bool, items int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var buf bytes.Buffer
	n, err := s.dumper.Export(ctx, &buf)
	if err != nil {
		return false, 0, fmt.Errorf("snapshot: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if sum == s.lastSum {
		return false, n, nil
	}
	if err := writeAtomically(s.path, buf.Bytes()); err != nil {
		return false, n, fmt.Errorf("snapshot: %w", err)
	}
	s.lastSum = sum
	return true, n, nil
}

// Baseline records the table's current contents as already saved, so that a
// table just loaded from the snapshot is not written back unchanged.
func (s *Snapshotter) Baseline(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var buf bytes.Buffer
	if _, err := s.dumper.Export(ctx, &buf); err != nil {
		return fmt.Errorf("snapshot baseline: %w", err)
	}
	s.lastSum = sha256.Sum256(buf.Bytes())
	return nil
}

// Run saves every interval until ctx ends. Failures are logged and retried at
// the next tick; the final save at shutdown is the caller's.
func (s *Snapshotter) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if saved, n, err := s.Save(ctx); err != nil {
				s.log.ErrorContext(ctx, "periodic snapshot failed", "path", s.path, "err", err)
			} else if saved {
				s.log.DebugContext(ctx, "snapshot written", "path", s.path, "items", n)
			}
		}
	}
}

func writeAtomically(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
