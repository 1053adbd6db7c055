package ddbjson

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DynamoDB's limits that this package enforces.
const (
	maxDepth         = 32   // levels of attribute values, a top-level attribute being level 1
	maxSignificant   = 38   // significant digits of a number
	minAdjustedExp   = -130 // smallest magnitude: 1E-130
	maxAdjustedExp   = 125  // largest magnitude: 9.99…E+125
	maxExponentValue = 1 << 30
	maxQuoted        = 64 // bytes of user data quoted in an error message
)

var (
	errTooDeep   = fmt.Errorf("nested deeper than %d levels", maxDepth)
	errEmptyName = errors.New("empty attribute name")
	errEmptySet  = errors.New("empty set")
)

// quote returns s quoted for an error message, shortened if it is long.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// checkName reports whether name is a valid attribute name.
func checkName(name string) error {
	if name == "" {
		return errEmptyName
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("attribute name %s is not valid UTF-8", quote(name))
	}
	return nil
}

// canonicalNumber checks that s is a DynamoDB number and returns a canonical
// form of it: two numbers are equal exactly when their canonical forms are.
//
// The syntax is an optional sign, one or more digits, an optional fraction of
// one or more digits and an optional exponent. Leading and trailing zeros are not
// significant; at most 38 significant digits are allowed, and a non-zero
// magnitude must lie between 1E-130 and 9.9999999999999999999999999999999999999E+125.
func canonicalNumber(s string) (string, error) {
	neg, digits, exp, err := splitNumber(s)
	if err != nil {
		return "", fmt.Errorf("invalid number %s: %w", quote(s), err)
	}
	n := len(digits)
	digits = strings.TrimRight(digits, "0")
	exp += n - len(digits)
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", nil
	}
	if len(digits) > maxSignificant {
		return "", fmt.Errorf("invalid number %s: more than %d significant digits", quote(s), maxSignificant)
	}
	adjusted := exp + len(digits) - 1
	if adjusted < minAdjustedExp || adjusted > maxAdjustedExp {
		return "", fmt.Errorf("invalid number %s: out of range", quote(s))
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + digits + "e" + strconv.Itoa(adjusted), nil
}

// splitNumber parses the syntax of a number: the value is digits×10^exp.
func splitNumber(s string) (neg bool, digits string, exp int, err error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	intPart, i := scanDigits(s, i)
	if intPart == "" {
		return false, "", 0, errors.New("want digits")
	}
	digits = intPart
	if i < len(s) && s[i] == '.' {
		var frac string
		frac, i = scanDigits(s, i+1)
		if frac == "" {
			return false, "", 0, errors.New("want digits after the decimal point")
		}
		digits += frac
		exp = -len(frac)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, next, err := parseExponent(s, i+1)
		if err != nil {
			return false, "", 0, err
		}
		exp += e
		i = next
	}
	if i != len(s) {
		return false, "", 0, fmt.Errorf("unexpected %s", quote(s[i:]))
	}
	return neg, digits, exp, nil
}

// parseExponent parses the signed exponent starting at s[i], saturating its
// value so that huge exponents cannot overflow.
func parseExponent(s string, i int) (int, int, error) {
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	ds, i := scanDigits(s, i)
	if ds == "" {
		return 0, i, errors.New("want digits in the exponent")
	}
	e := 0
	for _, c := range []byte(ds) {
		e = min(e*10+int(c-'0'), maxExponentValue)
	}
	if neg {
		e = -e
	}
	return e, i, nil
}

// scanDigits returns the run of ASCII digits starting at s[i] and the index after it.
func scanDigits(s string, i int) (string, int) {
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[start:i], i
}

// decodeBinary decodes the padded standard base64 of a B or BS member.
func decodeBinary(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("invalid base64: contains a line break")
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	return b, nil
}

// checkStringSet checks the members of an SS.
func checkStringSet(ss []string) error {
	if len(ss) == 0 {
		return errEmptySet
	}
	seen := make(map[string]struct{}, len(ss))
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return fmt.Errorf("member %s is not valid UTF-8", quote(s))
		}
		if _, dup := seen[s]; dup {
			return fmt.Errorf("duplicate member %s", quote(s))
		}
		seen[s] = struct{}{}
	}
	return nil
}

// checkNumberSet checks the members of an NS. Members are compared as numbers,
// so "1" and "1.0" are duplicates.
func checkNumberSet(ns []string) error {
	if len(ns) == 0 {
		return errEmptySet
	}
	seen := make(map[string]string, len(ns))
	for _, s := range ns {
		c, err := canonicalNumber(s)
		if err != nil {
			return err
		}
		if first, dup := seen[c]; dup {
			return fmt.Errorf("duplicate member %s (equal to %s)", quote(s), quote(first))
		}
		seen[c] = s
	}
	return nil
}

// checkBinarySet checks the members of a BS.
func checkBinarySet(bs [][]byte) error {
	if len(bs) == 0 {
		return errEmptySet
	}
	seen := make(map[string]struct{}, len(bs))
	for i, b := range bs {
		if _, dup := seen[string(b)]; dup {
			return fmt.Errorf("duplicate member at index %d", i)
		}
		seen[string(b)] = struct{}{}
	}
	return nil
}
