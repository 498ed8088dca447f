// Integer roots, for powers with a fractional exponent: 8^(1/3) is 2
// because 2^3 is 8, exactly.

package calc

import (
	"math"
	"math/big"
)

// root reports whether x is a k-th power, for x ≥ 0 and k ≥ 2, and sets z
// to its root if it is; z must not be x. It is Newton's method on
// integers, as big.Int.Sqrt is for k = 2, but in m's integers, which it
// reuses, from a close start: from any start above the root, each step
// decreases, to ⌊x^(1/k)⌋, and the next would not, which ends it; then
// z^k is x or not. Its first step may start below: any positive r steps
// to at or above the root, since by the inequality of means
// ((k-1)·r + x/r^(k-1))/k ≥ x^(1/k), and taking floors keeps it at or
// above ⌊x^(1/k)⌋. From a start a relative 2^-30 from the root, as
// rootEstimate gives, each step doubles the bits that are right.
//
// Every root here is of a numerator or denominator of at most MaxBits
// bits, or of a float64 (1,075 bits), and a k-th power of an integer above
// 1 has more than k bits: so k is small, or x is no k-th power.
func (m *arith) root(z, x, k *big.Int) bool {
	n := x.BitLen()
	switch {
	case n <= 1: // 0 and 1 are their own roots
		z.Set(x)
		return true
	case k.BitLen() > 31 || k.Int64() >= int64(n): // 1 < x < 2^k: the root lies strictly between 1 and 2
		return false
	}
	j := uint(k.Uint64())
	rootEstimate(z, x, j)
	for first := true; ; first = false {
		m.raise(&m.s, z, j-1)
		m.quoRem(&m.t, x, &m.s) // ⌊x / z^(j-1)⌋
		m.times(&m.v, m.u.SetUint64(uint64(j-1)), z)
		m.v.Add(&m.v, &m.t)
		m.quoRem(&m.t, &m.v, m.u.SetUint64(uint64(j))) // the next z
		if !first && m.t.Cmp(z) >= 0 {
			break
		}
		z.Set(&m.t)
	}
	m.raise(&m.s, z, j)
	return m.s.Cmp(x) == 0
}

// rootEstimate sets z to about x^(1/k), for x ≥ 2, from x's leading 64 bits
// in float64: log2(x) to about 2^-40, divided by k, and raised again,
// which leaves z within a relative 2^-30 of the root, or at most one from
// it when the root is below 2^30. z must not be x.
func rootEstimate(z, x *big.Int, k uint) {
	shift := max(x.BitLen()-64, 0)
	lead := z.Rsh(x, uint(shift)).Uint64()
	whole, frac := math.Modf((math.Log2(float64(lead)) + float64(shift)) / float64(k))
	if whole < 53 {
		z.SetUint64(uint64(math.Ceil(math.Exp2(whole + frac))))
		return
	}
	z.SetUint64(uint64(math.Ldexp(math.Exp2(frac), 52)))
	z.Lsh(z, uint(whole)-52)
}
