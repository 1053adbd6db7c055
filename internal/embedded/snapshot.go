package embedded

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/calgraph/calgraph/internal/atomicfile"
)

// Dumper copies the table to and from DynamoDB's JSON export format; the store
// implements it, so snapshots go through the same SDK client as everything else.
type Dumper interface {
	Export(ctx context.Context, w io.Writer) (int, error)
	Import(ctx context.Context, r io.Reader) (int, error)
}

// manifest sits next to the snapshot, as DynamoDB's own exports carry one: it
// lets a load tell a complete snapshot from one cut short, even at a line
// boundary. It is written before the snapshot and names the previous snapshot's
// checksum too, so a crash between the two renames still leaves a pair that
// matches.
type manifest struct {
	Format         string `json:"format"`
	Items          int    `json:"items"`
	SHA256         string `json:"sha256"`
	PreviousSHA256 string `json:"previousSha256,omitempty"`
}

const manifestFormat = "calgraph-snapshot/1"

// Snapshotter keeps the table in a snapshot file between runs of the embedded
// engine: it loads it at start and saves it, atomically, when the data changed.
type Snapshotter struct {
	path   string
	dumper Dumper
	log    *slog.Logger

	mu       sync.Mutex // one load or save at a time
	loaded   bool       // Save refuses to run before a successful Load
	exported [sha256.Size]byte
	onDisk   string // checksum of the snapshot file as it is now; "" when there is none
}

// NewSnapshotter returns a Snapshotter for the snapshot at path; its manifest is
// path + ".manifest.json".
func NewSnapshotter(path string, d Dumper, logger *slog.Logger) *Snapshotter {
	return &Snapshotter{path: path, dumper: d, log: logger}
}

func (s *Snapshotter) manifestPath() string { return s.path + ".manifest.json" }

// Load restores the snapshot and returns how many items it held. A missing file
// is a fresh start. Any other failure (unreadable, truncated, corrupt, not
// matching its manifest) is returned, and the caller must not start: running
// on would soon overwrite the only copy of the data with an empty table.
func (s *Snapshotter) Load(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, s.baseline(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("read snapshot: %w", err)
	}
	sum := checksum(data)
	if err := s.verify(sum); err != nil {
		return 0, fmt.Errorf("snapshot %s was left untouched; move it aside or restore a good copy to start: %w", s.path, err)
	}
	n, err := s.dumper.Import(ctx, bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("snapshot %s is unusable and was left untouched; move it aside or restore a good copy to start: %w", s.path, err)
	}
	s.onDisk = sum
	return n, s.baseline(ctx)
}

// verify checks the snapshot's checksum against its manifest. A snapshot
// without a manifest (an `export` copied into place, say) is accepted.
func (s *Snapshotter) verify(sum string) error {
	raw, err := os.ReadFile(s.manifestPath())
	if errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("snapshot has no manifest; loading it unverified", "path", s.path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != manifestFormat {
		return fmt.Errorf("manifest %s is not a calgraph snapshot manifest", s.manifestPath())
	}
	if sum != m.SHA256 && sum != m.PreviousSHA256 {
		return fmt.Errorf("the snapshot does not match its manifest (%d items, sha256 %s): it is truncated or damaged", m.Items, m.SHA256)
	}
	return nil
}

// baseline records the table's current contents as what the snapshot holds
// and allows saving.
func (s *Snapshotter) baseline(ctx context.Context) error {
	var buf bytes.Buffer
	if _, err := s.dumper.Export(ctx, &buf); err != nil {
		return fmt.Errorf("snapshot baseline: %w", err)
	}
	s.exported, s.loaded = sha256.Sum256(buf.Bytes()), true
	return nil
}

// Save exports the table and, if anything changed since the last save or load
// (or there is no snapshot file yet), replaces the manifest and then the
// snapshot, each atomically. It refuses to run before a successful Load.
func (s *Snapshotter) Save(ctx context.Context) (saved bool, items int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return false, 0, errors.New("snapshot: not saving over a snapshot that was not loaded")
	}
	var buf bytes.Buffer
	n, err := s.dumper.Export(ctx, &buf)
	if err != nil {
		return false, 0, fmt.Errorf("snapshot: %w", err)
	}
	if sha256.Sum256(buf.Bytes()) == s.exported && s.onDisk != "" {
		return false, n, nil
	}
	sum := checksum(buf.Bytes())
	m, _ := json.Marshal(manifest{Format: manifestFormat, Items: n, SHA256: sum, PreviousSHA256: s.onDisk})
	if err := atomicfile.Write(s.manifestPath(), writeBytes(m)); err != nil {
		return false, n, fmt.Errorf("snapshot manifest: %w", err)
	}
	if err := atomicfile.Write(s.path, writeBytes(buf.Bytes())); err != nil {
		return false, n, fmt.Errorf("snapshot: %w", err)
	}
	s.exported, s.onDisk = sha256.Sum256(buf.Bytes()), sum
	return true, n, nil
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

func checksum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}
