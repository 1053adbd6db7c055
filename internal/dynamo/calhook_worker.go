package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/webhook"
)

// A calendar webhook follows each calendar's change log as a sync client
// does: its cursor holds a sync token. A worker that learns a calendar was
// written (the recent-writes index, recent.go) or sweeps, reads each cursor
// of it, and when the log holds changes after the token renders them into
// a delivery and stores it in the cursor under a lease (conditioned on the
// token being the one it read from: two workers never render or post the
// same batch at once), posts it, and on a 2xx advances the token and clears
// the delivery (conditioned on the lease). So deliveries are in order per
// calendar and gap-free; a worker stopped after the post leaves the
// delivery stored, and the next one posts the same bytes under the same
// ID. Writes to calendars cost nothing more.

// CalendarWebhookWorker is how calendar webhooks are delivered. Fields left
// zero take the defaults.
type CalendarWebhookWorker struct {
	Sender WebhookSender
	// Render renders deliveries (Store.PlainChangesBody when nil).
	Render ChangesBody
	// Now is the worker's clock (time.Now); Backoff the wait after the
	// n-th failed attempt (webhook.Backoff); RetryFor how long a delivery is
	// retried before its webhook is marked FAILING (webhook.RetryFor).
	Now      func() time.Time
	Backoff  func(attempt int) time.Duration
	RetryFor time.Duration
	// Poll is how often the recent writes are read (1 s); Sweep how often
	// every cursor is read, for hints missed (1 minute).
	Poll, Sweep time.Duration
	// Lease is how long a claimed cursor is the claimant's (2 minutes).
	Lease time.Duration
	// Batch is the most changes in one delivery (100); Parallel how many
	// cursors are served at once (8).
	Batch, Parallel int
}

// maxDeliveryBytes bounds a delivery's body (it is stored in its cursor,
// an item of at most 400 KB): a larger one is rendered again with half the
// changes.
const maxDeliveryBytes = 256 << 10

// deliveriesPerTurn bounds the deliveries one cursor gets in a row before
// the worker serves others.
const deliveriesPerTurn = 10

func (w CalendarWebhookWorker) withDefaults(s *Store) CalendarWebhookWorker {
	if w.Render == nil {
		w.Render = s.PlainChangesBody
	}
	if w.Now == nil {
		w.Now = time.Now
	}
	if w.Backoff == nil {
		w.Backoff = webhook.Backoff
	}
	if w.RetryFor <= 0 {
		w.RetryFor = webhook.RetryFor
	}
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Sweep <= 0 {
		w.Sweep = time.Minute
	}
	if w.Lease <= 0 {
		w.Lease = 2 * time.Minute
	}
	if w.Batch <= 0 || w.Batch > 100 {
		w.Batch = 100
	}
	if w.Parallel <= 0 {
		w.Parallel = 8
	}
	return w
}

// RunCalendarWebhookWorker delivers calendar webhooks until ctx ends: each
// w.Poll it reads the recent writes and serves the cursors of the
// calendars written (and the webhooks of users whose calendar list
// changed), and retries the deliveries it left when they fall due; each
// w.Sweep, or when the recent writes cannot tell, every cursor and
// webhook. Any number of instances may run it on one table.
func (s *Store) RunCalendarWebhookWorker(ctx context.Context, w CalendarWebhookWorker) {
	w = w.withDefaults(s)
	watch := s.WatchWrites()
	var swept time.Time
	retry := map[itemKey]bool{} // cursors this worker left a delivery in, to retry when due
	for {
		logs, gap, err := watch.Written(ctx)
		if err != nil || gap || time.Since(swept) >= w.Sweep {
			swept = time.Now()
			_, err = s.DeliverCalendarWebhooks(ctx, w)
		} else {
			_, err = s.deliverLogs(ctx, w, logs, retry)
		}
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "delivering calendar webhooks", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.Poll):
		}
	}
}

// DeliverCalendarWebhooks is a sweep: every webhook of everything its
// owner reads gets the cursors it lacks, and every cursor is served. It
// returns how many deliveries were attempted. It reads the webhooks a page
// at a time and the cursors' keys alone, so that what it holds stays small
// whatever their number.
func (s *Store) DeliverCalendarWebhooks(ctx context.Context, w CalendarWebhookWorker) (int, error) {
	w = w.withDefaults(s)
	var errs []error
	var keys []itemKey
	for n := range calHookShards {
		err := s.eachPage(ctx, keyQuery{pkAttr: attrPK, partition: calHookPartition(n), consistent: true}, func(it item) error {
			if stringAttr(it, "entityType") != entityCalHook {
				return nil
			}
			r, err := unmarshal[calHookRecord](it)
			if err == nil {
				err = s.reconcileHook(ctx, r)
			}
			errs = append(errs, err)
			return nil
		})
		if err != nil {
			return 0, err
		}
		err = s.eachPage(ctx, keyQuery{pkAttr: attrPK, partition: calHookCursorPartition(n), consistent: true, projection: []string{attrPK, attrSK}},
			func(it item) error {
				keys = append(keys, keyOf(it))
				return nil
			})
		if err != nil {
			return 0, err
		}
	}
	tried, err := s.serveCursors(ctx, w, keys, nil)
	return tried, errors.Join(append(errs, err)...)
}

// eachPage calls fn with each item q reads, a page at a time.
func (s *Store) eachPage(ctx context.Context, q keyQuery, fn func(item) error) error {
	in := q.input(s.table)
	for {
		out, err := s.reads.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("read %s: %w", q.partition, err)
		}
		for _, it := range out.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// deliverLogs serves the cursors of the calendars in logs and those in
// retry, and reconciles the webhooks of the users in logs (a calendar
// joined or lost). retry is left holding the cursors with a delivery still
// under way.
func (s *Store) deliverLogs(ctx context.Context, w CalendarWebhookWorker, logs []calendar.LogRef, retry map[itemKey]bool) (int, error) {
	var keys []itemKey
	for k := range retry {
		keys = append(keys, k)
	}
	for _, l := range logs {
		if l.User {
			hooks, err := s.hooksOf(ctx, l.ID)
			if err != nil {
				return 0, err
			}
			for _, h := range hooks {
				if err := s.reconcileHook(ctx, h); err != nil {
					return 0, err
				}
			}
			continue
		}
		cs, err := s.cursorsOfCalendar(ctx, l.ID)
		if err != nil {
			return 0, err
		}
		for _, c := range cs {
			if !retry[c.key()] {
				keys = append(keys, c.key())
			}
		}
	}
	return s.serveCursors(ctx, w, keys, retry)
}

// serveCursors serves the cursors of keys, w.Parallel at once, and notes in
// retry (when not nil) which of them still hold a delivery under way.
func (s *Store) serveCursors(ctx context.Context, w CalendarWebhookWorker, keys []itemKey, retry map[itemKey]bool) (int, error) {
	var (
		mu    sync.Mutex
		tried int
		errs  []error
		wg    sync.WaitGroup
		slots = make(chan struct{}, w.Parallel)
	)
	for _, k := range keys {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			n, waiting, err := s.serveCursor(ctx, w, k)
			mu.Lock()
			defer mu.Unlock()
			tried += n
			if retry != nil {
				if waiting {
					retry[k] = true
				} else {
					delete(retry, k)
				}
			}
			if err != nil && !errors.Is(err, errLeaseLost) {
				errs = append(errs, fmt.Errorf("webhook cursor %s: %w", k.SK, err))
			}
		})
	}
	wg.Wait()
	return tried, errors.Join(errs...)
}

// serveCursor makes the deliveries a cursor has due, up to
// deliveriesPerTurn, and reports how many attempts it made and whether a
// delivery is still under way (to retry, or leased by another worker).
func (s *Store) serveCursor(ctx context.Context, w CalendarWebhookWorker, k itemKey) (tried int, waiting bool, err error) {
	for range deliveriesPerTurn {
		it, found, err := s.getItem(ctx, k)
		if err != nil || !found {
			return tried, false, err
		}
		c, err := unmarshal[cursorRecord](it)
		if err != nil {
			return tried, false, err
		}
		now := w.Now()
		if c.LeaseUntil >= now.UnixMilli() {
			return tried, false, nil // another worker serves it
		}
		hit, found, err := s.getItem(ctx, c.hookKey())
		if err != nil {
			return tried, true, err
		}
		if !found {
			return tried, false, s.dropCursor(ctx, c, "")
		}
		hook, err := unmarshal[calHookRecord](hit)
		if err != nil || hook.State == string(calendar.WebhookFailing) {
			return tried, false, err // a resume is followed by the sweep
		}
		by := uuid.NewString()
		p, err := s.claimCursor(ctx, w, hook, c, now, by)
		if err != nil || p == nil {
			return tried, c.Pending != nil, err
		}
		if p.Body == nil {
			continue // moved past what the filter drops: read on
		}
		tried++
		done, err := s.attempt(ctx, w, hook, c, *p, now, by)
		if err != nil || !done {
			return tried, true, err
		}
	}
	return tried, true, nil
}
