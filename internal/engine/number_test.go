package engine

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestParseDecimal holds the numbers to DynamoDB Local's answers (measured
// with PutItem then GetItem on DynamoDB Local 2.9.30).
func TestParseDecimal(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"1.500", "1.5", ""},
		{"0.0", "0", ""},
		{"-0", "0", ""},
		{"1e3", "1000", ""},
		{"+1", "1", ""},
		{".5", "0.5", ""},
		{"5.", "5", ""},
		{"123.4560e2", "12345.6", ""},
		{"-1.5e-7", "-0.00000015", ""},
		{"0.000001", "0.000001", ""},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678", ""},
		{"1E+100", "1" + zeros(100), ""},
		{"1e-130", "0." + zeros(129) + "1", ""},
		{"99999999999999999999999999999999999999e87", "99999999999999999999999999999999999999" + zeros(87), ""},
		{"123456789012345678901234567890123456789", "", "precision"},
		{"1e126", "", "overflow"},
		{"1e-131", "", "underflow"},
		{" 1", "", "cannot be converted"},
		{"0x10", "", "cannot be converted"},
		{"", "", "cannot be converted"},
		{"1e", "", "cannot be converted"},
		{"--1", "", "cannot be converted"},
		{"1.2.3", "", "cannot be converted"},
	} {
		d, err := parseDecimal(tt.in)
		switch {
		case tt.err != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.err))):
			t.Errorf("parseDecimal(%q): got %v, %v; want an error mentioning %q", tt.in, d, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("parseDecimal(%q): %v", tt.in, err)
		case tt.err == "" && d.String() != tt.want:
			t.Errorf("parseDecimal(%q) = %s, want %s", tt.in, d, tt.want)
		}
	}
}

func zeros(n int) string { return string(bytes.Repeat([]byte("0"), n)) }

// TestNumberKeysSortAsNumbers: the byte order of encoded numbers is their
// numeric order, and equal numbers written differently encode equally.
func TestNumberKeysSortAsNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var nums []decimal
	for _, s := range []string{"0", "-0", "1", "-1", "0.1", "-0.1", "0.12", "-0.12", "0.121", "-0.121", "10", "9.99", "1e125", "-1e125", "1e-129", "-1e-129", "100", "1e2"} {
		nums = append(nums, mustDecimal(s))
	}
	for range 2000 {
		s := fmt.Sprintf("%s%de%d", []string{"", "-"}[rng.IntN(2)], rng.Int64N(1e12), rng.IntN(60)-30)
		nums = append(nums, mustDecimal(s))
	}
	for i, a := range nums {
		for _, b := range nums[max(0, i-40):i] {
			want := a.cmp(b)
			got := bytes.Compare(a.appendKey(nil), b.appendKey(nil))
			if got != want {
				t.Fatalf("%s vs %s: keys compare %d, numbers %d", a, b, got, want)
			}
		}
	}
}

// TestKeysAreSelfDelimiting: a partition key followed by a sort key sorts by
// partition first, whatever the values (zero bytes, prefixes).
func TestKeysAreSelfDelimiting(t *testing.T) {
	s := func(v string) *av { return &av{S: &v} }
	keys := [][2]string{{"a", "b"}, {"a", "\x00"}, {"a\x00", "a"}, {"ab", ""}, {"a", "bb"}, {"", "z"}, {"a\x00\x00", "x"}}
	for _, x := range keys {
		for _, y := range keys {
			kx := appendKeyValue(appendKeyValue(nil, s(x[0])), s(x[1]+"."))
			ky := appendKeyValue(appendKeyValue(nil, s(y[0])), s(y[1]+"."))
			want := cmp.Compare(x[0], y[0])
			if want == 0 {
				want = cmp.Compare(x[1]+".", y[1]+".")
			}
			if got := bytes.Compare(kx, ky); got != want {
				t.Errorf("%q vs %q: got %d, want %d", x, y, got, want)
			}
		}
	}
}
