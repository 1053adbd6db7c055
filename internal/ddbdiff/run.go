package ddbdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"
)

// Stats counts a run's reference outcomes by error code, "" counting
// successes, so that a test can check that a sequence did what it should.
type Stats map[string]int

// ReplayEnv names the environment variables a replay command repeats.
var ReplayEnv = []string{"CALGRAPH_TEST_DYNAMODB"}

// Run creates fresh tables in ref (the reference) and sut (the engine under
// test), sends both the same steps requests generated from seed, and fails t
// on the first answer that differs, or when the tables differ at the end.
// A failure prints the seed, the step, the request, both answers and a
// command that replays the sequence; the tables are deleted when t ends.
func Run(t testing.TB, ref, sut *dynamodb.Client, seed int64, steps int) Stats {
	t.Helper()
	ctx := t.Context()
	run := fmt.Sprintf("%08x", rand.Uint32()) // tables and tokens unique per run
	main := fmt.Sprintf("ddbdiff_%d_%s", seed, run)
	num, proj := main+"_num", main+"_proj"
	sides := [2]*side{{name: "reference", db: ref, token: "r" + run}, {name: "engine", db: sut, token: "s" + run}}
	for _, sd := range sides {
		sd.createTables(t, main, num, proj)
	}
	g := newGen(seed, main, num, proj)
	stats := Stats{}
	var recent []string
	for step := 1; step <= steps; step++ {
		req := g.next()
		want, got := sendBoth(ctx, sides, req)
		stats[want.Error]++
		if want.json() != got.json() {
			t.Fatalf("ddbdiff: seed %d, step %d: the engine's answer differs from the reference's\n"+
				"request: %s\nreference: %s\nengine: %s\ndiff (-reference +engine):\n%s\n%s\nreplay: %s",
				seed, step, requestJSON(req), describe(want), describe(got), outcomeDiff(want, got),
				strings.Join(recent, "\n"), replayCommand(t, seed, step))
		}
		recent = append(recent, fmt.Sprintf("  step %d: %.300s", step, requestJSON(req)))
		if len(recent) > 5 {
			recent = recent[1:]
		}
		if len(recent) == 1 {
			recent = append([]string{"the steps before:"}, recent...)
		}
	}
	for _, tbl := range finalScans(main, num, proj) {
		want, got := sides[0].contents(ctx, tbl), sides[1].contents(ctx, tbl)
		if d := contentsDiff(want, got); d != "" {
			t.Fatalf("ddbdiff: seed %d: after %d steps, %s differs (-reference +engine):\n%s\nreplay: %s",
				seed, steps, scanName(tbl), d, replayCommand(t, seed, steps))
		}
	}
	return stats
}

// requestJSON writes a request for a failure report, cut short when it
// carries big items.
func requestJSON(req any) string {
	name := strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", req), "*dynamodb."), "ddbdiff.")
	b, _ := json.Marshal(map[string]any{name: plain(req)})
	if len(b) > maxReported {
		return fmt.Sprintf("%s… (%d bytes in all)", b[:maxReported], len(b))
	}
	return string(b)
}

// maxReported bounds a request printed in a failure report.
const maxReported = 20000

func describe(o outcome) string {
	s := indent(o)
	if o.message != "" {
		s += "\n  message: " + o.message
	}
	return s
}

func outcomeDiff(want, got outcome) string {
	var w, g any
	_ = json.Unmarshal([]byte(want.json()), &w)
	_ = json.Unmarshal([]byte(got.json()), &g)
	return cmp.Diff(w, g)
}

// replayCommand is the command that runs this seed again up to step.
func replayCommand(t testing.TB, seed int64, step int) string {
	var env []string
	for _, name := range ReplayEnv {
		if v := os.Getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	test := strings.SplitN(t.Name(), "/", 2)[0]
	return strings.TrimSpace(fmt.Sprintf("%s go test ./internal/ddbdiff -run '^%s$' -seed %d -steps %d -v",
		strings.Join(env, " "), test, seed, step))
}

// sendBoth sends req to both engines at once, which halves a run's time; the
// SDK only reads the inputs it is given (but see TransactWriteItems in send).
func sendBoth(ctx context.Context, sides [2]*side, req any) (want, got outcome) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = sides[1].send(ctx, req)
	}()
	want = sides[0].send(ctx, req)
	<-done
	return want, got
}

// side is one of the two engines.
type side struct {
	name  string
	db    *dynamodb.Client
	token string // prefixed to ClientRequestTokens: each engine sees its own
}

// send sends req and returns the normalised outcome.
func (sd *side) send(ctx context.Context, req any) outcome {
	switch in := req.(type) {
	case *dynamodb.PutItemInput:
		return result(sd.db.PutItem(ctx, in))
	case *dynamodb.UpdateItemInput:
		return result(sd.db.UpdateItem(ctx, in))
	case *dynamodb.DeleteItemInput:
		return result(sd.db.DeleteItem(ctx, in))
	case *dynamodb.GetItemInput:
		return result(sd.db.GetItem(ctx, in))
	case *dynamodb.BatchGetItemInput:
		return sd.batchGet(ctx, in)
	case *dynamodb.BatchWriteItemInput:
		return result(sd.db.BatchWriteItem(ctx, in))
	case *dynamodb.TransactWriteItemsInput:
		c := *in // the SDK fills in a missing token, in place
		if in.ClientRequestToken != nil {
			c.ClientRequestToken = strp(sd.token + *in.ClientRequestToken)
		}
		return result(sd.db.TransactWriteItems(ctx, &c))
	case *dynamodb.TransactGetItemsInput:
		return result(sd.db.TransactGetItems(ctx, in))
	case pagedQuery:
		return sd.query(ctx, in.Query)
	case pagedScan:
		return sd.scan(ctx, in.Scan)
	case sequence:
		outs := make([]any, len(in))
		var msgs []string
		for i, r := range in {
			o := sd.send(ctx, r)
			outs[i] = o
			if o.message != "" {
				msgs = append(msgs, fmt.Sprintf("request %d: %s", i+1, o.message))
			}
		}
		return outcome{Result: outs, message: strings.Join(msgs, "; ")}
	}
	panic(fmt.Sprintf("ddbdiff: cannot send %T", req))
}

func result[T any](out T, err error) outcome {
	if err != nil {
		return failure(err)
	}
	return outcome{Result: plain(out)}
}
