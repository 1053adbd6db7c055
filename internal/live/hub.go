// Package live delivers calendars' changes to subscribers as they happen,
// across server instances sharing one table.
//
// How: each instance runs one Hub. The Hub follows the change log of every
// calendar (and, for subscriptions that follow a viewer's whole list, every
// user's calendar-list log) that at least one of its subscribers follows,
// with a sync token of its own. It reads a log again when this instance
// commits a change to it (the store's commit hook: delivery at once), and
// when the store's recent writes, read every poll interval, name it (other
// instances' changes: delivery within the interval plus one read). Each
// read's changes go to every subscriber of the log; each subscription
// (Follow) then decides what its viewer may see. A read holds the changed
// objects and the calendar, and a delivery carries them with the viewer's
// membership the subscription follows in the log and a Shared value common
// to every delivery of the read: whoever shows the deliveries reads nothing
// per subscriber that the read holds, and the rest once per read. A
// subscription that resumes from tokens catches up by itself first
// (resume.go).
//
// The recent writes are a hint (calendar.WriteWatch), which may come late
// or never: the Hub also sweeps, reading again each log it follows once a
// sweep interval (30 s by default) has passed since its last read, the
// longest unread first, at most maxSweepPerPoll logs a poll. So a change
// whose hint is lost still comes, later: a log is always read from its
// token, whatever made the Hub read it. When the recent writes cannot be
// read (a table without their index), the Hub reads every followed log
// every poll, as before the index existed.
//
// Cost, per instance and poll interval (0.5 s by default), while nothing is
// written: the store's recent-writes read (4 Queries of 0.5 RCU) and at most
// maxSweepPerPoll strongly consistent Queries of the sweep (1 RCU each
// while the log's last 30 s of records fit in 4 KB), whatever the number of
// logs followed. Past maxSweepPerPoll × sweep/poll logs (480 by default), a
// log whose hint was lost waits longer for the sweep: followed × poll /
// maxSweepPerPoll (about a minute for 1,000 logs). Writes add one
// Query per written log that is followed, plus one BatchGetItem (and a
// Query per series) per read that finds changes, whatever the number of
// subscribers.
package live

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Source is what the Hub reads: the store.
type Source interface {
	calendar.SyncService
	Read(ctx context.Context, k calendar.Keys) (*calendar.Items, error)
	AllMembershipsOfUser(ctx context.Context, userID string, max int) ([]*calendar.Membership, error)
	InvitedEntries(ctx context.Context, userID string, max int) ([]calendar.EntryKey, error)
	// InvitedToken is the token of an INVITATION delivery: the user's log
	// read to userToken, each calendar of calendarTokens to its token.
	InvitedToken(userID, userToken string, calendarTokens map[string]string) (string, error)
	// InvitedResume checks a token to resume INVITATION deliveries from
	// and returns where to read a calendar's log from (CodeBadUserInput,
	// CodeSyncTokenExpired).
	InvitedResume(userID, token string) (func(calendarID string) string, error)
	// WatchWrites returns a watch of the logs written through any instance.
	WatchWrites() calendar.WriteWatch
}

// Defaults of a Hub.
const (
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultSweepInterval is how often, at most, the Hub reads every log it
	// follows whether or not the recent writes named it.
	DefaultSweepInterval = 30 * time.Second
	// feedBuffer is how many reads a subscriber may fall behind before it is
	// dropped as too slow.
	feedBuffer = 64
	// readsAtOnce bounds the logs a Hub reads concurrently.
	readsAtOnce = 16
	// maxPagesPerRead bounds the pages one read of a log takes before the
	// next round.
	maxPagesPerRead = 10
)

// Hub follows change logs for the subscriptions of one instance.
type Hub struct {
	src   Source
	poll  time.Duration
	sweep time.Duration
	now   func() time.Time
	log   *slog.Logger
	// watchFailed is whether the last read of the recent writes failed
	// (written by Run's goroutine only: a failure is logged once; read by
	// Stats).
	watchFailed atomic.Bool

	mu    sync.Mutex
	feeds map[FeedKey]*feed
	wake  chan struct{}

	subscriptions atomic.Int64 // running
	reads         atomic.Int64 // pages of logs read
	sweepFound    atomic.Int64 // reads by the sweep alone that found changes
}

// Stats is what a Hub has done, for metrics.
type Stats struct {
	// Reads is how many pages of change logs the Hub has read.
	Reads int64
	// SweepFound is how many reads the sweep alone asked for (no hint in the
	// recent writes, no write through this instance) found changes: hints
	// lost, late by more than the recent writes' read window, or not left
	// (writers of a version before the index). Each such change reached its
	// subscribers up to a sweep interval late.
	SweepFound int64
	// RecentWritesFailing is whether the last read of the recent writes
	// failed (the Hub reads every followed log each poll meanwhile).
	RecentWritesFailing bool
}

// Stats returns what the Hub has done so far.
func (h *Hub) Stats() Stats {
	return Stats{Reads: h.reads.Load(), SweepFound: h.sweepFound.Load(), RecentWritesFailing: h.watchFailed.Load()}
}

// FeedKey names a log: a calendar's, or with User a user's calendar list.
type FeedKey = calendar.LogRef

// feed is one followed log.
type feed struct {
	key   FeedKey
	token string
	subs  map[*subscriber]bool
	dirty bool      // to be read: written since the last read, or swept
	swept bool      // dirty for the sweep alone
	read  time.Time // when its last read began (the sweep reads the oldest)

	// reading is held by each read of the Hub's (readPage, from its Query
	// until its subscribers have it) and shared by the reads subscribers
	// make of the log themselves while they catch up (Hub.beside): a read of
	// the Hub's and one of a subscriber's never overlap, so the later finds
	// every object at least as new as the earlier did (resume.go).
	reading sync.RWMutex
}

// batch is one read of a log, as a subscriber receives it.
type batch struct {
	feed     FeedKey
	calendar []calendar.ObjectChange
	cal      *calendar.Calendar // the calendar as the read found it
	list     []calendar.CalendarListChange
	// invitations are the user's invitation changes (a user's log only).
	invitations []calendar.InvitationChange
	// alerts are the user's alerts the read found (a user's log only).
	alerts []*calendar.Alert
	token  string
	shared *Shared
}

// NewHub returns a Hub reading src's recent writes every poll
// (DefaultPollInterval if zero).
func NewHub(src Source, poll time.Duration, log *slog.Logger, opts ...Option) *Hub {
	if poll <= 0 {
		poll = DefaultPollInterval
	}
	if log == nil {
		log = slog.Default()
	}
	h := &Hub{src: src, poll: poll, sweep: DefaultSweepInterval, now: time.Now, log: log,
		feeds: map[FeedKey]*feed{}, wake: make(chan struct{}, 1)}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Notify tells the Hub that this instance wrote to logs (the store's commit
// hook): their feeds are read at once.
func (h *Hub) Notify(logs []calendar.LogRef) {
	h.mu.Lock()
	woke := false
	for _, l := range logs {
		if f := h.feeds[l]; f != nil {
			f.dirty, f.swept, woke = true, false, true
		}
	}
	h.mu.Unlock()
	if woke {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// Run reads the followed logs until ctx ends: the dirty ones when woken,
// and every poll interval those the recent writes name and the sweep's.
func (h *Hub) Run(ctx context.Context) {
	watch := h.src.WatchWrites()
	tick := time.NewTicker(h.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			h.round(ctx, !h.due(ctx, watch))
		case <-h.wake:
			h.round(ctx, true)
		}
	}
}

// round reads the followed logs (only the dirty ones if dirtyOnly).
func (h *Hub) round(ctx context.Context, dirtyOnly bool) {
	h.mu.Lock()
	type dueRead struct {
		f     *feed
		swept bool // asked for by the sweep alone
	}
	var due []dueRead
	now := h.now()
	for _, f := range h.feeds {
		if f.dirty || !dirtyOnly {
			due = append(due, dueRead{f, f.swept && dirtyOnly})
			f.dirty, f.swept, f.read = false, false, now
		}
	}
	h.mu.Unlock()
	g := errgroup.Group{}
	g.SetLimit(readsAtOnce)
	for _, d := range due {
		g.Go(func() error {
			h.read(ctx, d.f, d.swept)
			return nil
		})
	}
	_ = g.Wait()
}

// read reads one feed's log from its token and hands what it finds to its
// subscribers; swept is whether the sweep alone asked for it. A failure is
// logged and left to the next round.
func (h *Hub) read(ctx context.Context, f *feed, swept bool) {
	for range maxPagesPerRead {
		more, found, err := h.readPage(ctx, f)
		if err != nil {
			h.failed(ctx, f, err)
			return
		}
		if found && swept {
			h.sweepFound.Add(1)
			swept = false // counted once per read
		}
		if !more {
			return
		}
	}
}

// readPage reads a page of f's log from its token and hands it to f's
// subscribers, holding f.reading throughout: one read of the log made for
// all of them, its objects and its calendar shared (batch.shared too).
func (h *Hub) readPage(ctx context.Context, f *feed) (more, found bool, err error) {
	f.reading.Lock()
	defer f.reading.Unlock()
	h.reads.Add(1)
	h.mu.Lock()
	token := f.token
	h.mu.Unlock()
	b := batch{feed: f.key, shared: &Shared{}}
	if f.key.User {
		p, err := h.src.UserLogChanges(ctx, f.key.ID, token, calendar.MaxChangePage)
		if err != nil {
			return false, false, err
		}
		b.list, b.invitations, b.alerts, b.token, more = p.Changes, p.Invitations, p.Alerts, p.Token, p.More
	} else {
		p, err := h.src.LogChanges(ctx, f.key.ID, token, calendar.MaxChangePage)
		if err != nil {
			return false, false, err
		}
		b.calendar, b.cal, b.token, more = p.Changes, p.Calendar, p.Token, p.More
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	f.token = b.token
	found = len(b.calendar)+len(b.list)+len(b.invitations)+len(b.alerts) > 0
	for s := range f.subs {
		if found {
			s.hand(b)
		} else {
			s.handQuiet(b)
		}
	}
	return more, found, nil
}

// failed logs a failed read; an expired token (the instance could not read
// for longer than the retention) starts the feed again from now.
func (h *Hub) failed(ctx context.Context, f *feed, err error) {
	if ctx.Err() != nil {
		return
	}
	h.log.WarnContext(ctx, "reading a change log for live delivery (retried next round)", "feed", f.key.ID, "user", f.key.User, "err", err)
	if calendar.ErrorCode(err) == calendar.CodeSyncTokenExpired {
		h.mu.Lock()
		f.token = h.src.HeadToken(f.key.ID, f.key.User)
		h.mu.Unlock()
	}
}

// join adds s to the feeds of keys and returns each feed's token as s
// joined it: s gets every read after it. A new feed starts from now
// (StartToken): changes made before the subscription are not sent.
func (h *Hub) join(ctx context.Context, s *subscriber, keys ...FeedKey) []string {
	tokens := make([]string, len(keys))
	for i, k := range keys {
		h.mu.Lock()
		f := h.feeds[k]
		if f != nil {
			f.subs[s], tokens[i] = true, f.token
		}
		h.mu.Unlock()
		if f != nil {
			continue
		}
		token := h.startToken(ctx, k)
		h.mu.Lock()
		if f = h.feeds[k]; f == nil {
			f = &feed{key: k, token: token, subs: map[*subscriber]bool{}}
			h.feeds[k] = f
		}
		f.subs[s], tokens[i] = true, f.token
		h.mu.Unlock()
	}
	return tokens
}

// startToken is a token of k's log at the present moment; should the read
// fail, one a little before it (the last seconds' changes come again).
func (h *Hub) startToken(ctx context.Context, k FeedKey) string {
	token, err := h.src.StartToken(ctx, k.ID, k.User)
	if err != nil {
		return h.src.HeadToken(k.ID, k.User)
	}
	return token
}

// leave removes s from the feeds of keys; a feed without subscribers ends.
func (h *Hub) leave(s *subscriber, keys ...FeedKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range keys {
		delete(s.behind, k) // a feed joined again starts afresh
		delete(s.missed, k)
		if f := h.feeds[k]; f != nil {
			delete(f.subs, s)
			if len(f.subs) == 0 {
				delete(h.feeds, k)
			}
		}
	}
}

// Subscriptions returns how many subscriptions are running (for metrics).
func (h *Hub) Subscriptions() int { return int(h.subscriptions.Load()) }

// Feeds returns how many logs the Hub follows (for metrics and tests).
func (h *Hub) Feeds() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.feeds)
}
