// Command calgraph serves shared calendars over GraphQL from Amazon DynamoDB.
//
//	calgraph [serve]     run the server (the default)
//	calgraph init-table  create the table and its indexes if missing
//	calgraph seed        load a small demo data set
//	calgraph token       print a dev token: -email, -name, -ttl
//	calgraph export      write every item as DynamoDB JSON lines: -o FILE (default stdout)
//	calgraph import      load DynamoDB JSON lines: -i FILE (default stdin)
//
// Every command takes the settings of the README's configuration table, as flags
// or environment variables. This file is the only place the pieces are wired.
package main

//go:generate go tool gqlgen generate

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
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // time zone validation must not depend on the host's zoneinfo

	"github.com/calgraph/calgraph/graph"
	"github.com/calgraph/calgraph/internal/auth"
	"github.com/calgraph/calgraph/internal/config"
	"github.com/calgraph/calgraph/internal/demo"
	"github.com/calgraph/calgraph/internal/dynamo"
	"github.com/calgraph/calgraph/internal/embedded"
	"github.com/calgraph/calgraph/internal/httpapi"
	"github.com/calgraph/calgraph/internal/loader"
)

//go:embed schema.graphqls
var schemaSDL []byte

// devTokenTTL is how long a printed or minted dev token stays valid.
const devTokenTTL = 30 * 24 * time.Hour

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "calgraph:", err)
		os.Exit(1)
	}
}

// options are the flags of individual commands.
type options struct {
	email, name, file string
	ttl               time.Duration
}

// run executes one command until it finishes or ctx ends (the server's graceful
// shutdown). End-to-end tests call it directly.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("calgraph "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt options
	switch cmd {
	case "token":
		fs.StringVar(&opt.email, "email", "", "email of the user the token signs in")
		fs.StringVar(&opt.name, "name", "", "display name carried by the token")
		fs.DurationVar(&opt.ttl, "ttl", devTokenTTL, "how long the token stays valid")
	case "export":
		fs.StringVar(&opt.file, "o", "-", "file to write, - for stdout")
	case "import":
		fs.StringVar(&opt.file, "i", "-", "file to read, - for stdin")
	case "serve", "init-table", "seed":
	default:
		return fmt.Errorf("unknown command %q: want serve, init-table, seed, token, export or import", cmd)
	}
	cfg, err := config.Load(fs, args, getenv)
	if err != nil {
		return err
	}
	logger := newLogger(cfg, stderr)
	if cmd == "token" {
		return printToken(cfg, opt, stdout)
	}
	st, err := open(ctx, cfg, logger, cmd == "init-table")
	if err != nil {
		return err
	}
	err = st.do(ctx, cmd, opt, stdout)
	return errors.Join(err, st.close())
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
// mode, the engine, the data directory lock and the snapshotter.
type stack struct {
	cfg    config.Config
	log    *slog.Logger
	store  *dynamo.Store
	engine *embedded.Engine
	snaps  *embedded.Snapshotter
	unlock func()
}

func open(ctx context.Context, cfg config.Config, logger *slog.Logger, createTable bool) (_ *stack, err error) {
	st := &stack{cfg: cfg, log: logger}
	defer func() {
		if err != nil {
			err = errors.Join(err, st.close())
		}
	}()
	endpoint := cfg.Endpoint // read through getenv, which the SDK does not see in tests
	if cfg.Store == config.StoreEmbedded {
		if st.unlock, err = embedded.LockDir(cfg.DataDir); err != nil {
			return nil, err
		}
		if st.engine, err = embedded.Start(logger); err != nil {
			return nil, err
		}
		endpoint = st.engine.URL()
	}
	db, err := dynamo.NewClient(ctx, dynamo.ClientConfig{Endpoint: endpoint, Local: cfg.LocalEndpoint()})
	if err != nil {
		return nil, err
	}
	st.store = dynamo.New(db, cfg.Table, dynamo.WithLogger(logger))
	prepare := st.store.Ping
	if cfg.CreateTable || createTable {
		prepare = func(ctx context.Context) error { return dynamo.EnsureTable(ctx, db, cfg.Table) }
	}
	if err := waitForStore(ctx, logger, prepare); err != nil {
		return nil, err
	}
	if st.engine != nil {
		n, err := embedded.Load(ctx, cfg.SnapshotPath(), st.store)
		if err != nil {
			return nil, err
		}
		logger.Info("embedded engine started", "snapshot", cfg.SnapshotPath(), "items", n)
		st.snaps = embedded.NewSnapshotter(cfg.SnapshotPath(), st.store, logger)
		if err := st.snaps.Baseline(ctx); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// storeWait is how long start-up waits for DynamoDB to answer: under docker
// compose, DynamoDB Local starts alongside calgraph.
const storeWait = time.Minute

// waitForStore runs prepare until it succeeds, retrying every second for up to
// storeWait.
func waitForStore(ctx context.Context, logger *slog.Logger, prepare func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	for {
		err := prepare(ctx)
		if err == nil {
			return nil
		}
		logger.Warn("DynamoDB is not ready yet; retrying", "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("DynamoDB not ready after %s: %w", storeWait, err)
		case <-time.After(time.Second):
		}
	}
}

// close writes the final snapshot, stops the engine and releases the data
// directory. It runs on a fresh context: the command's may be cancelled.
func (st *stack) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	if st.snaps != nil {
		saved, n, err := st.snaps.Save(ctx)
		errs = append(errs, err)
		if saved {
			st.log.Info("snapshot written", "path", st.cfg.SnapshotPath(), "items", n)
		}
	}
	if st.engine != nil {
		errs = append(errs, st.engine.Close(ctx))
	}
	if st.unlock != nil {
		st.unlock()
	}
	return errors.Join(errs...)
}

func (st *stack) do(ctx context.Context, cmd string, opt options, stdout io.Writer) error {
	switch cmd {
	case "serve":
		return st.serve(ctx, stdout)
	case "init-table":
		fmt.Fprintf(stdout, "table %s is ready\n", st.cfg.Table)
	case "seed":
		created, err := demo.Seed(ctx, st.store, auth.LocalIssuer)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "demo data %s; sign in with: calgraph token -email alice@example.com\n",
			map[bool]string{true: "created", false: "already present"}[created])
	case "export":
		return withFile(opt.file, os.Stdout, os.Create, func(f io.ReadWriter) error {
			n, err := st.store.Export(ctx, f)
			st.log.Info("exported", "items", n)
			return err
		})
	case "import":
		return withFile(opt.file, os.Stdin, os.Open, func(f io.ReadWriter) error {
			n, err := st.store.Import(ctx, f)
			st.log.Info("imported", "items", n)
			return err
		})
	}
	return nil
}

// withFile runs fn on the named file, or on std for "-".
func withFile(name string, std *os.File, openFile func(string) (*os.File, error), fn func(io.ReadWriter) error) error {
	if name == "-" {
		return fn(std)
	}
	f, err := openFile(name)
	if err != nil {
		return err
	}
	return errors.Join(fn(f), f.Close())
}

// serve runs the HTTP server until ctx ends, then drains in-flight requests.
func (st *stack) serve(ctx context.Context, stdout io.Writer) error {
	verifier, devSecret, err := newVerifier(ctx, st.cfg)
	if err != nil {
		return err
	}
	authn := auth.NewAuthenticator(verifier, st.store, st.log)
	api := loader.Middleware(st.store, authn.Middleware(graph.NewHandler(st.store, st.log)))
	edge := httpapi.Config{AllowedOrigins: st.cfg.CORSOrigins, MaxBodyBytes: st.cfg.MaxBodyBytes, SDL: schemaSDL}
	var devToken string
	if devSecret != nil {
		if devToken, err = auth.Mint(devSecret, st.cfg.DevEmail, "", time.Now(), devTokenTTL); err != nil {
			return err
		}
		edge.GraphiQLHeaders = map[string]string{"Authorization": "Bearer " + devToken}
	}
	ln, err := net.Listen("tcp", st.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", st.cfg.Addr, err)
	}
	srv := &http.Server{
		Handler:           httpapi.New(edge, api, st.store.Ping, st.log),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	snapCtx, stopSnaps := context.WithCancel(context.Background())
	defer stopSnaps()
	if st.snaps != nil {
		go st.snaps.Run(snapCtx, st.cfg.SnapshotInterval)
	}
	printBanner(stdout, st.cfg, baseURL(ln.Addr()), devToken)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	st.log.Info("shutting down: draining requests", "timeout", st.cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), st.cfg.ShutdownTimeout)
	defer cancel()
	stopSnaps()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	return nil
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

func printToken(cfg config.Config, opt options, stdout io.Writer) error {
	if !cfg.DevTokens {
		return errors.New("dev tokens are off (CALGRAPH_DEV_TOKENS); mint tokens with your identity provider")
	}
	if opt.email == "" {
		return errors.New("token needs -email")
	}
	secret, err := auth.LoadOrCreateSecret(cfg.DevKeyPath())
	if err != nil {
		return err
	}
	tok, err := auth.Mint(secret, opt.email, opt.name, time.Now(), opt.ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
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
	if devToken != "" {
		fmt.Fprintf(w, "\nDev token for %s (valid %s; GraphiQL has it pre-filled):\n  Authorization: Bearer %s\n",
			cfg.DevEmail, "30 days", devToken)
		fmt.Fprintf(w, "Other users: go run . token -email bob@example.com   Demo data: go run . seed (server stopped)\n")
	}
}
