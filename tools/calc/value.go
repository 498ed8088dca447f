// A value is exact, a fraction of integers, for as long as arithmetic
// allows; then it is a float64, approximate, and so is everything computed
// from it. Eval's documentation says when that happens.

package calc

import (
	"math"
	"math/big"
)

// MaxBits is how many bits the numerator and the denominator of an exact
// value may each hold; a value that would need more goes on approximate,
// in float64. 4,096 bits hold any float64 (the smallest, 2^-1074, has a
// denominator of 1,075 bits) and any number of up to 1,233 digits, and
// keep an operation with a small operand to a microsecond or two.
const MaxBits = 4096

// Value is a number Eval computed: exact, a fraction of integers, or
// approximate, a float64. String writes it as the calculate tool does, and
// Exact reports whether String wrote every digit of it.
type Value struct {
	exact bool
	rat   *big.Rat // the value, when exact, in lowest terms; kept, to reuse its memory, when not
	float float64  // the value, when approximate
}

// setRat makes v exact and returns v.rat, for the caller to set.
func (v *Value) setRat() *big.Rat {
	if v.rat == nil {
		v.rat = new(big.Rat)
	}
	v.exact = true
	return v.rat
}

// setFloat makes v approximate, f.
func (v *Value) setFloat(f float64) { v.exact, v.float = false, f }

// float64 returns the value, or the float64 nearest to it if it is exact.
func (v *Value) float64() float64 {
	if !v.exact {
		return v.float
	}
	// A quotient of integers that float64 holds exactly is rounded once, by
	// the division, and so correctly; big.Rat.Float64 would allocate.
	if num, den := v.rat.Num(), v.rat.Denom(); num.BitLen() <= 53 && den.BitLen() <= 53 {
		return float64(num.Int64()) / float64(den.Int64())
	}
	f, _ := v.rat.Float64()
	return f
}

// isZero reports whether v is zero, -0 included.
func (v *Value) isZero() bool {
	if v.exact {
		return v.rat.Sign() == 0
	}
	return v.float == 0
}

// fits reports whether an exact value's numerator and denominator each
// hold at most MaxBits bits.
func (v *Value) fits() bool {
	return v.rat.Num().BitLen() <= MaxBits && v.rat.Denom().BitLen() <= MaxBits
}

// finite reports whether v is finite in float64: an approximate value that
// is not ±Inf or NaN, or an exact one whose nearest float64 is not ±Inf.
// Values too small for float64 are finite: they round to 0.
func (v *Value) finite() bool {
	if !v.exact {
		return !math.IsInf(v.float, 0) && !math.IsNaN(v.float)
	}
	// With n and d bits above and below the line, the value lies between
	// 2^(n-d-1) and 2^(n-d+1), and float64 ends a little below 2^1024.
	switch e := v.rat.Num().BitLen() - v.rat.Denom().BitLen(); {
	case e <= 1022:
		return true
	case e >= 1025:
		return false
	}
	return !math.IsInf(v.float64(), 0)
}
