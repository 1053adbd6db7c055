package embedded_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
)

func TestSnapshotSaveAndLoad(t *testing.T) {
	_, db := startEngine(t)
	store := dynamo.New(db, "t")
	ctx := context.Background()
	for i := range 3 {
		if _, err := store.ResolveIdentity(ctx, calendar.SignUp{
			Identity: calendar.Identity{Provider: "p", Subject: fmt.Sprint(i)}, Email: fmt.Sprintf("u%d@example.com", i),
		}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "data", "snapshot.jsonl")
	snaps := embedded.NewSnapshotter(path, store, slog.New(slog.DiscardHandler))
	saved, n, err := snaps.Save(ctx)
	if err != nil || !saved || n != 9 {
		t.Fatalf("got saved %v, %d items, %v; want 9 items saved", saved, n, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("got %v, %v; want a 0600 file", info, err)
	}
	if saved, _, err := snaps.Save(ctx); err != nil || saved {
		t.Fatalf("got saved %v, %v for unchanged data, want nothing written", saved, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("got %d files next to the snapshot, want no temporary files left", len(entries))
	}

	_, fresh := startEngine(t)
	restored := dynamo.New(fresh, "t")
	if n, err := embedded.Load(ctx, path, restored); err != nil || n != 9 {
		t.Fatalf("load: got %d items, %v; want 9", n, err)
	}
	var before, after bytes.Buffer
	if _, err := store.Export(ctx, &before); err != nil {
		t.Fatal(err)
	}
	if _, err := restored.Export(ctx, &after); err != nil {
		t.Fatal(err)
	}
	if before.String() != after.String() {
		t.Fatalf("restored table differs:\nsaved:    %s\nrestored: %s", before.String(), after.String())
	}
	if n, err := embedded.Load(ctx, filepath.Join(t.TempDir(), "missing.jsonl"), restored); err != nil || n != 0 {
		t.Fatalf("missing snapshot: got %d, %v; want a fresh start", n, err)
	}
}
