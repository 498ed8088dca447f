// Powers: exact when the value is a fraction MaxBits bits can hold, which
// for a fractional exponent takes roots (16^0.75 is 8), and approximate
// otherwise.

package calc

import "math/big"

// powers holds the integers power works in: the parts of the base, or
// their roots.
type powers struct {
	num, den, kth big.Int
}

// power sets z to x^y exactly and reports true when that is a fraction
// that MaxBits bits can hold; otherwise it reports false and leaves z
// alone, for approximatePower.
//
// With y = p/q in lowest terms (q = 1 for an integer) and x = a/b, x^y is
// rational exactly when a and b are q-th powers: if x^(1/q) = c/d in
// lowest terms, then a/b = c^q/d^q, in lowest terms too, so a = c^q and
// b = d^q; and x^(p/q) is rational only if x^(1/q) is, since x^(1/q) is
// (x^(p/q))^u · x^v for up + vq = 1. Then x^y = (c/d)^p: 16^0.75 = 2^3.
// A negative x has a real q-th root when q is odd, (-8)^(1/3) = -2, and
// none when q is even; 0 has no negative powers.
//
// Whether (c/d)^p fits is known before computing it, so 2^100000 costs
// nothing: c^|p| has at least |p|·(bits(c)-1)+1 bits.
func (e *evaluator) power(z, x, y *big.Rat) bool {
	p, q := y.Num(), y.Denom()
	if x.Sign() == 0 && p.Sign() < 0 || x.Sign() < 0 && q.Bit(0) == 0 {
		return false
	}
	num, den := e.num.Abs(x.Num()), e.den.Set(x.Denom())
	if !y.IsInt() {
		for _, part := range []*big.Int{num, den} {
			if !e.root(&e.kth, part, q) {
				return false
			}
			part.Set(&e.kth)
		}
	}
	if p.Sign() < 0 {
		num, den = den, num // (c/d)^-k = (d/c)^k
	}
	k := e.u.Abs(p)
	if num.BitLen() <= 1 && den.BitLen() <= 1 && k.BitLen() > 1 {
		k.SetUint64(uint64(2 - k.Bit(0))) // |x| is 0 or 1, whose powers repeat from x^1 and x^2
	}
	for _, part := range []*big.Int{num, den} {
		if bits := int64(part.BitLen()); bits > 1 && (k.BitLen() > 32 || k.Int64()*(bits-1) >= MaxBits) {
			return false
		}
	}
	e.pow(z, num, den, uint(k.Uint64()))
	if x.Sign() < 0 && p.Bit(0) == 1 {
		z.Neg(z) // an odd power of a negative root
	}
	return true
}

// approximatePower sets z to the float64 nearest to x^y, for a power
// that power cannot compute exactly, xf and yf being x and y as
// fractions; or it returns the error for a power that has no real value,
// 0 to a negative power or a negative base to a power whose denominator,
// in lowest terms, is even, or for one that float64 rounds to 0, or whose
// rounding nearestPower could not settle within maxWork.
func (e *evaluator) approximatePower(n *binaryNode, z, x, y *Value, xf, yf *big.Rat) error {
	switch {
	case xf.Sign() == 0: // and y < 0: power computes the rest
		return errorAt(n.pos, ErrNotFinite, "the result of %s is not finite (+Inf); zero has no negative powers", operation(n))
	case xf.Sign() < 0 && yf.Denom().Bit(0) == 0:
		why := ""
		if !y.exact {
			why = "; an approximate exponent is a binary fraction, whose denominator is even"
		}
		return errorAt(n.pos, ErrNotFinite, "the result of %s is not a real number (NaN); "+
			"a negative number has a real power only when the exponent, in lowest terms, has an odd denominator: "+
			"(-8)^(1/3) is -2, (-8)^0.5 is not real%s", operation(n), why)
	}
	f, ok := e.nearestPower(e.num.Abs(xf.Num()), xf.Denom(), yf.Num(), yf.Denom())
	switch {
	case !ok && !e.spent():
		return errorAt(n.pos, ErrTooCostly, "the result of %s is too costly to round: it lies so near halfway "+
			"between two 64-bit floats that %d bits of precision do not tell which is nearer", operation(n), lastPrecision)
	case !ok:
		return tooCostly(n.pos)
	case f == 0: // x^y is not 0, x being neither 0 nor 0 to a positive power here
		return underflow(n, x, y)
	}
	if xf.Sign() < 0 && yf.Num().Bit(0) == 1 {
		f = -f // the real root of a negative base, to an odd power
	}
	z.setFloat(f)
	return nil
}
