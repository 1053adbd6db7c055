package dynamo

import (
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// storeClock gives change records their positions, and sync reads the moment
// they read at, on DynamoDB's clock rather than this machine's: every answer
// of DynamoDB carries an HTTP Date header, its own time to the second, and
// the clock keeps the latest such reading as an interval in which the store's
// time minus the local time lies. A position is then never earlier than the
// store's time at the moment it is taken (minus the reading's uncertainty), and
// a read's moment never later, whatever the local clock says: instances whose
// clocks differ by seconds or minutes agree to within about a second (the
// Date header's resolution plus a round trip). changes.go's overlap window
// covers that and the time a transaction takes to commit.
type storeClock struct {
	local func() time.Time

	mu sync.Mutex
	// lo and hi bound the store's time minus the local time, from the last
	// answer read; known is false before the first.
	lo, hi time.Duration
	known  bool
}

func newStoreClock(local func() time.Time) *storeClock { return &storeClock{local: local} }

// observe records an answer's Date header: the store wrote date (truncated to
// the second) between sent and received, local times.
func (c *storeClock) observe(date, sent, received time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lo, c.hi, c.known = date.Sub(received), date.Add(time.Second).Sub(sent), true
}

// writeNow is a change record's position: the local time, or later when the
// store's clock is surely ahead of it.
func (c *storeClock) writeNow() time.Time {
	now := c.local()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known && c.lo > 0 {
		return now.Add(c.lo)
	}
	return now
}

// readNow is the moment a sync read counts from: the local time, or earlier
// when the store's clock is surely behind it.
func (c *storeClock) readNow() time.Time {
	now := c.local()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known && c.hi < 0 {
		return now.Add(c.hi)
	}
	return now
}

// dateReader is an HTTP client that feeds the Date header of every answer
// to a storeClock.
type dateReader struct {
	next  dynamodb.HTTPClient
	clock *storeClock
}

func (d dateReader) Do(r *http.Request) (*http.Response, error) {
	sent := d.clock.local()
	resp, err := d.next.Do(r)
	if err == nil {
		if date, perr := http.ParseTime(resp.Header.Get("Date")); perr == nil {
			d.clock.observe(date, sent, d.clock.local())
		}
	}
	return resp, err
}

// Unwrap and Rewrap make it a ddbread.Wrapping, so that the reads ddbread
// sends on its own connections are observed too.
func (d dateReader) Unwrap() dynamodb.HTTPClient { return d.next }

func (d dateReader) Rewrap(next dynamodb.HTTPClient) dynamodb.HTTPClient {
	return dateReader{next: next, clock: d.clock}
}

// observingDates returns a copy of db whose calls (its own, and ddbread's,
// which shares its HTTP client) set clock.
func observingDates(db *dynamodb.Client, clock *storeClock) *dynamodb.Client {
	return dynamodb.New(db.Options(), func(o *dynamodb.Options) {
		o.HTTPClient = dateReader{next: o.HTTPClient, clock: clock}
	})
}
