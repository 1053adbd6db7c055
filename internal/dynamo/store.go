package dynamo

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ddbread"
	"github.com/calgraph/calgraph/internal/webhook"
)

// Store implements calendar.Service on one DynamoDB table.
type Store struct {
	db         *dynamodb.Client
	reads      reader
	table      string
	now        func() time.Time
	newID      func() string
	log        *slog.Logger
	icalDomain string
	recur      calendar.RecurrenceEngine
	// alertBody renders reminders' webhook deliveries (remind_webhook.go).
	alertBody AlertBody
	// hooks is which addresses webhooks may be registered for.
	hooks webhook.Policy

	// maxSeriesActions is how many actions a change of a series puts in one
	// transaction (write.Size, all included); larger changes take three
	// steps (see applySeriesEdit). DynamoDB's limit, but in tests.
	maxSeriesActions int
	// trashBudget is the most a trash item or part holds, in bytes
	// (trash_records.go): trashItemBudget, but in tests.
	trashBudget int

	// clock positions change records; retention is how long they are kept;
	// onCommit is told of each write that added some (changes.go).
	clock     *storeClock
	retention time.Duration
	onCommit  func(logs []calendar.LogRef)
	// noChangeRecords (benchmarks only) writes none, to measure their cost.
	noChangeRecords bool
	// noWriteHints leaves GSI4PK off change records (WithoutWriteHints).
	noWriteHints bool

	// views holds recent range reads and member pages by calendar revision
	// (viewcache.go); nil when off.
	views *viewCache
	// searches holds the search indexes of recently searched calendars
	// (search_index.go).
	searches *searchIndexes

	// beforeTransact, when set (only by tests), runs just before each
	// transaction is sent: the gap between a write's read and its transaction
	// where a concurrent change can slip in.
	beforeTransact func(ctx context.Context)
	// onWrite, when set (only by tests), is given the Plan of each write
	// commit sends as a transaction.
	onWrite func(plan []string)
	// splitHook, when set (only by tests), runs after each step of a split
	// made in steps (series_split.go); an error stops the split there, as
	// if its process had stopped.
	splitHook func(step string) error
}

var (
	_ calendar.Service       = (*Store)(nil)
	_ calendar.SeriesService = (*Store)(nil)
	_ calendar.SeriesReader  = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for timestamps (tests inject a fixed one).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithIDs sets the ID generator (tests inject a deterministic one).
func WithIDs(newID func() string) Option { return func(s *Store) { s.newID = newID } }

// WithICalDomain sets the domain of new entries' iCalendar UIDs
// ("<id>@<domain>"); existing UIDs never change.
func WithICalDomain(domain string) Option { return func(s *Store) { s.icalDomain = domain } }

// WithLogger sets where the store reports work it finishes after answering, such
// as removing a deleted calendar's memberships.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// DefaultViewCacheBytes is how many bytes of entries and memberships a
// store's view cache holds unless WithViewCache says otherwise: an entry like
// the benchmark's takes about 1 KB, so some 60,000 entries, the weeks of
// some 12,000 calendars of the benchmark's data (about 5 entries per
// calendar and week). See docs/design.md, "The view cache", for what the
// process takes with a full cache.
const DefaultViewCacheBytes = 64 << 20

// WithViewCache sets how many bytes of entries and memberships the view
// cache holds (viewcache.go, viewcache_size.go); 0 turns it off.
func WithViewCache(bytes int) Option { return func(s *Store) { s.views = newViewCache(bytes) } }

// New returns a Store on the named table, expanding series with eng. IDs
// default to UUIDv7, which sort by creation time, so lists ordered by ID are
// ordered by age.
func New(db *dynamodb.Client, table string, eng calendar.RecurrenceEngine, opts ...Option) *Store {
	s := &Store{
		db:    db,
		table: table,
		now:   func() time.Time { return time.Now().UTC() },
		newID: func() string { return uuid.Must(uuid.NewV7()).String() },
		log:   slog.Default(),

		icalDomain: "calgraph.local",
		recur:      eng,

		maxSeriesActions: maxTxActions,
		trashBudget:      trashItemBudget,
		clock:            newStoreClock(time.Now),
		retention:        calendar.DefaultChangeRetention,
		views:            newViewCache(DefaultViewCacheBytes),
		searches:         newSearchIndexes(DefaultSearchIndexBytes),
	}
	for _, o := range opts {
		o(s)
	}
	db = dynamodb.New(observingDates(db, s.clock).Options(), recordReads) // readset.go
	s.db = db
	s.reads = db
	if lean, err := ddbread.New(context.Background(), db); err == nil {
		s.reads = lean
	} else {
		s.log.Warn("reads go through the SDK client", "err", err)
	}
	return s
}

// reader is the read calls of a view's path. They go through ddbread, which
// makes them at a fraction of the SDK's CPU, unless it could not resolve the
// endpoint (then the SDK client makes them, and fails them the same way).
type reader interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Table returns the table name.
func (s *Store) Table() string { return s.table }

// Ping checks that the table is reachable, for readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)}); err != nil {
		return fmt.Errorf("describe table %s: %w", s.table, err)
	}
	return nil
}

// timestamp returns the current time at millisecond precision, so that what is
// stored and what is returned compare equal.
func (s *Store) timestamp() time.Time { return s.now().UTC().Truncate(time.Millisecond) }
