package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// binary is one build of the server under comparison.
type binary struct {
	label string // "now", or "before <short commit>"
	path  string
	debug bool   // it serves runtime counters (-debug-addr)
	cold  string // the flag it turns its view cache off with, set to 0 (-cold, when it has one)
	// answers: it has an answer cache (-answer-cache-bytes), which -cold
	// turns off too: a cold view is one no cache answers.
	answers bool
	// cacheBytes is the -cache-bytes it runs with, when it takes the flag
	// and one was given ("": its default).
	cacheBytes string
	// quiet are the flags, with their values, that put its background polls
	// (live delivery's, reminders', webhooks') an hour apart, of those it
	// takes; none with -background.
	quiet []string
}

// backgroundPolls are the server flags of its own periodic reads of the
// table, which fall during requests: without -background the benchmark sets
// each that a binary takes to an hour, so that calls and waves per view are
// the view's own.
var backgroundPolls = []string{"-live-poll", "-live-sweep", "-reminder-poll", "-webhook-poll", "-webhook-sweep"}

// revisions says which code the binaries were built from.
type revisions struct {
	now    string // the short HEAD commit, noting a dirty tree
	before string // the short commit of -before; "" without it
}

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// readRevisions describes the work tree at root and the commit before.
func readRevisions(ctx context.Context, root, before string) (revisions, error) {
	var r revisions
	head, err := git(ctx, root, "rev-parse", "--short", "HEAD")
	if err != nil {
		return r, err
	}
	status, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		return r, err
	}
	r.now = head
	if status != "" {
		r.now += fmt.Sprintf(" + uncommitted changes (%d files)", len(strings.Split(status, "\n")))
	}
	if before != "" {
		if r.before, err = git(ctx, root, "rev-parse", "--short", before+"^{commit}"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// buildBinaries builds the server from the work tree at root and, when
// rev.before is set, from that commit checked out in a detached worktree
// under tmp. The returned cleanup removes the worktree; it must run even
// when buildBinaries fails.
func buildBinaries(ctx context.Context, root, tmp string, rev revisions, cold, background bool, cacheBytes int64) (bins []*binary, cleanup func() error, err error) {
	cleanup = func() error { return nil }
	now := &binary{label: "now", path: filepath.Join(tmp, "calgraph-now")}
	if err := goBuild(ctx, root, now.path); err != nil {
		return nil, cleanup, err
	}
	bins = append(bins, now)
	if rev.before != "" {
		tree := filepath.Join(tmp, "before")
		if _, err := git(ctx, root, "worktree", "add", "--detach", tree, rev.before); err != nil {
			return nil, cleanup, err
		}
		cleanup = func() error {
			// The benchmark may be ending on a signal: this must still run.
			_, err := git(context.Background(), root, "worktree", "remove", "--force", tree)
			return err
		}
		before := &binary{label: "before " + rev.before, path: filepath.Join(tmp, "calgraph-before")}
		if err := goBuild(ctx, tree, before.path); err != nil {
			return nil, cleanup, err
		}
		bins = append(bins, before)
	}
	for _, b := range bins {
		takesFlag := serveFlags(ctx, b.path)
		b.debug = takesFlag("-debug-addr")
		b.answers = cold && takesFlag("-answer-cache-bytes")
		for _, f := range backgroundPolls {
			if !background && takesFlag(f) {
				b.quiet = append(b.quiet, f, "1h")
			}
		}
		if cacheBytes >= 0 && takesFlag("-cache-bytes") {
			b.cacheBytes = strconv.FormatInt(cacheBytes, 10)
		}
		switch {
		case !cold:
		case takesFlag("-view-cache-bytes"):
			b.cold = "-view-cache-bytes"
		case takesFlag("-view-cache-items"):
			b.cold = "-view-cache-items"
		}
	}
	return bins, cleanup, nil
}

// goBuild builds the main package at dir into out.
func goBuild(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", dir, err, msg)
	}
	return nil
}
