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
	"path/filepath"
	"time"
)

// Earlier versions kept the embedded table in memory and wrote it to
// snapshot.jsonl (DynamoDB's JSON export format) with a manifest beside it.
const (
	SnapshotName   = "snapshot.jsonl"
	manifestSuffix = ".manifest.json"
	manifestFormat = "calgraph-snapshot/1"
)

// Importer puts the items of a DynamoDB JSON export into the table; the
// store implements it.
type Importer interface {
	Import(ctx context.Context, r io.Reader) (int, error)
}

// manifest sits next to a snapshot: item count and checksum, so a snapshot
// cut short, even at a line boundary, is told from a complete one. It names
// the previous snapshot's checksum too (a crash between the two renames that
// wrote them left a pair that matches).
type manifest struct {
	Format         string `json:"format"`
	Items          int    `json:"items"`
	SHA256         string `json:"sha256"`
	PreviousSHA256 string `json:"previousSha256,omitempty"`
}

// Upgrade imports the snapshot an earlier version left in dir, if any, and
// then moves it and its manifest aside (renamed, never deleted). It returns
// how many items it imported. A snapshot that is unreadable, truncated or
// does not match its manifest is left untouched and refused: starting on
// without it would look like lost data. An import that fails midway is
// repeated whole at the next start (puts are idempotent).
func Upgrade(ctx context.Context, dir string, imp Importer, logger *slog.Logger) (int, error) {
	path := filepath.Join(dir, SnapshotName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the snapshot of an earlier version: %w", err)
	}
	if err := verify(path, data, logger); err != nil {
		return 0, fmt.Errorf("snapshot %s (from an earlier version) was left untouched; move it aside or restore a good copy to start: %w", path, err)
	}
	n, err := imp.Import(ctx, bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("snapshot %s (from an earlier version) could not be imported and was left untouched; move it aside or restore a good copy to start: %w", path, err)
	}
	suffix := ".imported-" + time.Now().UTC().Format("20060102T150405Z")
	for _, p := range []string{path + manifestSuffix, path} {
		if err := os.Rename(p, p+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("move the imported snapshot aside: %w", err)
		}
	}
	logger.Info("imported the snapshot of an earlier version", "items", n, "moved to", path+suffix)
	return n, nil
}

// verify checks a snapshot against its manifest. A snapshot without one (an
// `export` copied into place, say) is accepted.
func verify(path string, data []byte, logger *slog.Logger) error {
	raw, err := os.ReadFile(path + manifestSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		logger.Warn("snapshot has no manifest; importing it unverified", "path", path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != manifestFormat {
		return fmt.Errorf("manifest %s is not a calgraph snapshot manifest", path+manifestSuffix)
	}
	sum := sha256.Sum256(data)
	if s := hex.EncodeToString(sum[:]); s != m.SHA256 && s != m.PreviousSHA256 {
		return fmt.Errorf("the snapshot does not match its manifest (%d items, sha256 %s): it is truncated or damaged", m.Items, m.SHA256)
	}
	return nil
}
