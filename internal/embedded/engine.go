// Package embedded runs calgraph's default DynamoDB engine in-process: the
// engine of internal/engine on the data directory's file, served on a
// loopback port, plus the data directory's lock and the upgrade of data
// directories written by earlier versions (a snapshot file).
//
// The server talks to it through the same aws-sdk-go-v2 client and store code as
// to DynamoDB Local or AWS; only the endpoint differs.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/calgraph/calgraph/internal/engine"
)

// FileName is the engine's file in the data directory.
const FileName = "calgraph.db"

// sweepEvery is how often expired items (TTL) are deleted.
const sweepEvery = time.Minute

// Engine is a running embedded DynamoDB engine.
type Engine struct {
	db  *engine.DB
	srv *engine.Server
}

// Options tune an engine.
type Options struct {
	// NoSync skips fsync at commit: for tests only, where a machine crash
	// does not matter.
	NoSync bool
}

// Open opens the engine's file in dir (creating it) and serves it on
// 127.0.0.1 at a free port. The caller holds dir's lock (LockDir).
func Open(dir string, logger *slog.Logger, opts Options) (*Engine, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	db, err := engine.Open(filepath.Join(dir, FileName), engine.Options{NoSync: opts.NoSync, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("open the embedded engine: %w", err)
	}
	srv, err := engine.Serve(db, sweepEvery)
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &Engine{db: db, srv: srv}, nil
}

// URL is the endpoint to give the SDK.
func (e *Engine) URL() string { return e.srv.URL() }

// Credentials are what the SDK must sign with: the engine answers no other
// (see engine.Server.Credentials).
func (e *Engine) Credentials() aws.CredentialsProvider {
	return credentials.StaticCredentialsProvider{Value: e.srv.Credentials()}
}

// Faults exposes the engine's failure knobs (failing tables or indexes,
// unprocessed batch items) to fault-injection tests.
func (e *Engine) Faults() *engine.DB { return e.db }

// Close stops serving, lets the calls under way finish, and closes the file
// once every acknowledged write is on disk.
func (e *Engine) Close(context.Context) error {
	return errors.Join(e.srv.Close(), e.db.Close())
}
