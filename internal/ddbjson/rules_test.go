package ddbjson

import (
	"strings"
	"testing"
)

func TestCanonicalNumberValid(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"+0.000e5", "0"},
		{"0e99999999999999999999", "0"},
		{"000", "0"},
		{"3", "3e0"},
		{"+3", "3e0"},
		{"003.500", "35e0"},
		{"-1.5E+10", "-15e10"},
		{"-1.5e10", "-15e10"},
		{"1500", "15e3"},
		{"0.015", "15e-2"},
		{"1e-130", "1e-130"},
		{"0.1e-129", "1e-130"},
		{"9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999e125"},
		{"123456789012345678901234567890", "12345678901234567890123456789e29"},
		{"1" + strings.Repeat("0", 100), "1e100"},
		{"0." + strings.Repeat("0", 100) + "1", "1e-101"},
		{strings.Repeat("9", 38), strings.Repeat("9", 38) + "e37"},
		{"1.0000000000000000000000000000000000000000000000", "1e0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := canonicalNumber(tt.in)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCanonicalNumberInvalid(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "want digits"},
		{"-", "want digits"},
		{"+-1", "want digits"},
		{"--1", "want digits"},
		{"abc", "want digits"},
		{".5", "want digits"},
		{"1.", "want digits after the decimal point"},
		{"1.e5", "want digits after the decimal point"},
		{"1e", "want digits in the exponent"},
		{"1e+", "want digits in the exponent"},
		{"1E--1", "want digits in the exponent"},
		{" 1", "want digits"},
		{"1 ", `unexpected " "`},
		{"0x10", `unexpected "x10"`},
		{"1.2.3", `unexpected ".3"`},
		{"1_000", "unexpected"},
		{"NaN", "want digits"},
		{"Infinity", "want digits"},
		{"١", "want digits"},
		{"1" + strings.Repeat("2", 38), "more than 38 significant digits"},
		{"1." + strings.Repeat("0", 37) + "1", "more than 38 significant digits"},
		{"1E126", "out of range"},
		{"10E125", "out of range"},
		{"-1E126", "out of range"},
		{"1E-131", "out of range"},
		{"0.1E-130", "out of range"},
		{"1e99999999999999999999", "out of range"},
		{"1e-99999999999999999999", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := canonicalNumber(tt.in)
			checkErr(t, err, tt.want)
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", `"a"`},
		{strings.Repeat("x", 64), `"` + strings.Repeat("x", 64) + `"`},
		{strings.Repeat("x", 65), `"` + strings.Repeat("x", 64) + `"…`},
		{strings.Repeat("x", 63) + "é", `"` + strings.Repeat("x", 63) + `"…`},
	}
	for _, tt := range tests {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}
