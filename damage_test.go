package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/calgraph/calgraph/internal/embedded"
)

// seededDir returns a data directory that the seed command filled.
func seededDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, settings(t, dir, false), "seed")
	return dir
}

// copyDir copies a data directory's files into a fresh one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A bbolt meta page: a page header of 16 bytes, then magic, version, page
// size, flags, root bucket (16 bytes), freelist, high-water mark (pages in
// use), txid and checksum.
const (
	metaHighWater = 16 + 40
	metaTxid      = 16 + 48
)

func metaField(file []byte, page, pageSize, field int) uint64 {
	return binary.LittleEndian.Uint64(file[page*pageSize+field:])
}

// leafPage finds a page holding items (reachable, not free).
func leafPage(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	best, most := 0, 0
	for id := 2; ; id++ {
		info, err := tx.Page(id)
		if err != nil {
			t.Fatal(err)
		}
		if info == nil {
			break
		}
		if info.Type == "leaf" && info.Count > most {
			best, most = id, info.Count
		}
	}
	if best == 0 {
		t.Fatal("no leaf page in the seeded file")
	}
	return best
}

// TestDamagedDataFileIsNamed damages a copy of a seeded data directory's
// engine file in each way a disk, a crash or an operator can, then runs the
// check command on it: each ends in an error naming the damage, never in a
// panic, a fault, an empty database in the file's place or "consistent".
func TestDamagedDataFileIsNamed(t *testing.T) {
	src := seededDir(t)
	path := filepath.Join(src, embedded.FileName)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	newest := 0
	if metaField(good, 1, pageSize, metaTxid) > metaField(good, 0, pageSize, metaTxid) {
		newest = 1
	}
	inUse := int(metaField(good, newest, pageSize, metaHighWater)) * pageSize
	leaf := leafPage(t, path)
	zero := func(from, n int) func([]byte) []byte {
		return func(b []byte) []byte { clear(b[from : from+n]); return b }
	}
	for _, tt := range []struct {
		name   string
		damage func([]byte) []byte // nil: remove the file
		want   string
	}{
		{"0 bytes", func([]byte) []byte { return nil }, "is empty (0 bytes)"},
		{"missing", nil, "is missing"},
		{"cut to 100 bytes", func(b []byte) []byte { return b[:100] }, "truncated"},
		{"cut inside the second meta page", func(b []byte) []byte { return b[:pageSize+1000] }, "truncated"},
		{"cut in half", func(b []byte) []byte { return b[:inUse/2/pageSize*pageSize] }, "truncated"},
		{"last page in use cut", func(b []byte) []byte { return b[:inUse-pageSize] }, "truncated"},
		{"a data page zeroed", zero(leaf*pageSize, pageSize), "corrupt"},
		{"meta page 0 zeroed", zero(0, pageSize), "meta page 0"},
		{"meta page 1 zeroed", zero(pageSize, pageSize), "meta page 1"},
		{"newest meta page flipped", func(b []byte) []byte { b[newest*pageSize+metaTxid] ^= 1; return b }, fmt.Sprintf("meta page %d", newest)},
		{"older meta page flipped", func(b []byte) []byte { b[(1-newest)*pageSize+16+8] ^= 0x10; return b }, fmt.Sprintf("meta page %d", 1-newest)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, src)
			p := filepath.Join(dir, embedded.FileName)
			if tt.damage == nil {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, tt.damage(bytes.Clone(good)), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := runRecovered(t, settings(t, dir, false), "check")
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(out, "consistent") {
				t.Fatalf("check on a file with %s: got %v\n%s\nwant an error saying %q", tt.name, err, out, tt.want)
			}
			t.Logf("check: %v", err)
			if tt.want != "corrupt" { // found at open: the server does not start either
				if out, err := runRecovered(t, settings(t, dir, false), "serve"); err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("serve on a file with %s: got %v\n%s\nwant an error saying %q", tt.name, err, out, tt.want)
				}
			}
			if !strings.HasPrefix(tt.want, "meta page") {
				return
			}
			// The operator's way on: the intact meta page, a copy kept.
			if out, err := runRecovered(t, settings(t, dir, false), "check", "-accept-rollback"); err != nil {
				t.Fatalf("check -accept-rollback: %v\n%s", err, out)
			}
			if kept, _ := filepath.Glob(p + ".damaged-*"); len(kept) != 1 {
				t.Errorf("after check -accept-rollback: copies %v, want one", kept)
			}
			if out, err := runRecovered(t, settings(t, dir, false), "check"); err != nil {
				t.Errorf("check after the rollback: %v\n%s", err, out)
			}
		})
	}
}

// runRecovered runs a command, turning a panic into a test failure.
func runRecovered(t *testing.T, getenv func(string) string, args ...string) (out string, err error) {
	t.Helper()
	var buf lockedBuffer
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v\n%s", args[0], p, buf.String())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a server that starts anyway stops
	defer cancel()
	err = run(ctx, args, getenv, nil, &buf, &buf)
	return buf.String(), err
}
