package engine

import (
	"encoding/hex"
	"testing"
)

// TestBase100 holds the number encoding DynamoDB Local hashes (ties in
// indexes) to the bytes its own encoder gives for these numbers.
func TestBase100(t *testing.T) {
	for in, want := range map[string]string{"1": "c102", "10": "c10b", "100": "c202", "1E3": "c20b", "1.5": "c10233", "-1": "3e6466", "-1.5": "3e643366", "0.001": "bf0b", "12345": "c302182e", "0": "80"} {
		if got := hex.EncodeToString(mustDecimal(in).base100()); got != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
}
