package recurrence

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// StartsFromTheBeginning is Engine.Starts without fast-forwarding: the
// reference the fast path is checked against.
func StartsFromTheBeginning(series *calendar.Entry, from, to time.Time) []time.Time {
	x, err := newExpansion(series)
	if err != nil {
		panic(err)
	}
	var out []time.Time
	next := x.iterator(time.Time{})
	for t, ok := next(); ok && t.Before(to); t, ok = next() {
		if !t.Before(from) {
			out = append(out, t)
		}
	}
	return out
}
