// Package remind runs the schedule of reminders on each server instance:
// every poll it asks the store what fell due (calendar.ReminderTask: wakes
// whose entries' reminders are to be armed, reminders to fire, snoozes that
// ran out) and hands each back to the store to do. Any number of instances
// run it on one table: the store claims each due item with a lease, so a
// reminder fires once, and an instance that stops mid-way leaves its leases
// to run out for another to take up (late, never lost). An instance that
// was down finds what fell due meanwhile at the front of the schedule.
package remind

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Store is the schedule's store (internal/dynamo).
type Store interface {
	// ReminderTasks returns up to max tasks of each shard that fell due at now.
	ReminderTasks(ctx context.Context, now time.Time, max int) ([]calendar.ReminderTask, error)
	// DoReminderTask does one of them.
	DoReminderTask(ctx context.Context, t calendar.ReminderTask, now time.Time) error
}

// Defaults of a Runner.
const (
	// DefaultPoll is how often a Runner reads the schedule: a reminder
	// fires within about this much of its time while an instance runs.
	DefaultPoll = 500 * time.Millisecond
	// tasksPerRead bounds the tasks of one shard a round reads.
	tasksPerRead = 100
	// tasksAtOnce bounds the tasks a round does concurrently.
	tasksAtOnce = 8
	// roundsAtOnce bounds the rounds run back to back while tasks keep
	// coming (a backlog, or fires just armed), before the next poll.
	roundsAtOnce = 10
)

// Runner runs the schedule.
type Runner struct {
	store Store
	poll  time.Duration
	now   func() time.Time
	log   *slog.Logger

	done   atomic.Int64
	failed atomic.Int64
}

// New returns a Runner reading store every poll (DefaultPoll if zero),
// by the clock now (time.Now if nil).
func New(store Store, poll time.Duration, now func() time.Time, log *slog.Logger) *Runner {
	if poll <= 0 {
		poll = DefaultPoll
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Runner{store: store, poll: poll, now: now, log: log}
}

// Stats is what a Runner has done, for metrics.
type Stats struct {
	Done, Failed int64
}

// Stats returns what the Runner has done so far.
func (r *Runner) Stats() Stats { return Stats{Done: r.done.Load(), Failed: r.failed.Load()} }

// Run runs rounds every poll until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	for {
		for range roundsAtOnce {
			if n := r.Round(ctx); n == 0 || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Round reads what fell due and does it, and returns how many tasks it
// did. A failed task is logged and stays due: the next round tries again.
func (r *Runner) Round(ctx context.Context) int {
	now := r.now().UTC()
	tasks, err := r.store.ReminderTasks(ctx, now, tasksPerRead)
	if err != nil {
		if ctx.Err() == nil {
			r.log.WarnContext(ctx, "reading the reminder schedule (retried next poll)", "err", err)
		}
		return 0
	}
	g := errgroup.Group{}
	g.SetLimit(tasksAtOnce)
	for _, t := range tasks {
		g.Go(func() error {
			if err := r.store.DoReminderTask(ctx, t, now); err != nil {
				r.failed.Add(1)
				if ctx.Err() == nil {
					r.log.WarnContext(ctx, "a reminder task failed (retried next poll)", "err", err)
				}
				return nil
			}
			r.done.Add(1)
			return nil
		})
	}
	_ = g.Wait()
	return len(tasks)
}
