package engine

import (
	"cmp"
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// decimal is a DynamoDB number: up to 38 significant digits, magnitude
// between 1e-130 and 1e126 (exclusive), read exactly (never through a float).
// Its value is 0.digits × 10^exp, or zero when digits is empty.
type decimal struct {
	neg    bool
	digits string // no leading or trailing zeros
	exp    int
}

// DynamoDB's limits and messages for numbers.
var (
	errNotNumber = errors.New("A value provided cannot be converted into a number")
	errPrecision = errors.New("DynamoDB only supports precision up to 38 digits")
	errOverflow  = errors.New("Number overflow. Attempting to store a number with magnitude larger than supported range")
	errUnderflow = errors.New("Number underflow. Attempting to store a number with magnitude smaller than supported range")
)

// parseDecimal reads a number as DynamoDB accepts it: an optional sign,
// digits with an optional point, an optional exponent.
func parseDecimal(s string) (decimal, error) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	var mant []byte
	pointAt, seenDigit, seenPoint := -1, false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			mant = append(mant, c)
			seenDigit = true
		case c == '.' && !seenPoint:
			seenPoint, pointAt = true, len(mant)
		default:
			goto exponent
		}
	}
exponent:
	if !seenDigit {
		return decimal{}, errNotNumber
	}
	e := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return decimal{}, errNotNumber
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return decimal{}, errNotNumber
		}
		for ; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return decimal{}, errNotNumber
			}
			if e < 100000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	if pointAt < 0 {
		pointAt = len(mant)
	}
	// value = 0.mant × 10^(pointAt + e); drop leading zeros, then trailing ones.
	lead := 0
	for lead < len(mant) && mant[lead] == '0' {
		lead++
	}
	mant = mant[lead:]
	exp := pointAt - lead + e
	mant = []byte(strings.TrimRight(string(mant), "0"))
	if len(mant) == 0 {
		return decimal{}, nil // zero, whatever its sign
	}
	d.digits, d.exp = string(mant), exp
	switch {
	case len(d.digits) > 38:
		return decimal{}, errPrecision
	case d.exp > 126:
		return decimal{}, errOverflow
	case d.exp < -129:
		return decimal{}, errUnderflow
	}
	return d, nil
}

func (d decimal) isZero() bool { return d.digits == "" }

// String writes the number as DynamoDB returns it: plain notation, no
// exponent, no superfluous zeros.
func (d decimal) String() string {
	if d.isZero() {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -d.exp))
		b.WriteString(d.digits)
	case d.exp >= len(d.digits):
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", d.exp-len(d.digits)))
	default:
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	}
	return b.String()
}

// cmp orders two numbers: -1, 0 or 1.
func (d decimal) cmp(o decimal) int {
	sign := func(x decimal) int {
		switch {
		case x.isZero():
			return 0
		case x.neg:
			return -1
		}
		return 1
	}
	if a, b := sign(d), sign(o); a != b || a == 0 {
		return cmp.Compare(a, b)
	}
	c := cmp.Compare(d.exp, o.exp)
	if c == 0 {
		c = strings.Compare(d.digits, o.digits)
	}
	if d.neg {
		return -c
	}
	return c
}

// appendKey appends an encoding of the number whose bytes sort as the
// numbers do and which no other number's encoding starts with: a sign byte,
// the exponent, one byte per digit and a terminator, all inverted for
// negative numbers.
func (d decimal) appendKey(b []byte) []byte {
	if d.isZero() {
		return append(b, 0x02)
	}
	exp := uint16(d.exp + 1000)
	if !d.neg {
		b = append(b, 0x03, byte(exp>>8), byte(exp))
		for i := 0; i < len(d.digits); i++ {
			b = append(b, d.digits[i]-'0'+1)
		}
		return append(b, 0x00)
	}
	exp = ^exp
	b = append(b, 0x01, byte(exp>>8), byte(exp))
	for i := 0; i < len(d.digits); i++ {
		b = append(b, 10-(d.digits[i]-'0'))
	}
	return append(b, 0xff)
}

// addNumbers adds (or subtracts) two numbers exactly, and writes the sum as
// DynamoDB Local does: Java's BigDecimal in plain notation, whose scale is
// the larger of the operands' (1.50 + 1 is 2.50, 1.5 - 1.5 is 0.0).
func addNumbers(a, b string, subtract bool) (string, error) {
	ua, sa, err := javaDecimal(a)
	if err != nil {
		return "", err
	}
	ub, sb, err := javaDecimal(b)
	if err != nil {
		return "", err
	}
	scale := max(sa, sb)
	ua.Mul(ua, pow10(scale-sa))
	ub.Mul(ub, pow10(scale-sb))
	if subtract {
		ub.Neg(ub)
	}
	sum := javaPlain(ua.Add(ua, ub), scale)
	if _, err := parseDecimal(sum); err != nil {
		return "", err
	}
	return sum, nil
}

// javaDecimal reads a number as BigDecimal does: an unscaled integer and a
// scale (the number is unscaled × 10^-scale).
func javaDecimal(s string) (*big.Int, int, error) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, 0, errNotNumber
		}
		exp = e
	}
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	u, ok := new(big.Int).SetString(strings.TrimPrefix(mant, "+"), 10)
	if !ok {
		return nil, 0, errNotNumber
	}
	return u, scale - exp, nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// javaString is BigDecimal.toString.
func javaString(unscaled *big.Int, scale int) string {
	coeff := new(big.Int).Abs(unscaled).String()
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	adjusted := -scale + len(coeff) - 1
	if scale >= 0 && adjusted >= -6 {
		if scale == 0 {
			return sign + coeff
		}
		if pad := scale - len(coeff) + 1; pad > 0 {
			coeff = strings.Repeat("0", pad) + coeff
		}
		return sign + coeff[:len(coeff)-scale] + "." + coeff[len(coeff)-scale:]
	}
	out := sign + coeff[:1]
	if len(coeff) > 1 {
		out += "." + coeff[1:]
	}
	if adjusted >= 0 {
		return out + "E+" + strconv.Itoa(adjusted)
	}
	return out + "E" + strconv.Itoa(adjusted)
}

// javaPlain is BigDecimal.toPlainString.
func javaPlain(unscaled *big.Int, scale int) string {
	coeff := new(big.Int).Abs(unscaled).String()
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	switch {
	case scale <= 0:
		if unscaled.Sign() == 0 {
			return "0"
		}
		return sign + coeff + strings.Repeat("0", -scale)
	case len(coeff) <= scale:
		return sign + "0." + strings.Repeat("0", scale-len(coeff)) + coeff
	}
	return sign + coeff[:len(coeff)-scale] + "." + coeff[len(coeff)-scale:]
}
