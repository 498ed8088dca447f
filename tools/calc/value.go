// A value is exact, a fraction of integers, for as long as arithmetic
// allows; then it is a float64, approximate, and so is everything computed
// from it. Eval's documentation says when that happens.

package calc

import (
	"math"
	"math/big"
	"math/bits"
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

// fraction returns v's value as a fraction: v.rat if v is exact, and
// otherwise r, set to v's float64 exactly, which is a fraction too: an
// integer of at most 53 bits times a power of two, which is below the line
// when negative. The integer is made odd, so the fraction is in lowest
// terms, as big.Rat keeps them.
func fraction(v *Value, r *big.Rat) *big.Rat {
	if v.exact {
		return v.rat
	}
	num, den := parts(r)
	if v.float == 0 {
		return r
	}
	frac, exp := math.Frexp(v.float)    // v.float = frac·2^exp, with ½ ≤ |frac| < 1
	mantissa := int64(frac * (1 << 53)) // exactly: frac has 53 significant bits
	exp -= 53
	if exp < 0 {
		shift := min(bits.TrailingZeros64(uint64(mantissa)), -exp)
		mantissa >>= shift // exactly, the sign kept
		exp += shift
	}
	num.SetInt64(mantissa)
	den.SetUint64(1)
	if exp >= 0 {
		num.Lsh(num, uint(exp))
	} else {
		den.Lsh(den, uint(-exp))
	}
	return r
}

// float64 returns the value, or the float64 nearest to it if it is exact.
func (v *Value) float64() float64 {
	var m arith
	return m.float64(v)
}

// float64 returns v, or the float64 nearest to it if it is exact, in m's
// integers, which it reuses: big.Rat.Float64 would allocate copies of
// both of v's, a kilobyte at MaxBits, each time.
func (m *arith) float64(v *Value) float64 {
	if !v.exact {
		return v.float
	}
	num, den := v.rat.Num(), v.rat.Denom()
	// A quotient of integers that float64 holds exactly is rounded once, by
	// the division, and so correctly.
	if num.BitLen() <= 53 && den.BitLen() <= 53 {
		return float64(num.Int64()) / float64(den.Int64())
	}
	return m.nearest(num, den)
}

// nearest returns the float64 nearest to num/den, for num ≠ 0 and den > 0,
// halfway cases to even, as big.Rat.Float64 rounds.
//
// With e = bits(num) - bits(den), |num/den| lies in [2^(e-1), 2^(e+1)),
// so q = ⌊|num|·2^s / den⌋ for s = 55-e has 55 or 56 bits: a float64's 53,
// and two or three to round by, with the remainder to say whether anything
// lies past them. Below 2^-1021 a float64's last bit is 2^-1074, so s
// stops at 1076, two bits past it, and q has fewer bits. Rounded, q·2^-s
// is a float64 exactly, or past float64's range, which Ldexp makes ±Inf.
func (m *arith) nearest(num, den *big.Int) float64 {
	s := min(55-(num.BitLen()-den.BitLen()), 1076)
	if s >= 0 {
		m.quoRem(&m.q, m.s.Lsh(num, uint(s)), den)
	} else {
		m.quoRem(&m.q, num, m.t.Lsh(den, uint(-s)))
	}
	q := m.q.Abs(&m.q).Uint64()
	k := max(bits.Len64(q)-53, s-1074) // the bits to round away: 2 or 3
	rest, half := q&(1<<k-1), uint64(1)<<(k-1)
	q >>= k
	if rest > half || rest == half && (m.r.Sign() != 0 || q&1 == 1) {
		q++ // to the nearer, or if halfway, to the even
	}
	f := math.Ldexp(float64(q), k-s)
	if num.Sign() < 0 {
		return -f
	}
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
