//go:build race

package ddbread

// allocationFactor loosens allocation bounds under the race detector, which
// makes more values escape to the heap (the decoder's 33 allocations per
// item measured 46 under -race).
const allocationFactor = 1.5
