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
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/calgraph/calgraph/internal/atomicfile"
	"github.com/calgraph/calgraph/internal/engine"
)

// FileName is the engine's file in the data directory.
const FileName = "calgraph.db"

// MarkerName is the file that says a data directory has held an engine
// file: written once the first calgraph.db is in place, never removed by
// calgraph. Only while there is no marker does a missing calgraph.db mean a
// first start; the dev key and lock cannot say it, since the token command
// and the lock make them before any engine file exists.
const MarkerName = "calgraph.db.created"

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
	// AcceptRollback opens a file with one damaged meta page from the other
	// (engine.Options.AcceptRollback).
	AcceptRollback bool
}

// Open opens the engine's file in dir and serves it on 127.0.0.1 at a free
// port. The caller holds dir's lock (LockDir). It creates the file on a
// first start only: in a directory that has held one (MarkerName), a
// missing file is refused, as is an empty, cut or damaged one
// (engine.Open): starting an empty database in its place would look like
// lost data to every user, and leave no trace of the loss.
func Open(dir string, logger *slog.Logger, opts Options) (*Engine, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path, marker := filepath.Join(dir, FileName), filepath.Join(dir, MarkerName)
	used, err := exists(marker)
	if err != nil {
		return nil, err
	}
	if found, err := exists(path); err != nil {
		return nil, err
	} else if used && !found {
		return nil, &engine.DamageError{Path: path, State: "missing", Detail: "this data directory has held one (" + MarkerName +
			" says since when), so starting would put an empty database in its place. Restore it from a backup; " +
			"to start afresh on purpose, remove " + marker + " too (see the README, \"Starting afresh\")"}
	}
	db, err := engine.Open(path, engine.Options{NoSync: opts.NoSync, Logger: logger, AcceptRollback: opts.AcceptRollback})
	if err != nil {
		return nil, fmt.Errorf("open the embedded engine: %w", err)
	}
	if !used {
		if err := writeMarker(marker); err != nil {
			return nil, errors.Join(err, db.Close())
		}
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

// CheckFile reads the whole engine file and names any corruption in it
// (engine.DB.CheckFile).
func (e *Engine) CheckFile() error { return e.db.CheckFile() }

// Close stops serving, lets the calls under way finish, and closes the file
// once every acknowledged write is on disk.
func (e *Engine) Close(context.Context) error {
	return errors.Join(e.srv.Close(), e.db.Close())
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// writeMarker records that the directory now holds an engine file.
func writeMarker(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "calgraph has kept %s in this directory since %s at the latest. While this file is here, calgraph "+
			"refuses to start without %s rather than start an empty database in its place; remove both to start afresh.\n",
			FileName, time.Now().UTC().Format(time.RFC3339), FileName)
		return err
	})
}
