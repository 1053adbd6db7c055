// Command viewbench measures what a calgraph server process itself spends
// per GraphQL view — CPU, DynamoDB calls and the items they read,
// allocations — side by side for the current tree and an older commit, in one
// run, against Amazon's DynamoDB Local running in its own process:
//
//	go run ./internal/viewbench [-before COMMIT] [-calendars 1,5,20,50,100] [-n 300] [-rounds 5]
//
// It builds each server, starts it as a child process on its own table with
// a counting proxy before DynamoDB, seeds the table through the server's own
// API with graph/bench_test.go's data set, then sends the views of that
// benchmark in interleaved rounds and prints one markdown table per view.
// Progress goes to stderr, the report to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/calgraph/calgraph/internal/calendar"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewbench:", err)
		os.Exit(1)
	}
}

// maxClients bounds -clients (the HTTP client keeps that many connections).
const maxClients = 64

// options are the command's flags, checked.
type options struct {
	before      string   // a commit to compare with; "" for none
	endpoint    string   // DynamoDB Local's endpoint
	stores      []string // the stores each binary runs on: storeDynamoDB, storeEmbedded
	storePID    int      // DynamoDB Local's process, whose CPU is measured too; 0: found from endpoint
	calendars   []int    // the data sets' sizes
	perCalendar int
	views       []view
	n           int // measured requests per view, binary and round
	rounds      int
	clients     int    // sending the measured requests at once
	keep        bool   // keep the temporary directory and the tables
	cold        bool   // servers without a view cache
	background  bool   // servers keep their background polls (-background)
	cacheBytes  int64  // -cache-bytes for servers that take it; -1: none given
	out         string // a file to write the report to as well
}

// parseOptions reads and checks the flags.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("viewbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.before, "before", "", "a commit to build and measure beside the current tree")
	stores := fs.String("store", storeDynamoDB, "comma-separated stores each binary runs on: dynamodb (DynamoDB Local at -endpoint, through a counting proxy) and embedded (the embedded default, a data directory of its own per binary; its engine's CPU is the server's); a URL is taken as -endpoint with dynamodb, as before -endpoint existed")
	fs.StringVar(&o.endpoint, "endpoint", "http://127.0.0.1:8000", "DynamoDB Local's endpoint")
	fs.IntVar(&o.storePID, "store-pid", 0, "DynamoDB Local's process id, whose CPU is measured around each binary's requests too; 0 finds the process listening on -endpoint's port (none found: its CPU is not reported)")
	calendars := fs.String("calendars", "20", "comma-separated data set sizes, in calendars (1 to 100)")
	fs.IntVar(&o.perCalendar, "entries-per-calendar", 250, "entries seeded per calendar")
	viewNames := fs.String("views", "week,agenda,members", "comma-separated views: week, agenda, members, sweep (the week view over another range each request, to fill the caches), search (one calendar each request, in turn, to fill the search indexes), create (createEntry, a write)")
	fs.IntVar(&o.n, "n", 300, "measured requests per view, binary and round")
	fs.IntVar(&o.rounds, "rounds", 5, "rounds")
	fs.IntVar(&o.clients, "clients", 1, fmt.Sprintf("concurrent clients sending the measured requests (1 to %d): with more than one, waves per view are not counted, and views/s is the throughput", maxClients))
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binaries, server logs) and the tables")
	fs.StringVar(&o.out, "out", "", "also write the report to this file")
	fs.Int64Var(&o.cacheBytes, "cache-bytes", -1, "run servers that take -cache-bytes with it (the bytes their caches hold together); -1: their default")
	fs.BoolVar(&o.background, "background", false, "keep the servers' background polls (live delivery's, reminders', webhooks') at their defaults; without it, each poll flag a binary takes is set to an hour, so that calls and waves per view are the view's own")
	fs.BoolVar(&o.cold, "cold", false, "run servers that have a view cache without it (-view-cache-bytes 0, or -view-cache-items 0 on older commits): every view reads its calendars' entries, as one does after each of its calendars changed")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var errs []error
	for _, s := range strings.Split(*calendars, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > calendar.MaxPageSize {
			errs = append(errs, fmt.Errorf("-calendars: %q is not a number from 1 to %d", s, calendar.MaxPageSize))
		}
		o.calendars = append(o.calendars, n)
	}
	for _, s := range strings.Split(*stores, ",") {
		switch s = strings.TrimSpace(s); {
		case s == storeDynamoDB || s == storeEmbedded:
		case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
			o.endpoint, s = s, storeDynamoDB
		default:
			errs = append(errs, fmt.Errorf("-store: %q is neither dynamodb, embedded nor a URL", s))
			continue
		}
		if !slices.Contains(o.stores, s) {
			o.stores = append(o.stores, s)
		}
	}
	var err error
	if o.views, err = findViews(*viewNames); err != nil {
		errs = append(errs, fmt.Errorf("-views: %w", err))
	}
	for _, f := range []struct {
		name  string
		value int
	}{{"entries-per-calendar", o.perCalendar}, {"n", o.n}, {"rounds", o.rounds}, {"clients", o.clients}} {
		if f.value < 1 {
			errs = append(errs, fmt.Errorf("-%s must be at least 1, got %d", f.name, f.value))
		}
	}
	if o.clients > maxClients {
		errs = append(errs, fmt.Errorf("-clients must be at most %d, got %d", maxClients, o.clients))
	}
	return o, errors.Join(errs...)
}

// run parses the flags, runs the benchmark and prints its report to stdout
// (and -out), its progress to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	rep, err := bench(ctx, o, stderr)
	if err != nil {
		return err
	}
	rep.command = commandLine(args)
	if err := rep.write(stdout); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	return errors.Join(rep.write(f), f.Close())
}

// commandLine is the command that reproduces this run, quoted for a shell.
func commandLine(args []string) string {
	parts := []string{"go", "run", "./internal/viewbench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
