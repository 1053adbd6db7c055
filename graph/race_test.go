//go:build race

package graph_test

// allocationFactor loosens allocation bounds under the race detector, which
// makes sync.Pool drop what it holds, so pooled buffers are allocated anew.
const allocationFactor = 4
