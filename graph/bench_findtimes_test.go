package graph_test

import (
	"encoding/json"
	"testing"
)

// BenchmarkFindTimes measures findTimes for 10 people (each a calendar with
// a daily series and a few entries, and working hours) over two weeks in
// 15-minute steps: TestFindTimesPlan's case.
func BenchmarkFindTimes(b *testing.B) {
	var in map[string]any
	benchmarkRequests(b, func(b *testing.B, opts []func(*envOptions)) (*env, string) {
		e := newEnv(b, opts...)
		tok, input := seedTimes(b, e, 10)
		in = input
		return e, tok
	}, func(*env, string) []byte {
		body, _ := json.Marshal(map[string]any{"query": findTimesQuery, "variables": map[string]any{"in": in}})
		return body
	})
}
