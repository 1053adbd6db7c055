// Command calgraph serves shared calendars over GraphQL from Amazon DynamoDB.
//
//	calgraph [serve]     run the server (the default)
//	calgraph init-table  create the table and its indexes if missing
//	calgraph seed        load a small demo data set
//	calgraph token       print a dev token: -email, -name, -ttl
//	calgraph export      write every item as DynamoDB JSON lines: -o FILE (default stdout)
//	calgraph import      load DynamoDB JSON lines: -i FILE (default stdin)
//	calgraph check       read the embedded engine's file whole, finish interrupted deletions, then check
//	                     every invariant of the table: -accept-rollback
//
// Every command takes the settings of the README's configuration table, as flags
// or environment variables. This file is the only place the pieces are wired.
package main

//go:generate go run ./internal/graphgen

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // time zone validation must not depend on the host's zoneinfo

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/internal/answercache"
	"github.com/calgraph/calgraph/internal/atomicfile"
	"github.com/calgraph/calgraph/internal/auth"
	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/config"
	"github.com/calgraph/calgraph/internal/demo"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/httpapi"
	"github.com/calgraph/calgraph/internal/live"
	"github.com/calgraph/calgraph/internal/loader"
	"github.com/calgraph/calgraph/internal/memlimit"
	"github.com/calgraph/calgraph/internal/recurrence"
	"github.com/calgraph/calgraph/internal/remind"
	"github.com/calgraph/calgraph/internal/telemetry"
	"github.com/calgraph/calgraph/internal/webhook"
)

//go:embed schema.graphqls
var schemaSDL []byte

const (
	// devTokenTTL is how long a printed or minted dev token stays valid.
	devTokenTTL = 30 * 24 * time.Hour
)

// gcPercent is the garbage collector's target (GOGC) when the environment
// sets none. A request allocates a few MB that die with it while the live heap
// stays small, so Go's default of 100 collects about once per week view; 400
// cuts the collector's share of CPU several-fold (internal/viewbench/README.md) for a
// heap of five times the live data. GOGC and GOMEMLIMIT override it; without
// GOMEMLIMIT, a container's memory limit sets the runtime's soft limit to 90%
// of it (internal/memlimit), so that the collector works harder near the
// limit rather than the process being killed at it.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if limit, ok := memlimit.Container(os.ReadFile); ok {
			debug.SetMemoryLimit(memlimit.Soft(limit))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "calgraph:", err)
		os.Exit(1)
	}
}

// command is one run of a subcommand, with its flags and streams.
type command struct {
	name                     string
	email, displayName, file string
	ttl                      time.Duration
	acceptRollback           bool // open an engine file with a damaged meta page from the other
	stdin                    io.Reader
	stdout                   io.Writer
}

// run executes one command until it finishes or ctx ends (the server's graceful
// shutdown). End-to-end tests call it directly.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := command{name: "serve", stdin: stdin, stdout: stdout}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd.name, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("calgraph "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	switch cmd.name {
	case "token":
		fs.StringVar(&cmd.email, "email", "", "email of the user the token signs in")
		fs.StringVar(&cmd.displayName, "name", "", "display name carried by the token")
		fs.DurationVar(&cmd.ttl, "ttl", devTokenTTL, "how long the token stays valid")
	case "export":
		fs.StringVar(&cmd.file, "o", "-", "file to write, - for stdout")
	case "import":
		fs.StringVar(&cmd.file, "i", "-", "file to read, - for stdin")
	case "check":
		fs.BoolVar(&cmd.acceptRollback, "accept-rollback", false,
			"open an engine file one of whose two meta pages is damaged from the other, losing the commit the damaged one recorded (a copy is kept)")
	case "serve", "init-table", "seed":
	default:
		return fmt.Errorf("unknown command %q: want serve, init-table, seed, token, export, import or check", cmd.name)
	}
	cfg, err := config.Load(fs, args, getenv)
	if err != nil {
		return err
	}
	if cmd.name == "token" {
		return printToken(cfg, cmd)
	}
	if cmd.name == "serve" {
		if err := cfg.CheckAuth(); err != nil {
			return err
		}
	}
	st, err := open(ctx, cfg, newLogger(cfg, stderr), cmd)
	if err != nil {
		return err
	}
	return errors.Join(st.do(ctx, cmd), st.close())
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated by config
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(httpapi.LogHandler(h))
}

// stack is what every command but token runs on: the store and, in embedded
// mode, the engine and the data directory lock.
type stack struct {
	cfg       config.Config
	log       *slog.Logger
	metrics   *telemetry.Metrics // nil unless -metrics-addr is set
	store     *dynamo.Store
	hub       *live.Hub      // live delivery of subscriptions
	reminders *remind.Runner // the reminder schedule
	engine    *embedded.Engine
	unlock    func()
	gql       http.Handler // the GraphQL handler, inside authentication (calendar webhooks render with it)
}

// open starts what command runs on. For check, the embedded engine's file
// is read whole first: a damaged page would otherwise show as a store that
// fails, and be named as unavailable, not as corrupt.
func open(ctx context.Context, cfg config.Config, logger *slog.Logger, cmd command) (_ *stack, err error) {
	st := &stack{cfg: cfg, log: logger}
	defer func() {
		if err != nil {
			err = errors.Join(err, st.close())
		}
	}()
	endpoint := cfg.Endpoint // read through getenv, which the SDK does not see in tests
	if cfg.Store == config.StoreEmbedded {
		if endpoint, err = st.startEmbedded(embedded.Options{AcceptRollback: cmd.acceptRollback}); err != nil {
			return nil, err
		}
		if cmd.name == "check" {
			if err := st.engine.CheckFile(); err != nil {
				return nil, err
			}
		}
	}
	cc := dynamo.ClientConfig{Endpoint: endpoint, Local: cfg.LocalEndpoint(), AttemptTimeout: cfg.AttemptTimeout}
	if st.engine != nil {
		cc.Credentials = st.engine.Credentials() // the only ones it answers
	}
	if cfg.MetricsAddr != "" {
		st.metrics = telemetry.NewMetrics()
		cc.Options = append(cc.Options, st.metrics.DynamoDB())
	}
	if cfg.OTLPEndpoint != "" {
		cc.Options = append(cc.Options, telemetry.TraceDynamoDB())
	}
	db, err := dynamo.NewClient(ctx, cc)
	if err != nil {
		return nil, err
	}
	// The hub wakes on this store's commits; it reads the store.
	var hub *live.Hub
	opts := []dynamo.Option{dynamo.WithLogger(logger), dynamo.WithICalDomain(cfg.ICalDomain),
		dynamo.WithChangeRetention(cfg.ChangeRetention), dynamo.WithCommitHook(func(l []calendar.LogRef) { hub.Notify(l) }),
		dynamo.WithViewCache(cfg.ViewCacheBytes), dynamo.WithSearchIndex(cfg.SearchIndexBytes), dynamo.WithWebhookPolicy(webhook.Policy{AllowPrivate: cfg.WebhookAllowPrivate}),
		dynamo.WithAlertBody(graph.ReminderWebhookBody)}
	if clockSkew != 0 {
		opts = append(opts, dynamo.WithChangeClock(func() time.Time { return time.Now().Add(clockSkew) }))
	}
	if clockAhead != 0 {
		opts = append(opts, dynamo.WithClock(st.clock))
	}
	st.store = dynamo.New(db, cfg.Table, recurrence.Engine{}, opts...)
	hub = live.NewHub(st.store, cfg.LivePoll, logger, live.WithSweep(cfg.LiveSweep))
	st.hub = hub
	st.reminders = remind.New(st.store, cfg.ReminderPoll, st.clock, logger)
	if err := waitForStore(ctx, logger, db, cfg, cfg.CreateTable || cmd.name == "init-table"); err != nil {
		return nil, err
	}
	if st.engine != nil {
		if _, err := embedded.Upgrade(ctx, cfg.DataDir, st.store, logger); err != nil {
			return nil, err
		}
		logger.Info("embedded engine started", "file", filepath.Join(cfg.DataDir, embedded.FileName))
	}
	return st, nil
}

// startEmbedded locks the data directory and starts the engine.
func (st *stack) startEmbedded(opts embedded.Options) (endpoint string, err error) {
	if st.unlock, err = embedded.LockDir(st.cfg.DataDir); err != nil {
		return "", err
	}
	if st.engine, err = embedded.Open(st.cfg.DataDir, st.log, opts); err != nil {
		return "", err
	}
	return st.engine.URL(), nil
}

// waitForStore waits, for at most cfg.StoreWait, until DynamoDB answers (a
// missing table counts as an answer) and, with create, until the table and
// its indexes exist and are active. Under docker compose DynamoDB Local
// starts alongside calgraph, and a cold one may not answer, or not answer a
// first CreateTable within an attempt's timeout, for a minute: failures that
// are DynamoDB not answering or unreachable are retried every second, others
// (a table without its local indexes, access denied) end the wait at once.
func waitForStore(ctx context.Context, logger *slog.Logger, db *dynamodb.Client, cfg config.Config, create bool) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.StoreWait)
	defer cancel()
	where := "DynamoDB at " + cfg.Endpoint
	if cfg.Endpoint == "" {
		where = "DynamoDB"
	}
	var logged time.Time
	var answered error // the last failure that was not the wait's own deadline cutting an attempt short
	for {
		err := dynamo.Reachable(ctx, db, cfg.Table)
		if err == nil && create {
			err = dynamo.EnsureTable(ctx, db, cfg.Table) // safe to repeat: it finds what an earlier try made
		}
		if err == nil {
			return nil
		}
		if ctx.Err() == nil || answered == nil {
			answered = err
		}
		if code := calendar.ErrorCode(err); code != calendar.CodeUnavailable && code != calendar.CodeOutcomeUnknown && ctx.Err() == nil {
			return err
		}
		if time.Since(logged) >= 10*time.Second {
			logger.Warn(where+" is not ready yet; retrying", "table", cfg.Table, "store_wait", cfg.StoreWait, "err", err)
			logged = time.Now()
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) { // stopped (a signal), not given up
				return fmt.Errorf("waiting for %s: %w", where, ctx.Err())
			}
			// An attempt under way when the wait ran out fails as "did not
			// answer in time" whatever the store did before: say why the
			// attempts before it failed (a refused connection, say).
			return fmt.Errorf("%s did not become ready within %s (-store-wait): %w", where, cfg.StoreWait, answered)
		case <-time.After(time.Second):
		}
	}
}

// close stops the engine (every write it acknowledged is on disk already) and
// releases the data directory. It runs on a fresh context: the command's may
// be cancelled.
func (st *stack) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	if st.engine != nil {
		errs = append(errs, st.engine.Close(ctx))
	}
	if st.unlock != nil {
		st.unlock()
	}
	return errors.Join(errs...)
}

func (st *stack) do(ctx context.Context, cmd command) error {
	switch cmd.name {
	case "serve":
		return st.serve(ctx, cmd.stdout)
	case "init-table":
		fmt.Fprintf(cmd.stdout, "table %s is ready\n", st.cfg.Table)
	case "seed":
		created, err := demo.Seed(ctx, st.store, auth.LocalIssuer, time.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.stdout, "demo data: %d calendars created; sign in as alice with the token of: go run . token -email alice@example.com\n", created)
	case "export":
		export := func(w io.Writer) error {
			n, err := st.store.Export(ctx, w)
			st.log.Info("exported", "items", n)
			return err
		}
		if cmd.file == "-" {
			return export(cmd.stdout)
		}
		return atomicfile.Write(cmd.file, export)
	case "import":
		in := cmd.stdin
		if cmd.file != "-" {
			f, err := os.Open(cmd.file)
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		n, err := st.store.Import(ctx, in)
		st.log.Info("imported", "items", n)
		return err
	case "check":
		return check(ctx, st.store, cmd.stdout)
	}
	return nil
}

// check finishes the deletions under way, then prints every broken
// invariant of the table (Store.Check) and fails when there is one.
func check(ctx context.Context, store *dynamo.Store, out io.Writer) error {
	if _, err := store.ResumeDeletions(ctx); err != nil {
		return err
	}
	problems, err := store.Check(ctx)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(out, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the table breaks %d invariants", len(problems))
	}
	fmt.Fprintln(out, "the table is consistent")
	return nil
}

// serve runs the HTTP server until ctx ends, then drains in-flight requests.
func (st *stack) serve(ctx context.Context, stdout io.Writer) error {
	stopTracing, err := telemetry.StartTracing(ctx, st.cfg.OTLPEndpoint, st.cfg.ServiceName)
	if err != nil {
		return err
	}
	defer func() {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(flush); err != nil {
			st.log.Warn("flushing traces", "err", err)
		}
	}()
	handler, devToken, err := st.api(ctx)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", st.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", st.cfg.Addr, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		// The request deadline (httpapi.Deadline) ends a request well before
		// the write timeout would drop its connection without an answer.
		WriteTimeout: st.cfg.RequestTimeout + 30*time.Second, IdleTimeout: 2 * time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	go st.hub.Run(ctx)
	st.log.Info("caches", "cache_bytes", st.cfg.CacheBytes, "view_cache_bytes", st.cfg.ViewCacheBytes,
		"answer_cache_bytes", st.cfg.AnswerCacheBytes, "search_index_bytes", st.cfg.SearchIndexBytes)
	if st.metrics != nil {
		addr, err := st.metrics.Serve(ctx, st.cfg.MetricsAddr)
		if err != nil {
			return err
		}
		st.log.Info("metrics listener started", "addr", addr)
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", addr)
	}
	if st.cfg.DebugAddr != "" {
		debug, err := st.serveDebug()
		if err != nil {
			return err
		}
		defer debug.Close()
	}
	bgCtx, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	go st.resumeDeletions(bgCtx)
	go st.runReminders(bgCtx)
	// Webhook deliveries, posted under the same policy they were registered
	// under; stopped with the other background work, before the drain.
	go st.store.RunWebhookWorker(bgCtx, dynamo.WebhookWorker{
		Sender: webhook.NewSender(webhook.Policy{AllowPrivate: st.cfg.WebhookAllowPrivate}, webhook.DefaultTimeout), Poll: st.cfg.WebhookPoll})
	// Calendar webhooks follow the change logs; their changes are rendered
	// by the GraphQL layer as each webhook's owner.
	go st.store.RunCalendarWebhookWorker(bgCtx, dynamo.CalendarWebhookWorker{
		Sender: webhook.NewSender(webhook.Policy{AllowPrivate: st.cfg.WebhookAllowPrivate}, webhook.DefaultTimeout),
		Render: graph.WebhookChanges(st.gql), Poll: st.cfg.WebhookPoll, Sweep: st.cfg.WebhookSweep})
	printBanner(stdout, st.cfg, baseURL(ln.Addr()), devToken)
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	st.log.Info("shutting down: draining requests", "timeout", st.cfg.ShutdownTimeout)
	began := time.Now()
	stopBackground()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), st.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	// The last line: the process stopped on purpose, and nothing was cut off.
	st.log.Info("shut down: every request was answered", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// serveDebug serves the profiler and runtime counters on their own listener
// (the debug-addr setting), so they never share the API's address.
func (st *stack) serveDebug() (*http.Server, error) {
	ln, err := net.Listen("tcp", st.cfg.DebugAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", st.cfg.DebugAddr, err)
	}
	srv := &http.Server{Handler: httpapi.DebugHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	st.log.Info("debug listener started", "addr", ln.Addr().String())
	return srv, nil
}

// resumeDeletionsEvery is how often the server looks for deletions a stopped
// process left halfway.
const resumeDeletionsEvery = 5 * time.Minute

// resumeDeletions finishes, now and then every resumeDeletionsEvery until
// ctx ends, the deletions of calendars and accounts, and the series splits
// made in steps, that were cut off.
func (st *stack) resumeDeletions(ctx context.Context) {
	for {
		n, err := st.store.ResumeDeletions(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			st.log.Error("resuming deletions", "err", err)
		case n > 0:
			st.log.Info("resumed deletions", "finished", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(resumeDeletionsEvery):
		}
	}
}

// runReminders puts on the schedule the entries of a table written before
// reminders fired (once per table), then runs the schedule until ctx ends.
func (st *stack) runReminders(ctx context.Context) {
	n, err := st.store.ScheduleUnscheduled(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		st.log.Error("putting earlier entries on the reminder schedule (tried again at the next start)", "err", err)
	case n > 0:
		st.log.Info("put earlier entries on the reminder schedule", "entries", n)
	}
	st.reminders.Run(ctx)
}

// clockAhead, set only by tests (in a child process of their own: see
// TestRemindersAcrossServers), runs the clock of this process's writes and
// reminders that far ahead (change records keep the real clock), so that
// a test lives through a DST change.
var clockAhead time.Duration

// clock is the time as this process's writes and reminders read it.
func (st *stack) clock() time.Time { return time.Now().UTC().Add(clockAhead) }

// clockSkew, set only by tests (in a child process of their own: see
// TestTwoServersSyncExactly), puts this process's clock off by that much
// for the positions of change records.
var clockSkew time.Duration

// api assembles the HTTP handler; with dev tokens it also mints the one to print.
func (st *stack) api(ctx context.Context) (http.Handler, string, error) {
	verifier, devSecret, err := newVerifier(ctx, st.cfg)
	if err != nil {
		return nil, "", err
	}
	authn := auth.NewAuthenticator(verifier, st.store, st.log)
	opts := graph.Options{MaxBodyBytes: st.cfg.MaxBodyBytes, PublicURL: st.cfg.PublicURL,
		MaxEntries: st.cfg.MaxEntries, MaxResponseBytes: st.cfg.MaxResponseSize,
		ForgetIdentity: authn.Forget,
		Live:           &graph.LiveOptions{Hub: st.hub, Authenticate: authn.Authenticate, AllowedOrigins: st.cfg.CORSOrigins, Shutdown: ctx},
		NewLoaders: func(scope calendar.ReadScope) *loader.Loaders {
			return loader.New(st.store, recurrence.Engine{}, scope)
		}}
	if st.cfg.OTLPEndpoint != "" {
		opts.Extensions = append(opts.Extensions, telemetry.TraceGraphQL())
	}
	gql := graph.NewHandler(st.store, st.log, opts)
	st.gql = gql
	edge := httpapi.Config{AllowedOrigins: st.cfg.CORSOrigins, CORSHeaders: st.cfg.CORSHeaders, SDL: graph.SDL(schemaSDL),
		Feeds: httpapi.Deadline(st.cfg.RequestTimeout, httpapi.FeedHandler(st.store, recurrence.Engine{}, time.Now, st.log))}
	var devToken string
	if devSecret != nil {
		if devToken, err = auth.Mint(devSecret, st.cfg.DevEmail, "", time.Now(), devTokenTTL); err != nil {
			return nil, "", err
		}
		edge.GraphiQLHeaders = map[string]string{"Authorization": "Bearer " + devToken}
	}
	answers := answercache.New(st.store, st.cfg.AnswerCacheBytes)
	api := httpapi.Deadline(st.cfg.RequestTimeout, authn.Middleware(answers.Middleware(gql)))
	if st.metrics != nil {
		api = st.metrics.GraphQL(api)
	}
	if st.metrics != nil {
		st.metrics.GaugeFunc("calgraph_live_subscriptions", "Subscriptions running on this instance.",
			func() float64 { return float64(st.hub.Subscriptions()) })
		st.metrics.GaugeFunc("calgraph_live_logs_followed", "Change logs this instance follows for its subscriptions (each read when the recent writes name it, and by the sweep every -live-sweep or more).",
			func() float64 { return float64(st.hub.Feeds()) })
		st.metrics.CounterFunc("calgraph_live_log_reads_total", "Pages of change logs this instance read for live delivery.",
			func() float64 { return float64(st.hub.Stats().Reads) })
		st.metrics.CounterFunc("calgraph_live_sweep_found_total", "Reads by the sweep alone that found changes: hints in the recent writes lost, late, or never left (each such change came up to -live-sweep late).",
			func() float64 { return float64(st.hub.Stats().SweepFound) })
		st.metrics.GaugeFunc("calgraph_live_recent_writes_failing", "1 while the recent writes (GSI4) cannot be read: live delivery reads every followed log each poll.",
			func() float64 {
				if st.hub.Stats().RecentWritesFailing {
					return 1
				}
				return 0
			})
		st.metrics.CounterFunc("calgraph_reminder_tasks_total", "Tasks of the reminder schedule this instance did: entries armed, reminders fired or dropped as no longer due, snoozes run out.",
			func() float64 { return float64(st.reminders.Stats().Done) })
		st.metrics.CounterFunc("calgraph_reminder_task_failures_total", "Tasks of the reminder schedule that failed on this instance (each is tried again at the next poll).",
			func() float64 { return float64(st.reminders.Stats().Failed) })
		views := func(f func(dynamo.ViewCacheStats) int64) func() float64 {
			return func() float64 { return float64(f(st.store.ViewCacheStats())) }
		}
		st.metrics.CounterFunc("calgraph_view_cache_hits_total", "Range reads and member pages answered from this instance's view cache.",
			views(func(s dynamo.ViewCacheStats) int64 { return s.Hits }))
		st.metrics.CounterFunc("calgraph_view_cache_misses_total", "Range reads and member pages the view cache could have answered but did not hold (read from DynamoDB).",
			views(func(s dynamo.ViewCacheStats) int64 { return s.Misses }))
		st.metrics.GaugeFunc("calgraph_view_cache_items", "Entries and memberships held in this instance's view cache.",
			views(func(s dynamo.ViewCacheStats) int64 { return int64(s.Items) }))
		st.metrics.GaugeFunc("calgraph_view_cache_bytes", "Bytes the entries and memberships held in this instance's view cache take, as -view-cache-bytes bounds them.",
			views(func(s dynamo.ViewCacheStats) int64 { return int64(s.Bytes) }))
		st.answerMetrics(answers)
		searches := func(f func(dynamo.SearchIndexStats) int64) func() float64 {
			return func() float64 { return float64(f(st.store.SearchIndexStats())) }
		}
		st.metrics.CounterFunc("calgraph_search_index_builds_total", "Calendars a search read whole to build their index on this instance.",
			searches(func(s dynamo.SearchIndexStats) int64 { return s.Builds }))
		st.metrics.CounterFunc("calgraph_search_index_catchups_total", "Calendar indexes a search caught up from their change log on this instance.",
			searches(func(s dynamo.SearchIndexStats) int64 { return s.CatchUps }))
		st.metrics.GaugeFunc("calgraph_search_index_bytes", "About how many bytes this instance's search indexes hold (-search-index-bytes at most).",
			searches(func(s dynamo.SearchIndexStats) int64 { return int64(s.Bytes) }))
	}
	handler := httpapi.New(edge, api, st.store.Ping, st.log)
	if st.metrics != nil {
		handler = st.metrics.InFlight(handler)
	}
	if st.cfg.OTLPEndpoint != "" {
		handler = telemetry.TraceHTTP(handler)
	}
	return handler, devToken, nil
}

// newVerifier builds the token verifier. With dev tokens it also returns the
// local signing secret.
func newVerifier(ctx context.Context, cfg config.Config) (*auth.Verifier, []byte, error) {
	ac := auth.Config{HMACSecret: []byte(cfg.JWTSecret), JWKSURL: cfg.JWKSURL, Issuer: cfg.JWTIssuer, Audience: cfg.JWTAudience}
	var secret []byte
	if cfg.DevTokens {
		var err error
		if secret, err = auth.LoadOrCreateSecret(cfg.DevKeyPath()); err != nil {
			return nil, nil, err
		}
		ac = auth.Config{HMACSecret: secret, Issuer: auth.LocalIssuer, Audience: auth.LocalAudience}
	}
	v, err := auth.NewVerifier(ctx, ac)
	return v, secret, err
}

func printToken(cfg config.Config, cmd command) error {
	if !cfg.DevTokens {
		return errors.New("dev tokens are off (CALGRAPH_DEV_TOKENS); mint tokens with your identity provider")
	}
	if cmd.email == "" {
		return errors.New("token needs -email")
	}
	secret, err := auth.LoadOrCreateSecret(cfg.DevKeyPath())
	if err != nil {
		return err
	}
	tok, err := auth.Mint(secret, cmd.email, cmd.displayName, time.Now(), cmd.ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.stdout, tok)
	return nil
}

// baseURL is the URL to print for a listener: a wildcard address is reachable
// as localhost.
func baseURL(addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func printBanner(w io.Writer, cfg config.Config, url, devToken string) {
	where := "DynamoDB at " + cfg.Endpoint
	if cfg.Store == config.StoreEmbedded {
		where = "embedded DynamoDB, data in " + cfg.DataDir
	} else if cfg.Endpoint == "" {
		where = "DynamoDB (AWS)"
	}
	fmt.Fprintf(w, "calgraph listening on %s (%s, table %s)\n", url, where, cfg.Table)
	fmt.Fprintf(w, "  GraphiQL:  %s/\n  endpoint:  %s/query\n  schema:    %s/schema.graphql\n", url, url, url)
	if devToken == "" {
		return
	}
	fmt.Fprintf(w, "\nDev token for %s (valid 30 days; GraphiQL has it pre-filled):\n  Authorization: Bearer %s\n",
		cfg.DevEmail, devToken)
	dataDir := ""
	if cfg.DataDir != "calgraph-data" {
		dataDir = " -data-dir " + cfg.DataDir
	}
	fmt.Fprintf(w, "Tokens for other users: go run . token%s -email bob@example.com\n", dataDir)
}

// answerMetrics registers the answer cache's metrics (a nil cache counts
// nothing).
func (st *stack) answerMetrics(answers *answercache.Cache) {
	st.metrics.CounterFunc("calgraph_answer_cache_hits_total", "Queries answered from this instance's answer cache after checking that nothing they read changed.",
		func() float64 { return float64(answers.Stats().Hits) })
	st.metrics.CounterFuncByLabel("calgraph_answer_cache_misses_total", "Queries the answer cache did not answer, by why: absent (not held), changed (something read changed), or why the answer could not be kept (clock, write, not_a_clean_query, …).",
		"reason", func() map[string]float64 {
			out := map[string]float64{}
			for reason, n := range answers.Stats().Misses {
				out[reason] = float64(n)
			}
			return out
		})
	st.metrics.GaugeFunc("calgraph_answer_cache_bytes", "Bytes the answer cache holds: answers, their compressed copies and read sets (-answer-cache-bytes at most).",
		func() float64 { return float64(answers.Stats().Bytes) })
}
