//go:build !race

package ddbread

// allocationFactor loosens allocation bounds under the race detector (see
// race_test.go); without it they hold as measured.
const allocationFactor = 1.0

// poolFactor loosens them where a sync.Pool saves allocations, under the
// race detector only (see race_test.go).
const poolFactor = 1.0
