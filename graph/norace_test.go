//go:build !race

package graph_test

// allocationFactor loosens allocation bounds under the race detector (see
// race_test.go); without it they hold as measured.
const allocationFactor = 1
