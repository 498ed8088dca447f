// Reading a number: exactly the value it writes, 0.1 being 1/10, unless
// that would take more than a bounded amount of work.

package calc

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// number sets v to the value of a number as written: exact, unless it
// has more than MaxBits/3 significant digits or an exponent beyond
// ±MaxBits/3, or its numerator or denominator needs more than MaxBits bits
// (1e-5000); then the float64 nearest to it, as strconv.ParseFloat rounds,
// which is ±Inf past float64's range (1e99999) and 0 below half its least
// value (1e-5000), each of which Eval refuses. Zero is exact whatever its
// exponent: 0e99999999999999999999 is 0.
func (e *evaluator) number(v *Value, text string) {
	if !e.literal(v.setRat(), text) || !v.fits() {
		f, _ := strconv.ParseFloat(text, 64) // the lexer checked the syntax
		v.setFloat(f)
	}
}

// literal sets r to the value of text, a number of the grammar, and
// reports true, unless its digits or its exponent are too many (see
// number): the work of reading a number stays small, whatever it says.
func (e *evaluator) literal(r *big.Rat, text string) bool {
	const most = MaxBits / 3 // digits, or powers of ten: about MaxBits bits
	mantissa, exponent := text, ""
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mantissa, exponent = text[:i], text[i+1:]
	}
	digits, fraction, _ := strings.Cut(mantissa, ".")
	if fraction != "" {
		digits += fraction
	}
	digits = strings.TrimLeft(digits, "0")
	significant := strings.TrimRight(digits, "0")
	num, den := parts(r) // r is 0
	if significant == "" {
		return true // zero times any power of ten, read or not
	}
	exp := 0
	if exponent != "" {
		var err error
		if exp, err = strconv.Atoi(exponent); err != nil || exp < -most || exp > most {
			return false
		}
	}
	exp += len(digits) - len(significant) - len(fraction) // 2.50e3 is 25e2
	if len(significant) > most || exp < -most || exp > most {
		return false
	}
	if m, err := strconv.ParseUint(significant, 10, 64); err == nil && -19 <= exp && exp <= 19 {
		// Most numbers fit in words, which need no allocation.
		p := uint64(math.Pow10(max(exp, -exp))) // exact up to 1e22
		if hi, lo := bits.Mul64(m, p); exp >= 0 && hi == 0 {
			num.SetUint64(lo)
			den.SetUint64(1)
			return true
		}
		if exp < 0 {
			g := gcdWords(m, p)
			num.SetUint64(m / g)
			den.SetUint64(p / g)
			return true
		}
	}
	e.s.SetString(significant, 10)
	e.raise(&e.t, e.u.SetInt64(10), uint(max(exp, -exp)))
	if exp >= 0 {
		e.times(num, &e.s, &e.t)
		den.SetUint64(1)
		return true
	}
	g := e.gcd(&e.g, &e.s, &e.t)
	e.divide(num, &e.s, g)
	e.divide(den, &e.t, g)
	return true
}
