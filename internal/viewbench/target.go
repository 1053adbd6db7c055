package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The stores a binary can run on.
const (
	// storeDynamoDB is DynamoDB Local, in a process of its own, reached
	// through a counting proxy.
	storeDynamoDB = "dynamodb"
	// storeEmbedded is calgraph's embedded default: internal/engine in the
	// server's own process, on a data directory of its own. Its calls go
	// over the engine's loopback port, not through a proxy: they are not
	// counted, and the engine's CPU is the server's.
	storeEmbedded = "embedded"
)

// target is one server under measurement on one store, with the proxy
// before its DynamoDB (none on the embedded store) and clients signed in as
// the data set's users. The views are the owner's.
type target struct {
	bin           *binary
	store         string // storeDynamoDB or storeEmbedded
	srv           *server
	proxy         *proxy // nil on the embedded store
	storePID      int    // DynamoDB Local's process, whose CPU is measured too; 0 when none
	table         string // set once the server has created it on DynamoDB Local
	owner, member gqlClient
	// idleCalls is the server's own call rate, per second, when no request
	// is made: its background work (the live hub's and the reminders'
	// polls). Calls counted during requests include some of them
	// (sample.background).
	idleCalls float64
	sent      atomic.Int64 // requests sent to it so far, warm-ups included: the next one's index
	calendars []string     // the data set's calendars, by global ID
}

// body is the next request's body for v on t: its query for that many
// calendars, with the variables of its index when v has them.
func (t *target) body(v view, calendars int) []byte {
	i := t.sent.Add(1) - 1
	if v.vars == nil {
		return gqlBody(v.query(calendars), nil)
	}
	return gqlBody(v.query(calendars), v.vars(int(i), t.calendars))
}

// idleWindow is how long measureIdle listens to an idle server.
const idleWindow = 3 * time.Second

// measureIdle counts the calls t's server makes in idleWindow with no
// request in flight.
func (t *target) measureIdle(ctx context.Context) error {
	if t.proxy == nil {
		return nil
	}
	t.proxy.Reset()
	start := time.Now()
	select {
	case <-time.After(idleWindow):
	case <-ctx.Done():
		return ctx.Err()
	}
	t.idleCalls = float64(len(t.proxy.Calls())) / time.Since(start).Seconds()
	return nil
}

// The users of the data set.
const (
	ownerEmail  = "bench@example.com"
	memberEmail = "m1@example.com"
)

// dropWait bounds the deletion of a table at the end, which runs even when
// the benchmark was interrupted.
const dropWait = 30 * time.Second

// startTarget starts bin on store: on storeDynamoDB serving a fresh table
// behind a new proxy to endpoint (DynamoDB Local, whose process is
// storePID), on storeEmbedded on a fresh data directory under tmp; with
// clients for the data set's owner and member. tmp receives its log and
// token key. The caller must close the target, also when startTarget fails
// (a nil target needs no closing).
func startTarget(ctx context.Context, bin *binary, store, endpoint string, storePID int, table, tmp string) (*target, error) {
	t := &target{bin: bin, store: store}
	secret := make([]byte, 32)
	rand.Read(secret) // never fails: it crashes the program instead
	key := hex.EncodeToString(secret)
	logPath := filepath.Join(tmp, table+".log")
	if store == storeEmbedded {
		var err error
		t.srv, err = startServer(ctx, bin, key, logPath,
			[]string{"-store", "embedded", "-data-dir", filepath.Join(tmp, table+"-data")}, nil)
		if err != nil {
			return t, err
		}
	} else {
		p, err := startProxy(endpoint)
		if err != nil {
			return nil, err
		}
		t.proxy, t.storePID = p, storePID
		t.srv, err = startServer(ctx, bin, key, logPath, []string{"-store", "dynamodb", "-table", table},
			[]string{"AWS_ENDPOINT_URL_DYNAMODB=" + p.url, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local"})
		if err != nil {
			return t, err
		}
		t.table = table
	}
	keyDir := filepath.Join(tmp, table+"-key")
	for _, c := range []struct {
		client *gqlClient
		email  string
	}{{&t.owner, ownerEmail}, {&t.member, memberEmail}} {
		token, err := mintToken(ctx, bin, key, c.email, keyDir)
		if err != nil {
			return t, err
		}
		*c.client = gqlClient{url: t.srv.url, token: token}
	}
	return t, nil
}

// close stops the server, then its proxy.
func (t *target) close() error {
	var err error
	if t.srv != nil {
		err = t.srv.stop()
	}
	if t.proxy != nil {
		err = errors.Join(err, t.proxy.Close())
	}
	return err
}

// dropTable deletes a table the benchmark created, straight at the store:
// DynamoDB Local keeps every table in memory until it stops. It uses the
// credentials and region the servers use, since DynamoDB Local keeps one
// database per access key and region.
func dropTable(store, table string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dropWait)
	defer cancel()
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(store),
	})
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("delete table %s: %w", table, err)
	}
	return nil
}
