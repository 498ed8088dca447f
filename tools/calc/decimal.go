// Writing a value in decimal: every digit when the value is exact and its
// expansion ends soon enough, and otherwise the float64 nearest to it, so
// that a reader is never shown digits that are not the value's; in plain
// digits, or with a power of ten where plain digits need many zeros.

package calc

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// MaxZeros is how many zeros plain digits may need to place the point
// (0.00001, 100000) before a power of ten takes their place (1e-6, 1e+6):
// so many a reader counts at a glance.
const MaxZeros = 5

// MaxDigits is how many significant digits an exact value may have and
// still be written exactly; 1/3, whose expansion never ends, and 2^-400,
// which ends after 280 digits, are written as their nearest float64.
const MaxDigits = 100

// String returns the value in decimal, in plain digits with a point (0.3,
// 10000, -10000000000000000000000001, 1180591620717411303424.125), unless
// they would need more than MaxZeros zeros to place the point and a
// significand and a power of ten are shorter (1e+400, 1e-30, 1.5e+21).
// An exact value whose expansion ends within MaxDigits significant
// digits is written with all of them, however large or small; any other
// value is written as the float64 nearest to it, in the fewest digits
// that convert back to that float64, as strconv.FormatFloat(f, 'e', -1, 64)
// chooses them, and in the same two forms. Zero is 0, never -0.
//
// The rule is the reader's: a model reads every digit, and should not
// have to move a point 25 places to read an integer, nor count 400 zeros.
// JavaScript's form for numbers, a power of ten below 1e-6 and from 1e21
// on, suits a float64's 17 digits, not an exact value's hundred.
func (v *Value) String() string {
	s, _ := v.decimal()
	return s
}

// Exact reports whether String writes the value exactly: whether it is
// exact and its decimal expansion ends within MaxDigits significant
// digits. 0.1 + 0.2 is exact, 0.3; 1/3 and 2^0.5 are not.
func (v *Value) Exact() bool {
	_, exact := v.decimal()
	return exact
}

// decimal returns String's text, and whether it is the value exactly.
func (v *Value) decimal() (string, bool) {
	if v.exact {
		if neg, digits, exp, ok := expansion(v.rat); ok {
			return written(neg, digits, exp), true
		}
	}
	f := v.float64()
	if f == 0 {
		return "0", false
	}
	// 'e' gives the shortest digits as d.ddde±XX, which written rewrites.
	s := strconv.FormatFloat(math.Abs(f), 'e', -1, 64)
	mantissa, exponent, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(exponent) // FormatFloat wrote it: "+05", "-300"
	return written(f < 0, strings.Replace(mantissa, ".", "", 1), exp), false
}

// expansion returns the decimal expansion of r as its sign, significant
// digits and the power of ten of the first, so that 0.025 is "25" and -2,
// or ok false if it does not end within MaxDigits significant digits.
//
// It ends when the denominator, in lowest terms, is 2^a·5^b: then r is
// num·2^(k-a)·5^(k-b) / 10^k, for k = max(a, b), and that numerator has
// no factor 10 unless r is an integer, since num has none of 2^a·5^b's.
func expansion(r *big.Rat) (neg bool, digits string, exp int, ok bool) {
	num, den := r.Num(), r.Denom()
	if num.Sign() == 0 {
		return false, "0", 0, true
	}
	a := int(den.TrailingZeroBits())
	b, ok := log5(new(big.Int).Rsh(den, uint(a)))
	if !ok {
		return false, "", 0, false
	}
	k := max(a, b)
	// The numerator below has at least this many bits, and so at least
	// (bits-1)·log10(2) digits: stop before writing them if that is too many.
	if bits := num.BitLen() + (k - a) + int(float64(k-b)*math.Log2(5)); !r.IsInt() && float64(bits-1)*math.Log10(2) > MaxDigits {
		return false, "", 0, false
	}
	m := new(big.Int).Lsh(new(big.Int).Abs(num), uint(k-a))
	m.Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k-b)), nil))
	digits = m.Text(10)
	trimmed := strings.TrimRight(digits, "0") // only an integer has zeros to trim
	if len(trimmed) > MaxDigits {
		return false, "", 0, false
	}
	return num.Sign() < 0, trimmed, len(digits) - 1 - k, true
}

// log5 returns b if x is 5^b, or ok false.
func log5(x *big.Int) (b int, ok bool) {
	if x.Cmp(big.NewInt(1)) == 0 {
		return 0, true
	}
	// 5^b has ⌊b·log2(5)⌋+1 bits, so b is within one of this guess.
	guess := int(float64(x.BitLen()-1) / math.Log2(5))
	for b := guess; b <= guess+1; b++ {
		if new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(b)), nil).Cmp(x) == 0 {
			return b, true
		}
	}
	return 0, false
}

// written writes ±d.ddd × 10^exp, for significant digits d.ddd without
// trailing zeros, as String describes: plain, unless it needs more than
// MaxZeros zeros to place the point and the significand and power of ten
// are shorter. The plain form's length is counted before it
// is written, so that 1e+1000 never costs a thousand zeros.
func written(neg bool, digits string, exp int) string {
	sign := ""
	if neg {
		sign = "-"
	}
	scientific := digits[:1]
	if len(digits) > 1 {
		scientific += "." + digits[1:]
	}
	if exp >= 0 {
		scientific += "e+" + strconv.Itoa(exp)
	} else {
		scientific += "e" + strconv.Itoa(exp)
	}
	// The plain form is the digits, the zeros that place them (0.00ddd,
	// ddd00), and a point unless the value is an integer.
	zeros := max(-exp, exp+1-len(digits), 0)
	plain := len(digits) + zeros
	if exp < len(digits)-1 {
		plain++
	}
	switch {
	case zeros > MaxZeros && len(scientific) < plain:
		return sign + scientific
	case exp < 0: // 0.00ddd
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= len(digits): // ddd00
		return sign + digits + strings.Repeat("0", exp+1-len(digits))
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:] // dd.ddd
}
