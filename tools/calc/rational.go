// Exact arithmetic on big.Rat values, by the algorithms of Knuth, The Art
// of Computer Programming, vol. 2, section 4.5.1.
//
// big.Rat's own Add, Mul and Quo divide every result by the gcd of its
// whole numerator and denominator: time quadratic in their length (tens
// of microseconds at 4,096 bits), and a copy of each, even for x + 1.
// Knuth's algorithms take gcds of the operands' parts instead, which are
// small when an operand is, so that x + 1 or x / 3 costs time linear in x;
// and the integers they need are kept from one operation to the next.

package calc

import (
	"math/big"
	"math/bits"
)

// maxWork bounds the work of one Eval's exact arithmetic, in word
// operations, each about a nanosecond on the two shared cores of
// bench_test.go's figures; past it, Eval refuses the next number or
// operator with ErrTooCostly. It is about 2 ms, and no expression a person
// writes comes near it; 10,000 characters can ask for far more. Each step counts its work, as measured
// there, on integers of m and n words, m ≥ n:
//
//	product   m·n
//	division  (m-n+1)·(n+32): for each word of the quotient, a guess
//	          from the leading words, and a pass over the divisor's
//	gcd       a division, then 7·n·(n+64): Euclid's algorithm on words,
//	          or Lehmer's, which takes a word off the smaller in each
//	          round of about 64 steps on words and passes over both
//
// and a power is its squarings. Additions, subtractions and copies, a
// fraction of a nanosecond a word, are not counted: there are a few for
// each operator, of at most MaxBits bits, and MaxLength allows 5,000.
var maxWork = 1 << 21 // a variable, for tests to lower as they do maxDepth

// arith holds the integers exact arithmetic works in, and the work done.
type arith struct {
	g, h, s, t, u, v big.Int // the operations' intermediate values
	q, r             big.Int // quotient and remainder of a division, for quoRem
	work             int
}

// spent reports whether the work of exact arithmetic is past maxWork.
func (m *arith) spent() bool { return m.work > maxWork }

// add sets z to x + y, or x - y if sub. With g = gcd(b, d):
//
//	a/b + c/d = (a·(d/g) + c·(b/g)) / (b/g · d)
//
// in which the numerator t can share a factor only with g, so that
// dividing both by gcd(t, g) gives lowest terms. When g is 1, as it is
// when an operand is an integer, t/(b·d) is in lowest terms already.
// A zero sum comes out 0/1, as big.Rat keeps zero: gcd(0, g) is g.
//
// Here and below, x and y are in lowest terms with a positive
// denominator, as big.Rat keeps them, and z, any big.Rat, is neither.
func (m *arith) add(z, x, y *big.Rat, sub bool) {
	a, b, c, d := x.Num(), x.Denom(), y.Num(), y.Denom()
	num, den := parts(z)
	g := m.gcd(&m.g, b, d)
	if isOne(g) {
		m.times(&m.s, a, d)
		m.times(&m.t, c, b)
		combine(num, &m.s, &m.t, sub)
		m.times(den, b, d)
		return
	}
	m.times(&m.s, a, m.over(&m.u, d, g))
	m.times(&m.t, c, m.over(&m.v, b, g))
	combine(&m.s, &m.s, &m.t, sub)
	h := m.gcd(&m.h, &m.s, g)
	m.divide(num, &m.s, h)
	m.times(den, &m.v, m.over(&m.u, d, h)) // b/g · d/h
}

// parts returns z's numerator and denominator, for the caller to set:
// big.Rat documents Num and Denom as references to them, but Denom is one
// only once z has been set, so z is set to 0 first.
func parts(z *big.Rat) (num, den *big.Int) {
	z.SetInt64(0)
	return z.Num(), z.Denom()
}

// combine sets z to x + y, or x - y if sub.
func combine(z, x, y *big.Int, sub bool) {
	if sub {
		z.Sub(x, y)
	} else {
		z.Add(x, y)
	}
}

// mul sets z to x·y: with g = gcd(a, d) and h = gcd(c, b),
//
//	a/b · c/d = (a/g · c/h) / (b/h · d/g)
//
// in lowest terms, since a/b and c/d are.
func (m *arith) mul(z, x, y *big.Rat) {
	m.product(z, x.Num(), x.Denom(), y.Num(), y.Denom())
}

// quo sets z to x/y, for y ≠ 0: x · d/c, the sign moved to the numerator.
func (m *arith) quo(z, x, y *big.Rat) {
	m.product(z, x.Num(), x.Denom(), y.Denom(), y.Num())
	if z.Denom().Sign() < 0 {
		z.Num().Neg(z.Num())
		z.Denom().Neg(z.Denom())
	}
}

// product sets z to a/b · c/d, as mul describes.
func (m *arith) product(z *big.Rat, a, b, c, d *big.Int) {
	num, den := parts(z)
	g := m.gcd(&m.g, a, d)
	h := m.gcd(&m.h, c, b)
	m.times(num, m.over(&m.s, a, g), m.over(&m.t, c, h))
	m.times(den, m.over(&m.s, b, h), m.over(&m.t, d, g))
}

// pow sets z to (a/b)^k: a^k / b^k, in lowest terms since a/b is.
func (m *arith) pow(z *big.Rat, a, b *big.Int, k uint) {
	num, den := parts(z)
	m.raise(num, a, k)
	m.raise(den, b, k)
	if den.Sign() < 0 {
		num.Neg(num)
		den.Neg(den)
	}
}

// raise sets z to x^k by squaring, from the leading bit of k: a square for
// each bit after it, and a product by x for each 1 (Knuth, section 4.6.3).
// Unlike big.Int.Exp it works in m's integers, rather than new ones, and
// its products count their work; their last square costs about three
// times as much as all before it. z must not be x.
func (m *arith) raise(z, x *big.Int, k uint) {
	z.SetInt64(1)
	for i := bits.Len(k) - 1; i >= 0; i-- {
		m.times(&m.g, z, z)
		if k>>i&1 == 1 {
			m.times(z, &m.g, x)
		} else {
			z.Set(&m.g)
		}
	}
}

// gcd sets z to gcd(|x|, |y|) and returns z, counting its work as maxWork
// says: Euclid's first step, the larger modulo the smaller, then Euclid's
// algorithm on words if the smaller fits in one, and otherwise
// big.Int.GCD, Lehmer's algorithm, on the smaller and the remainder, so
// that the copies it allocates are no longer than the smaller.
func (m *arith) gcd(z, x, y *big.Int) *big.Int {
	small, large := x, y
	if len(small.Bits()) > len(large.Bits()) {
		small, large = large, small
	}
	switch {
	case small.Sign() == 0: // gcd(0, n) = n
		return z.Abs(large)
	case isOne(small):
		return z.SetUint64(1)
	case x.CmpAbs(y) == 0: // as the denominators of a sum often are
		return z.Abs(x)
	}
	m.quoRem(&m.q, large, small) // Euclid's first step: large mod small, in m.r
	r := &m.r
	if r.Sign() == 0 {
		return z.Abs(small)
	}
	n := len(small.Bits())
	m.work += 7 * n * (n + 64)
	if n == 1 {
		return z.SetUint64(gcdWords(uint64(small.Bits()[0]), uint64(r.Bits()[0])))
	}
	return z.GCD(nil, nil, small, r)
}

// gcdWords returns gcd(u, v), by Euclid's algorithm.
func gcdWords(u, v uint64) uint64 {
	for v != 0 {
		u, v = v, u%v
	}
	return u
}

// times sets z to x·y and returns z, counting its work; z must be neither
// x nor y.
func (m *arith) times(z, x, y *big.Int) *big.Int {
	switch {
	case isOne(x):
		return z.Set(y)
	case isOne(y):
		return z.Set(x)
	}
	m.work += len(x.Bits()) * len(y.Bits())
	return z.Mul(x, y)
}

// divide sets z to x/y, a division known to be exact, and returns z.
func (m *arith) divide(z, x, y *big.Int) *big.Int {
	if isOne(y) {
		return z.Set(x)
	}
	return m.quoRem(z, x, y)
}

// quoRem sets z to x/y, truncated toward zero, and m.r to the remainder,
// and returns z, counting its work; z must be neither x nor y, nor m.r.
func (m *arith) quoRem(z, x, y *big.Int) *big.Int {
	if q := len(x.Bits()) - len(y.Bits()) + 1; q > 0 {
		m.work += q * (len(y.Bits()) + 32)
	}
	z.QuoRem(x, y, &m.r) // QuoRem, unlike Quo, keeps the remainder's memory
	return z
}

// over returns x/y, a division known to be exact: x itself if y is 1,
// which saves a copy, and otherwise z, set to x/y.
func (m *arith) over(z, x, y *big.Int) *big.Int {
	if isOne(y) {
		return x
	}
	return m.divide(z, x, y)
}

// isOne reports whether x is 1.
func isOne(x *big.Int) bool {
	w := x.Bits()
	return len(w) == 1 && w[0] == 1 && x.Sign() > 0
}
