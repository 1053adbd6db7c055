//go:build race

package ddbread

// allocationFactor loosens allocation bounds under the race detector, which
// makes more values escape to the heap (the decoder's 33 allocations per
// item measured 46 under -race).
const allocationFactor = 1.5

// poolFactor loosens them again where a sync.Pool saves allocations: under
// the race detector a Put is dropped at random, a quarter of the time (the
// decoder's 21 allocations per item measured 34 to 38 under -race).
const poolFactor = 1.35
